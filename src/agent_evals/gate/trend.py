"""A suite's pass rate across the earlier baselines, the baseline and the candidate (the HTML trend chart)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal

from agent_evals.gate.model import TrendPoint
from agent_evals.gate.paired import rate_summary_of_counts
from agent_evals.record.summary import RunSummary


def _point(
    role: Literal["history", "baseline", "candidate"], run: dict[str, Any], rate: float | None
) -> TrendPoint:
    git, ci = run.get("git") or {}, run.get("ci") or {}
    return TrendPoint(
        role=role, rate=rate, sha=git.get("sha"), date=run.get("started_at"), run_id=ci.get("run_id")
    )


def suite_trend(
    suite_id: str,
    earlier: Sequence[RunSummary],
    baseline: RunSummary,
    baseline_rate: float | None,
    candidate: RunSummary,
    candidate_rate: float | None,
) -> list[TrendPoint]:
    """The suite's points, earlier baselines first (by start time when every one has it, else as given),
    then the baseline and the candidate; empty when no earlier baseline holds the suite. An earlier
    rate is computed as the baseline's is: the mean pass fraction over cases with a valid trial."""
    points = []
    for run in earlier:
        for suite in run.suites:
            if suite.header["id"] == suite_id:
                counts = Counter(case.key for case in suite.view.cases.values())
                points.append(_point("history", run.run, rate_summary_of_counts(counts).rate))
    if not points:
        return []
    if all(isinstance(p.date, str) for p in points):
        points.sort(key=lambda p: str(p.date))
    return [
        *points,
        _point("baseline", baseline.run, baseline_rate),
        _point("candidate", candidate.run, candidate_rate),
    ]
