"""Rates and paired statistics over a set of cases: pass rate summaries, the paired test, MDE, hints.

Cases enter as trial-count keys ``(trials, passes, errors)``; a large suite has only a handful of
distinct keys (and of distinct pairs of keys), so every statistic is computed over weighted distinct
values instead of once per case.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping

from agent_evals.gate import conditional, stats
from agent_evals.gate.model import DeltaStat, ErrorRise, Interval, RateSummary, SettleHint, TestName
from agent_evals.gate.policy import TestChoice
from agent_evals.gate.usage import construct

PAIRED_T_MIN_CASES = 30
"""Below this many paired cases (k >= 2) the sign-flip permutation test replaces the paired t-test."""

PAIRED_T_MIN_DIFFERING = 10
"""Below this many differing cases (k >= 2) the sign-flip permutation test replaces the paired t-test."""

EPS = 1e-12
"""Tolerance for comparing rates with thresholds."""

Key = tuple[int, int, int]
"""Trial counts of one case side: (trials, passes, errored trials)."""

PairKey = tuple[int, int, int, int]
"""A paired case: (valid trials, passes) in the baseline, then in the candidate."""

Pairs = Counter[PairKey]
"""Paired cases counted by their distinct trial counts."""


def rate_summary(keys: Iterable[Key]) -> RateSummary:
    """Macro pass rate over cases (errored trials excluded), with a case-level Wilson interval."""
    return rate_summary_of_counts(Counter(keys))


def rate_summary_of_counts(counts: Mapping[Key, int]) -> RateSummary:
    """:func:`rate_summary` of cases already counted by key."""
    cases = sum(counts.values())
    trials = passed = errored = scored = 0
    fraction_sum = 0.0
    k = max((key[0] for key in counts), default=1) or 1
    at_k: list[tuple[float, int]] = []
    hat_k: list[tuple[float, int]] = []
    for (n, c, e), w in counts.items():
        trials += n * w
        passed += c * w
        errored += e * w
        valid = n - e
        if valid > 0:
            scored += w
            fraction_sum += c / valid * w
        if k > 1:
            a, h = stats.pass_at_k(valid, c, k), stats.pass_hat_k(valid, c, k)
            if a is not None and h is not None:
                at_k.append((a, w))
                hat_k.append((h, w))
    rate = fraction_sum / scored if scored else None
    interval = None
    if rate is not None:
        low, high = stats.wilson_interval(rate * scored, scored)
        interval = construct(Interval, low=low, high=high, level=0.95, method="wilson")
    weight_k = sum(w for _, w in at_k)
    return construct(
        RateSummary,
        rate=rate,
        interval=interval,
        cases=cases,
        cases_scored=scored,
        trials=trials,
        passed_trials=passed,
        errored_trials=errored,
        error_rate=errored / trials if trials else None,
        k=k,
        pass_at_k=sum(a * w for a, w in at_k) / weight_k if weight_k else None,
        pass_hat_k=sum(h * w for h, w in hat_k) / weight_k if weight_k else None,
    )


def make_pairs(sides: Iterable[tuple[Key, Key]]) -> Pairs:
    """Count paired cases that have at least one valid trial on both sides."""
    # counted first (in C), then each distinct pair of keys is looked at once
    return pairs_of_counts(Counter(sides))


def pairs_of_counts(sides: Mapping[tuple[Key, Key], int]) -> Pairs:
    """:func:`make_pairs` of paired cases already counted by their two keys."""
    pairs: Pairs = Counter()
    for ((nb, pb, eb), (nc, pc, ec)), weight in sides.items():
        if nb > eb and nc > ec:
            pairs[(nb - eb, pb, nc - ec, pc)] += weight
    return pairs


def _diff(key: PairKey) -> float:
    vb, pb, vc, pc = key
    return pc / vc - pb / vb


def choose_test(
    pairs: Pairs, n: int, n_differ: int, *, mid_p: bool, choice: TestChoice = "stratified"
) -> TestName:
    """The paired test GATE.md prescribes for these pairs: exact McNemar at one trial per case; with
    more trials the case-stratified test (``stratified``), or with ``per_case`` a test on the per-case
    pass fractions (paired t on many cases, sign-flip permutation on few)."""
    if n_differ == 0:
        return "none"
    if all(vb == 1 and vc == 1 for vb, _, vc, _ in pairs):
        return "mcnemar-mid-p" if mid_p else "mcnemar"
    if choice == "stratified":
        return "stratified-exact"
    if n < PAIRED_T_MIN_CASES or n_differ < PAIRED_T_MIN_DIFFERING:
        return "sign-flip"
    return "paired-t"


def delta_stat(
    pairs: Pairs, *, alpha: float, max_drop: float, mid_p: bool = False, test: TestChoice = "stratified"
) -> DeltaStat:
    """Paired comparison: delta, its interval, the one-sided p-value for a drop (raw), MDE and hints."""
    n = sum(pairs.values())
    if n == 0:
        return construct(
            DeltaStat, delta=None, interval=None, test="none", p_value=None, p_adjusted=None, n_paired=0,
            n_differ=0, n_down=0, n_up=0, sd=None, mde=None, mde_exceeds_max_drop=False, significant=False,
            settle=None,
        )  # fmt: skip
    weighted = [(_diff(key), w) for key, w in pairs.items()]
    n_down = sum(w for d, w in weighted if d < -EPS)
    n_up = sum(w for d, w in weighted if d > EPS)
    n_differ = n_down + n_up
    delta = math.fsum(d * w for d, w in weighted) / n
    sd = math.sqrt(math.fsum(w * (d - delta) ** 2 for d, w in weighted) / (n - 1)) if n > 1 else 0.0
    test_name = choose_test(pairs, n, n_differ, mid_p=mid_p, choice=test)
    if test_name == "none":
        p_value = 1.0
    elif test_name in ("mcnemar", "mcnemar-mid-p"):
        p_value = stats.mcnemar_drop_p(n_down, n_up, mid_p=test_name == "mcnemar-mid-p")
    elif test_name == "stratified-exact":
        result = conditional.drop_p(pairs, mid_p=mid_p)
        p_value = result.p_value
        test_name = "stratified-exact" if result.exact else "stratified-normal"
    elif test_name == "sign-flip":
        p_value = stats.sign_flip_drop_p([d for d, w in weighted if abs(d) > EPS for _ in range(w)])
    else:
        p_value = stats.paired_t_drop_p_from(delta, sd, n)
    bounds = stats.paired_t_interval_from(delta, sd, n)
    interval = (
        construct(Interval, low=bounds[0], high=bounds[1], level=0.95, method="paired-t") if bounds else None
    )
    mde = stats.mde(effective_sd(sd, max_drop), n, alpha)
    return construct(
        DeltaStat,
        delta=delta,
        interval=interval,
        test=test_name,
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


def settle_hint(pairs: Pairs, stat: DeltaStat, *, alpha: float, max_drop: float) -> SettleHint:
    """How many more cases (or trials per case) would likely settle an inconclusive drop."""
    n = sum(pairs.values())
    delta = stat.delta if stat.delta is not None else -max_drop
    effect = min(delta, -max_drop)
    spread = effective_sd(stat.sd or 0.0, max_drop)
    need = stats.cases_needed(spread, effect, alpha)
    more = max(0, need - n) if need is not None else None
    k_now = max((max(vb, vc) for vb, _, vc, _ in pairs), default=1)
    trials = None
    if k_now >= 2 and n:
        # Binomial noise one trial adds per case (both sides), estimated from the observed fractions.
        within = (
            math.fsum(w * ((pb / vb) * (1 - pb / vb) / vb + (pc / vc) * (1 - pc / vc) / vc) for (vb, pb, vc, pc), w in pairs.items())
            / n
            * k_now
        )  # fmt: skip
        between = max(0.0, (stat.sd or 0.0) ** 2 - within / k_now)
        trials = stats.trials_needed(between, within, n, effect, alpha)
        if trials is not None and trials <= k_now:
            trials = None
    parts = []
    if more:
        parts.append(f"about {more} more cases ({need} paired in all)")
    if trials:
        parts.append(f"{trials} trials per case with the current {n} cases")
    if parts:
        message = (
            f"To tell a {abs(effect) * 100:.1f}-point drop from noise at this spread: "
            + " or ".join(parts)
            + "."
        )
    else:
        message = (
            "The suite is large enough to detect a drop this size most of the time; "
            "re-running it would show whether this one is noise."
        )
    return SettleHint(cases_needed=need, more_cases=more, trials_needed=trials, message=message)


ERROR_BOUND_LEVEL = 0.95
"""Confidence of the one-sided bound the error budget compares with ``max_error_rate``."""


def over_error_budget(errored: int, trials: int, budget: float) -> bool:
    """Whether the exact one-sided lower 95% bound of the error rate is above ``budget``: the chance
    of ``errored`` or more errors in ``trials`` at a true rate of exactly ``budget`` is under 5%.
    A budget of 0 tolerates no error at all."""
    if errored <= 0 or trials <= 0:
        return False
    if budget <= 0.0:
        return True
    if budget >= 1.0:
        return False
    return stats.binom_sf(errored, trials, budget) < 1.0 - ERROR_BOUND_LEVEL


def error_rise(sides: Mapping[tuple[Key, Key], int]) -> ErrorRise | None:
    """Paired error-rate change over cases with trials on both sides, and its one-sided p for a rise
    (the stratified test on the non-errored trials: a rise in errors is a drop in those); None when
    no case's error count can move (no errors, or errors in every trial on both sides)."""
    pairs: Pairs = Counter()
    trials_b = trials_c = errors_b = errors_c = 0
    for ((nb, _, eb), (nc, _, ec)), w in sides.items():
        if nb > 0 and nc > 0:
            pairs[(nb, nb - eb, nc, nc - ec)] += w
            trials_b += nb * w
            trials_c += nc * w
            errors_b += eb * w
            errors_c += ec * w
    if not pairs:
        return None
    result = conditional.drop_p(pairs)
    if result.informative == 0:
        # No case errored in some trials but not all: nothing to test. Leaving it out of the Holm
        # family depends only on the cases' error totals, which the test conditions on, so it keeps
        # the family's false-alarm rate.
        return None
    delta = errors_c / trials_c - errors_b / trials_b
    return ErrorRise(delta=delta, p_value=result.p_value, p_adjusted=result.p_value)
