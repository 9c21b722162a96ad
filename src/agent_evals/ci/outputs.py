"""What `agent-evals ci` hands back to the workflow: step outputs and regression annotations."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agent_evals.github.actions_io import Annotation

if TYPE_CHECKING:
    from agent_evals.ci.plan import CIPlan
    from agent_evals.gate.model import Comparison
    from agent_evals.github.comments import CommentResult


def regression_annotations(comparison: Comparison, cwd: Path, env: Mapping[str, str]) -> list[Annotation]:
    """One annotation per regressed or critically flipped case, at its file and line in the workspace."""
    workspace = Path(env["GITHUB_WORKSPACE"]) if env.get("GITHUB_WORKSPACE") else cwd
    found: list[Annotation] = []
    for suite in comparison.suites:
        level: Literal["error", "warning"] = "error" if suite.outcome == "fail" else "warning"
        for case in suite.cases:
            if case.classification != "regressed" and not case.critical_flip:
                continue
            file, line = split_location(case.location, cwd, workspace)
            scorers = ", ".join(f.name for f in case.failing_scorers[:3])
            why = f" (failing: {scorers})" if scorers else ""
            found.append(
                Annotation(
                    level,
                    f"{case.case_id} regressed: passed on the baseline, fails now{why}",
                    file=file,
                    line=line,
                    title=f"agent-evals: {suite.suite_id}",
                )
            )
    return found


def split_location(location: str | None, cwd: Path, workspace: Path) -> tuple[str | None, int | None]:
    """``file:line`` as a workspace-relative path and a line number (either may be None)."""
    if not location:
        return None, None
    file, _, line = location.rpartition(":")
    if not file or not line.isdigit():
        file, line = location, ""
    path = Path(file) if Path(file).is_absolute() else cwd / file
    try:
        shown = Path(os.path.relpath(path, workspace)).as_posix()
    except ValueError:
        shown = path.as_posix()
    return shown, int(line) if line else None


def step_outputs(
    comparison: Comparison,
    record_path: Path,
    report_path: Path,
    comment: CommentResult | None,
    gate_id: str,
    plan: CIPlan,
    *,
    status: str,
    accepted: bool,
) -> dict[str, str]:
    """The step outputs the action declares, from the comparison, the decided ``status`` (ci/outcome.py)
    and where things were written."""
    from agent_evals.report.headline import overall_rate, regressed_cases_in

    def rate(value: float | None) -> str:
        return "" if value is None else f"{value:.4f}"

    baseline = comparison.baseline
    return {
        "status": status,
        "pass-rate": rate(overall_rate(comparison, "candidate")),
        "baseline-pass-rate": rate(overall_rate(comparison, "baseline")),
        "regressions": str(sum(regressed_cases_in(s) for s in comparison.suites)),
        "run-record": str(record_path),
        "report": str(report_path),
        "comment-url": (comment.url if comment and comment.url else ""),
        "gate-id": gate_id,
        "upload-baseline": "true" if plan.upload_baseline else "false",
        "accepted-regression": "true" if accepted else "false",
        "baseline-run-id": baseline.run_id or "",
        "baseline-sha": baseline.sha or "",
        "baseline-url": baseline.url or "",
    }
