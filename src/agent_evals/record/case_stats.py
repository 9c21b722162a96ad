"""Per-case and per-group statistics of run-record cases: pass fractions, pass@k, pass^k.

Errored trials are left out of a case's pass fraction (GATE.md "Units"), and so are numeric-only
trials (no pass/fail score): they neither pass nor fail, in the pass rate and in pass@k alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from agent_evals.stats.exact import pass_at_k, pass_hat_k

if TYPE_CHECKING:
    from agent_evals.record.model import Case

Outcome = Literal["passed", "failed", "errored", "numeric"]
"""How a case ended: every valid trial passed, some failed, every trial errored, or none was graded."""


@dataclass(frozen=True, slots=True)
class CaseStats:
    """The counts of one case."""

    trials: int
    """Trials run."""
    valid: int
    """Trials that count: not errored and graded."""
    passes: int
    """Valid trials that passed."""
    errors: int
    """Errored trials."""

    @property
    def pass_fraction(self) -> float | None:
        """``passes / valid``; None when no trial counts."""
        return self.passes / self.valid if self.valid else None

    @property
    def outcome(self) -> Outcome:
        """passed / failed / errored / numeric."""
        if self.valid == 0:
            return "errored" if self.errors else "numeric"
        return "passed" if self.passes == self.valid else "failed"


PASSED, FAILED, ERRORED = 0, 1, 2
"""A trial's outcome, as an index into ``(passed, failed, errored)`` counts."""


def trial_outcome(error: str | None, passed: bool | None) -> int:
    """A written trial's outcome: errored when it has an error, else passed or failed by its verdict."""
    if error is not None:
        return ERRORED
    return PASSED if passed else FAILED


def key_stats(key: tuple[int, int, int], trials: int) -> CaseStats:
    """A case's counts from the summary walk's key (``record.views.Key``: graded or errored trials,
    passes, errors) and its number of trials: what :func:`case_stats` counts, without a second pass."""
    counted, passes, errors = key
    return CaseStats(trials=trials, valid=counted - errors, passes=passes, errors=errors)


def case_stats(case: Case | Mapping[str, Any]) -> CaseStats:
    """Count a case's trials (a record model's case, or the case as written to the record file)."""
    if isinstance(case, Mapping):
        trials = [(t.get("error"), t.get("graded", True), t.get("passed")) for t in case.get("trials", ())]
    else:
        trials = [(t.error, getattr(t, "graded", True), t.passed) for t in case.trials]
    valid = passes = errors = 0
    for error, graded, passed in trials:
        if error is not None:
            errors += 1
        elif graded:
            valid += 1
            passes += bool(passed)
    return CaseStats(trials=len(trials), valid=valid, passes=passes, errors=errors)


@dataclass(frozen=True, slots=True)
class GroupStats:
    """Totals over a set of cases (a dataset, a capability, a suite or the run)."""

    cases: int
    """Cases."""
    passed: int
    """Cases whose every valid trial passed."""
    failed: int
    """Cases with at least one failing valid trial."""
    errored: int
    """Cases whose every trial errored."""
    numeric: int
    """Cases with numeric scores only (left out of the pass rate)."""
    error_trials: int
    """Errored trials."""
    trials: int
    """Trials run."""
    k: int
    """Largest trial count of a case."""
    pass_rate: float | None
    """Mean per-case pass fraction; None when no case counts."""
    pass_at_k: float | None
    """Mean unbiased pass@k over cases with at least k valid trials (k > 1 only)."""
    pass_hat_k: float | None
    """Mean unbiased pass^k over cases with at least k valid trials (k > 1 only)."""


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def group_stats(cases: Iterable[Case | CaseStats]) -> GroupStats:
    """Aggregate cases (or their precomputed stats): macro pass rate, outcome counts, pass@k / pass^k."""
    stats = [c if isinstance(c, CaseStats) else case_stats(c) for c in cases]
    k = max((s.trials for s in stats), default=0)
    fractions = [f for f in (s.pass_fraction for s in stats) if f is not None]
    at_k: list[float] = []
    hat_k: list[float] = []
    if k > 1:
        for s in stats:
            a, h = pass_at_k(s.valid, s.passes, k), pass_hat_k(s.valid, s.passes, k)
            if a is not None and h is not None:
                at_k.append(a)
                hat_k.append(h)
    outcomes = [s.outcome for s in stats]
    return GroupStats(
        cases=len(stats),
        passed=outcomes.count("passed"),
        failed=outcomes.count("failed"),
        errored=outcomes.count("errored"),
        numeric=outcomes.count("numeric"),
        error_trials=sum(s.errors for s in stats),
        trials=sum(s.trials for s in stats),
        k=k,
        pass_rate=_mean(fractions),
        pass_at_k=_mean(at_k),
        pass_hat_k=_mean(hat_k),
    )
