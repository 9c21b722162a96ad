"""Rates and paired statistics over a set of cases: pass rate summaries, the paired test, MDE, hints."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from agent_evals.gate import stats
from agent_evals.gate.model import DeltaStat, Interval, RateSummary, SettleHint, TestName

PAIRED_T_MIN_CASES = 30
"""Below this many paired cases (k >= 2) the sign-flip permutation test replaces the paired t-test."""

PAIRED_T_MIN_DIFFERING = 10
"""Below this many differing cases (k >= 2) the sign-flip permutation test replaces the paired t-test."""

EPS = 1e-12


class TallyLike(Protocol):
    """Anything with trial counts: a case side, or one scorer's trials of a case."""

    @property
    def trials(self) -> int: ...
    @property
    def passes(self) -> int: ...
    @property
    def errors(self) -> int: ...


@dataclass(slots=True)
class Tally:
    """Trial counts of one case for one scorer (or any other slice)."""

    trials: int
    passes: int
    errors: int


@dataclass(slots=True)
class Pair:
    """A paired case: pass fractions and valid trial counts on both sides."""

    xb: float
    xc: float
    nb: int
    nc: int


def _fraction(t: TallyLike) -> float | None:
    valid = t.trials - t.errors
    return t.passes / valid if valid > 0 else None


def rate_summary(tallies: Sequence[TallyLike]) -> RateSummary:
    """Macro pass rate over cases (errored trials excluded), with a case-level Wilson interval."""
    fractions = []
    trials = passed = errored = 0
    k = 1
    at_k: list[float] = []
    hat_k: list[float] = []
    for t in tallies:
        trials += t.trials
        passed += t.passes
        errored += t.errors
        k = max(k, t.trials)
        x = _fraction(t)
        if x is not None:
            fractions.append(x)
    if k > 1:
        for t in tallies:
            valid = t.trials - t.errors
            a = stats.pass_at_k(valid, t.passes, k)
            h = stats.pass_hat_k(valid, t.passes, k)
            if a is not None and h is not None:
                at_k.append(a)
                hat_k.append(h)
    rate = math.fsum(fractions) / len(fractions) if fractions else None
    interval = None
    if rate is not None:
        low, high = stats.wilson_interval(rate * len(fractions), len(fractions))
        interval = Interval.model_construct(low=low, high=high, level=0.95, method="wilson")
    return RateSummary.model_construct(
        rate=rate,
        interval=interval,
        cases=len(tallies),
        cases_scored=len(fractions),
        trials=trials,
        passed_trials=passed,
        errored_trials=errored,
        error_rate=errored / trials if trials else None,
        k=k,
        pass_at_k=math.fsum(at_k) / len(at_k) if at_k else None,
        pass_hat_k=math.fsum(hat_k) / len(hat_k) if hat_k else None,
    )


def make_pairs(sides: Sequence[tuple[TallyLike, TallyLike]]) -> list[Pair]:
    """Pairs of cases with at least one valid trial on both sides."""
    pairs = []
    for base, cand in sides:
        vb, vc = base.trials - base.errors, cand.trials - cand.errors
        if vb > 0 and vc > 0:
            pairs.append(Pair(base.passes / vb, cand.passes / vc, vb, vc))
    return pairs


def choose_test(pairs: Sequence[Pair], n_differ: int, *, mid_p: bool) -> TestName:
    """The paired test GATE.md prescribes for these pairs."""
    if n_differ == 0:
        return "none"
    if all(p.nb == 1 and p.nc == 1 for p in pairs):
        return "mcnemar-mid-p" if mid_p else "mcnemar"
    if len(pairs) < PAIRED_T_MIN_CASES or n_differ < PAIRED_T_MIN_DIFFERING:
        return "sign-flip"
    return "paired-t"


def delta_stat(pairs: Sequence[Pair], *, alpha: float, max_drop: float, mid_p: bool = False) -> DeltaStat:
    """Paired comparison: delta, its interval, the one-sided p-value for a drop (raw), MDE and hints."""
    n = len(pairs)
    if n == 0:
        return DeltaStat.model_construct(
            delta=None, interval=None, test="none", p_value=None, p_adjusted=None, n_paired=0, n_differ=0,
            n_down=0, n_up=0, sd=None, mde=None, mde_exceeds_max_drop=False, significant=False, settle=None,
        )  # fmt: skip
    diffs = [p.xc - p.xb for p in pairs]
    n_down = sum(1 for d in diffs if d < -EPS)
    n_up = sum(1 for d in diffs if d > EPS)
    n_differ = n_down + n_up
    delta, sd = stats.mean_sd(diffs)
    test = choose_test(pairs, n_differ, mid_p=mid_p)
    if test == "none":
        p_value = 1.0
    elif test in ("mcnemar", "mcnemar-mid-p"):
        p_value = stats.mcnemar_drop_p(n_down, n_up, mid_p=test == "mcnemar-mid-p")
    elif test == "sign-flip":
        p_value = stats.sign_flip_drop_p(diffs)
    else:
        p_value = stats.paired_t_drop_p(diffs)
    bounds = stats.paired_t_interval(diffs)
    interval = (
        Interval.model_construct(low=bounds[0], high=bounds[1], level=0.95, method="paired-t")
        if bounds
        else None
    )
    spread = effective_sd(sd, max_drop)
    mde = stats.mde(spread, n, alpha)
    return DeltaStat.model_construct(
        delta=delta,
        interval=interval,
        test=test,
        p_value=p_value,
        p_adjusted=p_value,
        n_paired=n,
        n_differ=n_differ,
        n_down=n_down,
        n_up=n_up,
        sd=sd,
        mde=mde,
        mde_exceeds_max_drop=mde is not None and mde > max_drop + EPS,
        significant=False,
        settle=None,
    )


def effective_sd(sd: float, max_drop: float) -> float:
    """The spread used for MDE and sample sizes: the observed one, but never below the spread a drop
    of ``max_drop`` would itself create (max_drop cases in a hundred flipping), so a suite that happened
    to show no change does not claim it could detect any drop."""
    return max(sd, math.sqrt(max_drop * (1.0 - max_drop)))


def settle_hint(pairs: Sequence[Pair], stat: DeltaStat, *, alpha: float, max_drop: float) -> SettleHint:
    """How many more cases (or trials per case) would likely settle an inconclusive drop."""
    n = len(pairs)
    delta = stat.delta if stat.delta is not None else -max_drop
    effect = min(delta, -max_drop)
    spread = effective_sd(stat.sd or 0.0, max_drop)
    need = stats.cases_needed(spread, effect, alpha)
    more = max(0, need - n) if need is not None else None
    k_now = max(max(p.nb, p.nc) for p in pairs) if pairs else 1
    trials = None
    if k_now >= 2 and pairs:
        within = math.fsum(p.xb * (1 - p.xb) / p.nb + p.xc * (1 - p.xc) / p.nc for p in pairs) / n * k_now
        between = max(0.0, (stat.sd or 0.0) ** 2 - within / k_now)
        trials = stats.trials_needed(between, within, n, effect, alpha)
        if trials is not None and trials <= k_now:
            trials = None
    points = abs(effect) * 100
    parts = []
    if more:
        parts.append(f"about {more} more cases ({need} paired in all)")
    if trials:
        parts.append(f"{trials} trials per case with the current {n} cases")
    if parts:
        message = f"To tell a {points:.1f}-point drop from noise at this spread: " + " or ".join(parts) + "."
    else:
        message = (
            "The suite is large enough to detect a drop this size most of the time; "
            "re-running it would show whether this one is noise."
        )
    return SettleHint(cases_needed=need, more_cases=more, trials_needed=trials, message=message)
