"""Redefined cases: cases on both sides whose definition digests or groups differ (``on_redefined_cases``)."""

from __future__ import annotations

from agent_evals.core.definition import is_digest
from agent_evals.gate.model import Outcome, Reason, SuiteComparison, Verdict
from agent_evals.gate.policy import Knobs
from agent_evals.record.views import SuiteView

LISTED = 10
"""Redefined case ids named in the reason (the rest are counted)."""


def redefined_ids(base: SuiteView | None, cand: SuiteView) -> list[str]:
    """Candidate cases (in candidate order) the baseline also ran whose definition digests differ.

    A case counts only when both sides recorded a digest: a baseline written before digests were
    recorded, or a case whose digest is not one a writer writes (masked, crafted), is not compared."""
    if base is None:
        return []
    base_cases = base.cases
    out: list[str] = []
    for cid, case in cand.cases.items():
        digest = case.definition
        if digest is None:
            continue
        old = base_cases.get(cid)
        if old is None or old.definition is None or old.definition == digest:
            continue
        if is_digest(digest) and is_digest(old.definition):
            out.append(cid)
    return out


def message(label: str, ids: list[str], knobs: Knobs) -> str:
    """The reason's sentence: how many cases, the first ids, and what to do."""
    n = len(ids)
    shown = ", ".join(ids[:LISTED])
    more = f" and {n - LISTED:,} more" if n > LISTED else ""
    one = n == 1
    return (
        f"{label}: {n:,} {'case was' if one else 'cases were'} redefined since the baseline "
        f"(prompt or input, expected values, success checks or scorers changed; "
        f"on_redefined_cases: {knobs.on_redefined_cases}): {shown}{more}. "
        f"{'Its' if one else 'Their'} baseline results judged another definition; "
        "if the change is intended, accept it with the accept label."
    )


def decide(
    result: SuiteComparison, base: SuiteView | None, cand: SuiteView, knobs: Knobs
) -> list[tuple[Verdict, Outcome, Reason]]:
    """List the suite's redefined cases on ``result`` and, when there are any, the verdict, outcome
    and reason the policy gives them: ``warn`` a warning, ``fail`` a failed gate (exit 1)."""
    ids = redefined_ids(base, cand)
    result.redefined_case_ids = ids
    if not ids:
        return []
    changed = set(ids)
    for diff in result.cases:
        if diff.case_id in changed:
            diff.redefined = True
    return _decided(
        result, message(f"Suite {result.suite_id}", ids, knobs), ids[0] if len(ids) == 1 else None, knobs
    )


def _decided(
    result: SuiteComparison, text: str, case_id: str | None, knobs: Knobs
) -> list[tuple[Verdict, Outcome, Reason]]:
    """A ``redefined`` reason with the verdict and outcome ``on_redefined_cases`` gives it."""
    blocking = knobs.on_redefined_cases == "fail"
    reason = Reason(
        kind="redefined", message=text, suite_id=result.suite_id, case_id=case_id, blocking=blocking
    )
    return [("failed", "fail", reason) if blocking else ("passed", "warn", reason)]


def regrouped(
    result: SuiteComparison, moved: list[tuple[str, str, str]], knobs: Knobs
) -> list[tuple[Verdict, Outcome, Reason]]:
    """The verdict, outcome and reason of cases moved to another group since the baseline (``moved``:
    case id, baseline group, group now), judged in their baseline group; none when none moved."""
    if not moved:
        return []
    n = len(moved)
    shown = ", ".join(f"{cid} ({before} -> {now})" for cid, before, now in moved[:LISTED])
    more = f" and {n - LISTED:,} more" if n > LISTED else ""
    one = n == 1
    text = (
        f"Suite {result.suite_id}: {n:,} {'case was' if one else 'cases were'} moved to another group "
        f"since the baseline (on_redefined_cases: {knobs.on_redefined_cases}): {shown}{more}. "
        f"{'It is' if one else 'They are'} judged in the baseline's group, under that group's knobs, "
        "until a baseline has the new one; if the move is intended, accept it with the accept label."
    )
    return _decided(result, text, moved[0][0] if one else None, knobs)
