"""Records that hold part of a run (a shard, an interrupted run): what they lack, said as notes and reasons."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_evals.gate.model import Reason, SuiteComparison
from agent_evals.gate.verdict import outcome_of, worst_outcome, worst_verdict
from agent_evals.record.summary import RunSummary


def partial_run(run: Mapping[str, Any]) -> str | None:
    """How a run's record holds only part of the run (a shard, an interrupted run), or None."""
    shard = run.get("shard")
    if shard:
        where = f"{shard.get('index')}/{shard.get('count')}" if isinstance(shard, dict) else "?"
        return f"shard {where} of a run"
    if not run.get("complete", True):
        return "of an interrupted run"
    return None


def lacks_baseline(suite: SuiteComparison, partial: str) -> None:
    """The candidate cases a partial baseline does not hold have no baseline: on_missing_baseline
    decides for them, as for a suite without one (a new case of a whole baseline stays a new case)."""
    if suite.baseline is None or not suite.added_case_ids:
        return  # no baseline at all (decide said so), or every case has one
    knobs = suite.policy
    action = knobs.on_missing_baseline
    reason = Reason(
        kind="missing-baseline",
        message=(
            f"Suite {suite.suite_id}: the baseline is {partial}, and lacks {len(suite.added_case_ids):,} of "
            f"its {suite.candidate.cases:,} cases; they are compared with nothing (policy: {action})."
        ),
        suite_id=suite.suite_id,
        blocking=action == "fail",
    )
    suite.reasons = sorted([*suite.reasons, reason], key=lambda r: not r.blocking)
    suite.outcome = worst_outcome([suite.outcome, outcome_of([reason], knobs)])
    if reason.blocking:  # never a "passed" verdict beside a failing outcome (the action's `status`)
        suite.verdict = worst_verdict([suite.verdict, "no-baseline"])


def mark_not_run(suite: SuiteComparison) -> None:
    """Baseline cases missing from an incomplete candidate become ``not-run`` rather than ``removed``."""
    for case in suite.cases:
        if case.classification == "removed":
            case.classification = "not-run"
    suite.not_run_case_ids, suite.removed_case_ids = suite.removed_case_ids, []
    suite.counts["not-run"] = suite.counts.get("not-run", 0) + suite.counts.get("removed", 0)
    suite.counts["removed"] = 0


NOT_RUN_LISTED = 20
"""Cases not run named in the incomplete-run reason (the rest are counted)."""


def not_run_message(
    suites: list[SuiteComparison],
    not_run_suites: list[str],
    has_baseline: bool,
    run: Mapping[str, Any] | None = None,
) -> str:
    """The blocking reason of an incomplete candidate: what it did not run (up to NOT_RUN_LISTED named);
    a run that stopped at its ``--budget-usd`` says "Budget exhausted" and what it spent."""
    head = "The candidate run is incomplete (interrupted or its process died), so the gate cannot pass"
    budget = (run or {}).get("budget")
    if (run or {}).get("incomplete_reason") == "budget" and isinstance(budget, Mapping):
        head = (
            "Budget exhausted: the candidate run stopped starting trials at its --budget-usd limit "
            f"(${float(budget.get('spent_usd') or 0):.4f} spent of the "
            f"${float(budget.get('limit_usd') or 0):g} budget), so the gate cannot pass; what did not "
            "run is not a regression"
        )
    if not has_baseline:
        return f"{head}; without a baseline the cases it did not run are unknown."
    ids = [f"{s.suite_id}: {cid}" for s in suites for cid in s.not_run_case_ids]
    ids += [f"{sid} (whole suite)" for sid in not_run_suites]
    if not ids:
        return f"{head}; every baseline case did run."
    shown = ", ".join(ids[:NOT_RUN_LISTED])
    more = f" and {len(ids) - NOT_RUN_LISTED} more" if len(ids) > NOT_RUN_LISTED else ""
    return f"{head}. Not run ({len(ids)}): {shown}{more}."


def _shard_note(side: str, shard: Any) -> str:
    where = f"{shard.get('index')}/{shard.get('count')}" if isinstance(shard, dict) else "?"
    return (
        f"The {side} record is shard {where} of a run, not the whole run: merge the shard records "
        "with `agent-evals merge` and compare the merged record."
    )


def run_notes(baseline: RunSummary | None, candidate: RunSummary) -> list[str]:
    """Notes on records that hold part of a run: a shard or interrupted candidate, a partial baseline."""
    notes = []
    if candidate.run.get("shard"):
        notes.append(_shard_note("candidate", candidate.run["shard"]))
    if not candidate.run.get("complete", True):
        notes.append("The candidate run is incomplete (interrupted): missing cases are not regressions.")
    if baseline is not None and not baseline.run.get("complete", True):
        notes.append("The baseline run is incomplete (interrupted): some cases may show as new.")
    if baseline is not None and baseline.run.get("shard"):
        notes.append(_shard_note("baseline", baseline.run["shard"]))
    return notes
