"""Confirm before failing or shrugging: re-run only the flipped cases and decide on all the data.

Two looks spend alpha between them: the first comparison only picks the suites (failing or
inconclusive on a drop) and their cases that dropped; the final decision is made on the first
run's trials plus the confirm trials at ``alpha / 2`` (Bonferroni over the two looks).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from agent_evals.gate.model import Comparison, Outcome, Reason
from agent_evals.gate.policy import Layer, Policy, PolicyBlock
from agent_evals.gate.verdict import outcome_of, worst_outcome

if TYPE_CHECKING:
    from agent_evals.record.model import RunRecord

LOOKS = 2
"""Looks at the data alpha is spent over."""

DEFAULT_MAX_TRIALS = 50
"""Most confirm trials per case ``--confirm-max-trials`` allows by default."""


def flipped_cases(comparison: Comparison) -> dict[str, list[str]]:
    """Suite id -> ids of the cases whose pass fraction dropped, for suites failing or inconclusive on a drop."""
    out: dict[str, list[str]] = {}
    for suite in comparison.suites:
        if not {r.kind for r in suite.reasons} & {"regression", "inconclusive"}:
            continue
        ids = [c.case_id for c in suite.cases if c.delta is not None and c.delta < 0]
        if ids:
            out[suite.suite_id] = ids
    return out


def merge_trials(
    record: RunRecord, extra: Sequence[RunRecord], wanted: Mapping[str, Sequence[str]]
) -> RunRecord:
    """A copy of ``record`` whose wanted cases also hold the trials the confirm runs gave them."""
    found: dict[tuple[str, str], list[object]] = {}
    for run in extra:
        for suite in run.suites:
            for case in suite.cases:
                if case.id in wanted.get(suite.id, ()):
                    found.setdefault((suite.id, case.id), []).extend(case.trials)
    merged = record.model_copy(deep=True)
    for suite in merged.suites:
        for case in suite.cases:
            more = found.get((suite.id, case.id))
            if more:
                case.trials = [*case.trials, *more]  # type: ignore[list-item]
    return merged


def confirm_errors(
    extra: Sequence[RunRecord], wanted: Mapping[str, Sequence[str]]
) -> dict[str, tuple[int, int]]:
    """Suite id -> (errored, all) confirm trials of its wanted cases: what the confirm runs gave."""
    out: dict[str, tuple[int, int]] = {sid: (0, 0) for sid in wanted}
    for run in extra:
        for suite in run.suites:
            for case in suite.cases:
                if case.id not in wanted.get(suite.id, ()):
                    continue
                errored, total = out[suite.id]
                out[suite.id] = (
                    errored + sum(1 for t in case.trials if t.error is not None),
                    total + len(case.trials),
                )
    return out


def no_evidence(errored: int, total: int) -> str | None:
    """The words of a confirm run that gave no evidence (every trial errored, or none ran), else None."""
    if total == 0:
        return "confirm run errored: it ran no trials; no evidence (the first run's outcome stands)"
    if errored == total:
        return (
            f"confirm run errored: {errored} of {total} trials errored; no evidence (the first run's "
            "outcome stands)"
        )
    return None


def spent(policy: Policy) -> Policy:
    """The policy of the final look: every alpha halved (alpha spent over two looks), its floor's too."""
    alpha = policy.effective.alpha / LOOKS
    block = PolicyBlock.model_validate({"alpha": alpha})
    return Policy(
        layers=[*policy.layers, Layer(source="confirm (alpha spent over two looks)", block=block)],
        floor=spent(policy.floor) if policy.floor is not None else None,
        floor_by_suite={sid: spent(base) for sid, base in policy.floor_by_suite.items()},
    )


def confirm(
    first: Comparison,
    candidate: RunRecord,
    policy: Policy,
    *,
    trials: int,
    rerun: Callable[[str, str, int], RunRecord],
    compare: Callable[[RunRecord, Policy], Comparison],
) -> Comparison:
    """Re-run the flipped cases ``trials`` more times (``rerun(suite_id, case_id, trials)``), compare
    again on all the data at the spent alpha, and say in every suite concerned whether the drop was
    confirmed. Returns ``first`` unchanged when no suite needs confirming."""
    wanted = flipped_cases(first)
    if not wanted or trials <= 0:
        return first
    extra = [rerun(sid, cid, trials) for sid, ids in wanted.items() for cid in ids]
    second = compare(merge_trials(candidate, extra, wanted), spent(policy))
    seen = confirm_errors(extra, wanted)
    before = {s.suite_id: {r.kind for r in s.reasons} for s in first.suites}
    first_suites = {s.suite_id: s for s in first.suites}
    dropped: set[tuple[str | None, str]] = set()
    unproven: set[str] = set()  # suites whose confirm run gave no evidence: the first look stands
    added: list[Reason] = []
    for i, suite in enumerate(second.suites):
        if suite.suite_id not in wanted:
            continue
        n = len(wanted[suite.suite_id])
        blank = no_evidence(*seen[suite.suite_id])
        if blank is not None and suite.suite_id in first_suites:
            suite = second.suites[i] = first_suites[suite.suite_id].model_copy(deep=True)
            unproven.add(suite.suite_id)
            reason = Reason(
                kind="confirm",
                message=(
                    f"Suite {suite.suite_id}: {n} flipped case{'s' if n != 1 else ''} re-run {trials} more "
                    f"times: {blank}."
                ),
                suite_id=suite.suite_id,
            )
            suite.reasons.append(reason)
            added.append(reason)
            suite.outcome = outcome_of(suite.reasons, suite.policy)
            continue
        # uneven trial counts are the confirm run's doing, not a difference between the runs
        if "fingerprint" not in before.get(suite.suite_id, set()):
            suite.reasons = [r for r in suite.reasons if r.kind != "fingerprint"]
            dropped.add((suite.suite_id, "fingerprint"))
        confirmed = any(r.kind == "regression" for r in suite.reasons)
        words = (
            "confirmed: the drop holds on all the data"
            if confirmed
            else "not confirmed: flaky (the drop does not hold on all the data)"
        )
        reason = Reason(
            kind="confirm",
            message=(
                f"Suite {suite.suite_id}: {n} flipped case{'s' if n != 1 else ''} re-run {trials} more "
                f"times, decided on all the data at alpha {policy.knobs_for(suite.suite_id).alpha / LOOKS:g}: "
                f"{words}."
            ),
            suite_id=suite.suite_id,
            # a confirmed drop that fails the gate is a failure, marked as one (not a warning)
            blocking=any(r.kind == "regression" and r.blocking for r in suite.reasons),
        )
        suite.reasons.append(reason)
        added.append(reason)
        if not confirmed:
            suite.confirm_flaky = list(wanted[suite.suite_id])
        suite.outcome = outcome_of(suite.reasons, suite.policy)
    kept = [r for r in second.reasons if (r.suite_id, r.kind) not in dropped and r.suite_id not in unproven]
    kept += [r for r in first.reasons if r.suite_id in unproven]
    second.reasons = sorted(kept + added, key=lambda r: not r.blocking)
    if second.outcome != "incomplete":  # an interrupted candidate keeps its outcome
        outcomes: list[Outcome] = [s.outcome for s in second.suites]
        if second.removed_suite_ids or second.notes:
            outcomes.append("warn")
        second.outcome = worst_outcome(outcomes)
    return second
