"""Turn rates and paired statistics into a verdict, its reasons and its outcome under the policy."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agent_evals.core.percent import interval_text, percent
from agent_evals.core.percent import points as percent_points
from agent_evals.gate.model import (
    DeltaStat,
    ErrorRise,
    FingerprintCheck,
    Outcome,
    RateSummary,
    Reason,
    ReasonKind,
    Verdict,
)
from agent_evals.gate.paired import EPS, over_error_budget
from agent_evals.gate.policy import Knobs

VERDICT_RANK: dict[Verdict, int] = {
    "passed": 0,
    "reused": 0,
    "no-baseline": 1,
    "inconclusive": 2,
    "failed": 3,
}
"""Severity order used to combine verdicts (the worst wins)."""

OUTCOME_RANK: dict[Outcome, int] = {"pass": 0, "warn": 1, "fail": 2, "incomplete": 3}
"""Severity order of outcomes."""


LOST_LISTED = 20
"""Cases that lost their grade named in the ``lost-grade`` reason (the rest are counted)."""


def pct(x: float) -> str:
    """A rate as a percentage with one decimal (``core.percent``, as every report shows it)."""
    return percent(x)


def points(x: float) -> str:
    """A size of a difference of rates in percentage points (unsigned), for a sentence."""
    return percent_points(x, unit="points")


def count(n: int, noun: str) -> str:
    """A count for a sentence: ``1 added case``, ``2,000 added cases``."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def pvalue(p: float) -> str:
    """A p-value for a sentence: three significant digits, or ``< 0.001``."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3g}"


@dataclass
class Decision:
    """A verdict with the reasons behind it and the outcome the policy gives it."""

    verdict: Verdict
    outcome: Outcome
    reasons: list[Reason] = field(default_factory=list)


def removed_critical_message(label: str, case_id: str) -> str:
    """Why a critical case that passed in the baseline and is missing now stops the gate."""
    return (
        f"{label}: critical case {case_id} passed every trial in the baseline and is not in this run "
        "(removed or renamed); if that is intended, accept it with the accept label."
    )


@dataclass
class _Reasons:
    """The reasons of one decision as they are found, and whether one of them fails the gate."""

    suite_id: str
    group: str | None
    items: list[Reason] = field(default_factory=list)
    failed: bool = False

    def add(
        self,
        kind: ReasonKind,
        message: str,
        *,
        blocking: bool,
        case_id: str | None = None,
        fails: bool = True,
    ) -> None:
        """Record a reason; a blocking one fails the verdict unless ``fails`` is False (the policy's
        outcome alone blocks: a missing baseline, an inconclusive drop)."""
        self.items.append(
            Reason(
                kind=kind,
                message=message,
                suite_id=self.suite_id,
                group=self.group,
                case_id=case_id,
                blocking=blocking,
            )
        )
        self.failed = self.failed or (blocking and fails)


def decide(
    *,
    label: str,
    suite_id: str,
    group: str | None,
    knobs: Knobs,
    candidate: RateSummary | None,
    delta: DeltaStat | None,
    has_baseline: bool,
    critical_flips: Sequence[str] = (),
    critical_lost: Sequence[str] = (),
    critical_removed: Sequence[str] = (),
    lost_cases: Sequence[tuple[str, bool, int]] = (),
    lost_trials: int = 0,
    report_missing: bool = True,
    fingerprint: FingerprintCheck | None = None,
    baseline: RateSummary | None = None,
    errors: ErrorRise | None = None,
) -> Decision:
    """Apply GATE.md's rules to one suite or gated group; ``delta.significant`` must already be set (Holm).

    ``lost_cases``: (case id, errored, trials it ran now) of each case graded in the baseline with no
    graded trial now; ``lost_trials``: what those cases without an errored trial are charged as errored
    to the error budget (as many trials as the baseline ran of them); ``critical_lost``: critical cases among them that passed every baseline trial;
    ``critical_removed``: critical cases that passed every baseline trial and are not in this run."""
    found = _Reasons(suite_id=suite_id, group=group)
    _check_floor(found, label, knobs, candidate)
    _check_errors(found, label, knobs, candidate, errors, lost_trials, lost_cases)
    _check_critical(found, label, knobs, critical_flips, critical_lost, critical_removed)
    _note_lost_cases(found, label, lost_cases)
    _check_graded(found, label, candidate, baseline)
    if fingerprint is not None and fingerprint.notes:
        found.add(
            "fingerprint",
            f"{label}: the runs are not alike (on_mismatch: {knobs.on_mismatch}): "
            + " ".join(fingerprint.notes),
            blocking=knobs.on_mismatch == "fail",
        )
    inconclusive = False
    if not has_baseline:
        action = knobs.on_missing_baseline
        if report_missing:
            found.add(
                "missing-baseline",
                f"{label}: no baseline to compare with (policy: {action}).",
                blocking=action == "fail",
                fails=False,
            )
    else:
        inconclusive = _check_drop(found, label, knobs, delta)
    reasons = found.items
    note = methods_note(delta, knobs)
    if note and reasons and reasons[-1].kind in ("regression", "inconclusive"):
        reasons[-1].message += " " + note
    if found.failed:
        verdict: Verdict = "failed"
    elif inconclusive:
        verdict = "inconclusive"
    elif not has_baseline:
        verdict = "no-baseline"
    else:
        verdict = "passed"
    return Decision(verdict=verdict, outcome=outcome_of(reasons, knobs), reasons=reasons)


def _check_floor(found: _Reasons, label: str, knobs: Knobs, candidate: RateSummary | None) -> None:
    """The candidate's pass rate against the absolute floor (``min_pass_rate``)."""
    rate = candidate.rate if candidate is not None else None
    if knobs.min_pass_rate is not None and rate is not None and rate < knobs.min_pass_rate - EPS:
        found.add(
            "floor",
            f"{label}: pass rate {pct(rate)} is below the floor of {pct(knobs.min_pass_rate)}.",
            blocking=True,
        )


def _check_errors(
    found: _Reasons,
    label: str,
    knobs: Knobs,
    candidate: RateSummary | None,
    errors: ErrorRise | None,
    lost_trials: int,
    lost_cases: Sequence[tuple[str, bool, int]] = (),
) -> None:
    """The error budget: the candidate's errored trials (lost ones included), else a significant rise.

    Its message counts what it names: the trials that ran and errored, then the cases that lost their
    grade and the trials charged for them, which are the baseline's (a case may have run fewer now, or
    none at all, as when a budget stopped the run)."""
    ran_errored = candidate.errored_trials if candidate is not None else 0
    ran = candidate.trials if candidate is not None else 0
    errored, trials = ran_errored + lost_trials, ran + lost_trials
    if candidate is not None and trials and over_error_budget(errored, trials, knobs.max_error_rate):
        share = f"{errored} of {trials} trials errored ({pct(errored / trials)})"
        if lost_trials:
            share = (
                f"{f'{ran_errored} of {ran} graded trials errored' if ran else 'no graded trial ran'}, "
                f"and {_lost_words(lost_cases)}, charged as "
                f"the {lost_trials} trials the baseline ran of them: {errored} of {trials} counted as "
                f"errored ({pct(errored / trials)})"
            )
        found.add(
            "error-budget",
            f"{label}: {share}, significantly over the error budget of {pct(knobs.max_error_rate)} "
            "(its lower 95% bound is above it).",
            blocking=True,
        )
    elif errors is not None and errors.significant and errors.delta >= knobs.max_drop - EPS:
        p_adj = errors.p_adjusted if errors.p_adjusted is not None else errors.p_value
        found.add(
            "error-budget",
            f"{label}: the error rate rose {points(errors.delta)} over the baseline's ({pvalue(p_adj)} "
            f"adjusted, paired; tolerated rise {points(knobs.max_drop)}).",
            blocking=True,
        )


def _lost_words(lost_cases: Sequence[tuple[str, bool, int]]) -> str:
    """The cases graded in the baseline without an errored trial now and with no graded one, counted by
    what they ran: trials without a pass/fail verdict, or no trial at all."""
    unverdicted = [ran for _, errored, ran in lost_cases if not errored]
    none = sum(1 for ran in unverdicted if ran == 0)
    parts = []
    if len(unverdicted) > none:
        n, ran = len(unverdicted) - none, sum(unverdicted)
        parts.append(
            f"{n:,} {'case' if n == 1 else 'cases'} graded in the baseline ran {ran:,} "
            f"{'trial' if ran == 1 else 'trials'} without a pass/fail verdict now"
        )
    if none:
        parts.append(
            f"{none:,} {'case' if none == 1 else 'cases'} graded in the baseline ran no trial at all now"
        )
    return " and ".join(parts) or "cases graded in the baseline have no graded trial now"


def _check_critical(
    found: _Reasons,
    label: str,
    knobs: Knobs,
    flips: Sequence[str],
    lost: Sequence[str],
    removed: Sequence[str],
) -> None:
    """Critical cases that passed every baseline trial and now fail, lost every grade, or are gone."""
    if knobs.critical == "ignore":
        return
    blocking = knobs.critical == "fail"
    for case_id in flips:
        found.add(
            "critical-case",
            f"{label}: critical case {case_id} passed every trial in the baseline and failed every trial now.",
            blocking=blocking,
            case_id=case_id,
        )
    for case_id in lost:
        found.add(
            "critical-case",
            f"{label}: critical case {case_id} passed every trial in the baseline and has no graded "
            "trial now (every trial errored or has no pass/fail verdict).",
            blocking=blocking,
            case_id=case_id,
        )
    for case_id in removed:
        found.add(
            "critical-case", removed_critical_message(label, case_id), blocking=blocking, case_id=case_id
        )


def _note_lost_cases(found: _Reasons, label: str, lost_cases: Sequence[tuple[str, bool, int]]) -> None:
    """Name the cases graded in the baseline that have no graded trial now (a note, never blocking)."""
    if not lost_cases:
        return
    n_errored = sum(1 for _, was_errored, _ran in lost_cases if was_errored)
    n_none = sum(1 for _, was_errored, ran in lost_cases if not was_errored and ran == 0)
    shown = ", ".join(cid for cid, _, _ran in lost_cases[:LOST_LISTED])
    more = f" and {len(lost_cases) - LOST_LISTED} more" if len(lost_cases) > LOST_LISTED else ""
    one = len(lost_cases) == 1
    found.add(
        "lost-grade",
        f"{label}: {len(lost_cases):,} {'case' if one else 'cases'} graded in the baseline "
        f"{'has' if one else 'have'} no graded trial now ({n_errored:,} errored, "
        f"{len(lost_cases) - n_errored - n_none:,} without a pass/fail verdict"
        f"{f', {n_none:,} with no trial at all' if n_none else ''}); "
        f"{'it is' if one else 'they are'} left out of the paired comparison and "
        f"the trials the baseline ran of {'it' if one else 'them'} count against the error budget: {shown}{more}.",
        blocking=False,
    )


def _check_graded(
    found: _Reasons, label: str, candidate: RateSummary | None, baseline: RateSummary | None
) -> None:
    """A side with no graded trial at all: nothing shows the suite did not regress."""
    if candidate is not None and candidate.cases > 0 and candidate.cases_scored == 0:
        # Losing every verdict the baseline had fails; with nothing graded on either side (or no
        # baseline) it is a warning.
        blocking = baseline is not None and baseline.cases_scored > 0
        found.add(
            "ungraded",
            f"{label}: none of its {candidate.cases:,} cases has a graded trial (every trial errored or "
            "has no pass/fail verdict), so nothing shows it did not regress"
            + ("; the baseline had graded trials." if blocking else "."),
            blocking=blocking,
        )
    elif baseline is not None and candidate is not None and baseline.cases_scored == 0 and baseline.cases:
        found.add(
            "ungraded",
            f"{label}: the baseline has no graded trial, so the candidate was compared with nothing.",
            blocking=False,
        )


def _check_drop(found: _Reasons, label: str, knobs: Knobs, delta: DeltaStat | None) -> bool:
    """A drop beyond ``max_drop``: a regression when significant, else inconclusive (returns True)."""
    if delta is None or delta.delta is None or not (delta.delta < 0 and delta.delta <= -knobs.max_drop + EPS):
        return False
    p_adj = delta.p_adjusted if delta.p_adjusted is not None else 1.0
    if delta.significant:
        found.add(
            "regression",
            f"{label}: pass rate dropped {points(delta.delta)} over {delta.n_paired:,} paired cases "
            f"({pvalue(p_adj)} adjusted, {delta.test}; tolerated drop {points(knobs.max_drop)}).",
            blocking=True,
        )
        return False
    hint = f" {delta.settle.message}" if delta.settle is not None else ""
    if not delta.can_fail and delta.capacity:
        hint = f" {delta.capacity}"
    found.add(
        "inconclusive",
        f"{label}: pass rate dropped {points(delta.delta)}, beyond the tolerated "
        f"{points(knobs.max_drop)}, but the drop is not significant ({pvalue(p_adj)} adjusted, "
        f"alpha {knobs.alpha:g}).{hint}",
        blocking=knobs.on_inconclusive == "fail",
        fails=False,
    )
    return True


def methods_note(delta: DeltaStat | None, knobs: Knobs) -> str | None:
    """Why the interval and the p-value seem to disagree, when they do: the interval is the paired t
    interval over cases; the stratified test also uses the trials inside each case."""
    if delta is None or delta.interval is None or delta.test in ("none", "paired-t"):
        return None
    excludes_zero = delta.interval.high < 0
    if excludes_zero == delta.significant:
        return None
    return (
        f"The 95% interval {interval_text(delta.interval.low, delta.interval.high, points=True)} (points) is a "
        f"paired t interval over cases; the p-value is from the {delta.test} test, which "
        + ("also counts the trials inside each case" if delta.test.startswith("stratified") else "is exact")
        + ", so the two can disagree near the threshold."
    )


def outcome_of(reasons: Sequence[Reason], knobs: Knobs) -> Outcome:
    """fail when a reason blocks; warn when a reason is worth a warning under the policy; else pass."""
    if any(r.blocking for r in reasons):
        return "fail"
    for r in reasons:
        if r.kind == "inconclusive" and knobs.on_inconclusive == "pass":
            continue
        if r.kind == "missing-baseline" and knobs.on_missing_baseline == "pass":
            continue
        return "warn"
    return "pass"


def worst_verdict(verdicts: Sequence[Verdict]) -> Verdict:
    """The most severe verdict (passed when there is none)."""
    return max(verdicts, key=VERDICT_RANK.__getitem__, default="passed")


def worst_outcome(outcomes: Sequence[Outcome]) -> Outcome:
    """The most severe outcome (pass when there is none)."""
    return max(outcomes, key=OUTCOME_RANK.__getitem__, default="pass")
