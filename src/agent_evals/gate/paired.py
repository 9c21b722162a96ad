"""Rates and paired statistics over a set of cases: pass rate summaries, the paired test, MDE, hints.

Cases enter as trial-count keys ``(trials, passes, errors)``; a large suite has only a handful of
distinct keys (and of distinct pairs of keys), so every statistic is computed over weighted distinct
values instead of once per case.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping

from agent_evals.core.percent import points as percent_points
from agent_evals.gate.model import DeltaStat, ErrorRise, Interval, RateSummary, SettleHint, TestName
from agent_evals.gate.policy import TestChoice
from agent_evals.record.usage_totals import construct
from agent_evals.stats import conditional, power
from agent_evals.stats import exact as stats

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
        k_min=min((key[0] for key in counts), default=None),
        cases_at_k=weight_k,
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
    pairs: Pairs,
    *,
    alpha: float,
    max_drop: float,
    mid_p: bool = False,
    test: TestChoice = "stratified",
    history: int = 0,
) -> DeltaStat:
    """Paired comparison: delta, its interval, the one-sided p-value for a drop (raw), MDE and hints
    (``history``: earlier baselines already pooled into ``pairs``, which the hints take as given)."""
    n = sum(pairs.values())
    if n == 0:
        return construct(
            DeltaStat, delta=None, interval=None, test="none", p_value=None, p_adjusted=None, n_paired=0,
            n_differ=0, n_down=0, n_up=0, sd=None, mde=None, mde_exceeds_max_drop=False, significant=False,
            settle=None, can_fail=False, min_discordant=None, capacity=None, history_runs=0, history_flaky=[],
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
    types = power_types(pairs)
    if test in ("stratified",) or test_name in ("mcnemar", "mcnemar-mid-p"):
        mde = power.detectable_drop(types, alpha=alpha, max_drop=max_drop)
        r_max = max_drop / max(power.mean_probability(types), EPS)
        too_small = (
            r_max >= 1.0 or power.power(types, r_max, alpha=alpha, max_drop=max_drop, test_only=True) < 0.8
        )
    else:
        mde = stats.mde(effective_sd(sd, max_drop), n, alpha)
        too_small = mde is not None and mde > max_drop + EPS
    can_fail, need = reachable(pairs, alpha=alpha, max_drop=max_drop, mid_p=mid_p)
    if not can_fail:
        mde = None
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
        mde_exceeds_max_drop=too_small or mde is None,
        can_fail=can_fail,
        min_discordant=need,
        history_runs=0,
        history_flaky=[],
        capacity=capacity_note(mde, too_small or mde is None, can_fail, need, max_drop, history),
        significant=False,
        settle=None,
    )


def _points(value: float, unit: str = "points") -> str:
    """A size of a rate difference for a sentence (``5.0 points``), as every report rounds it."""
    return percent_points(value, unit=unit)


REMEDY = "add trials per case, give earlier baselines (--history), or mark the cases that matter critical"
"""What makes a small suite able to detect smaller drops."""


def remedy(history: int = 0) -> str:
    """:data:`REMEDY`, or, when ``history`` earlier baselines were already pooled into the test, what is
    left to do: more baselines add trials only to the baseline side, never cases or candidate trials."""
    if not history:
        return REMEDY
    given = "1 earlier baseline is" if history == 1 else f"{history} earlier baselines are"
    return (
        f"add cases or trials per case (--trials), or mark the cases that matter critical "
        f"({given} already pooled into the test)"
    )


def capacity_note(
    mde: float | None, too_small: bool, can_fail: bool, need: int, max_drop: float, history: int = 0
) -> str | None:
    """The sentence that says what this suite can and cannot detect, when it falls short (``history``:
    the earlier baselines pooled into the test, which the advice then takes as given)."""
    fix = remedy(history)
    if not can_fail:
        return (
            f"This suite cannot fail on a drop: it needs at least {need} discordant cases (passing every "
            f"trial in one run, failing every trial in the other) and a drop beyond max_drop "
            f"({_points(max_drop)}); {fix}."
        )
    if mde is None:
        return f"No drop is caught 4 times in 5 at this size; {fix}."
    if too_small:
        return (
            f"The gate catches a drop of {_points(mde)} 4 times in 5; against max_drop "
            f"({_points(max_drop)}) the test has under 80% power. To guard smaller drops, {fix}."
        )
    return None


def power_types(pairs: Pairs) -> Counter[power.Type]:
    """Paired cases as the power model sees them: trials on each side and the pooled pass fraction."""
    types: Counter[power.Type] = Counter()
    for (vb, pb, vc, pc), w in pairs.items():
        types[(vb, vc, (pb + pc) / (vb + vc))] += w
    return types


def reachable(pairs: Pairs, *, alpha: float, max_drop: float, mid_p: bool = False) -> tuple[bool, int]:
    """Whether any candidate outcome could fail the gate: the most extreme one (every case that passed
    a trial in the baseline now fails every trial) must be significant and beyond ``max_drop``. Also
    the fewest all-pass -> all-fail flips that reach alpha at the suite's usual trial counts."""
    n = sum(pairs.values())
    extreme: Pairs = Counter()
    for (vb, pb, vc, _), w in pairs.items():
        extreme[(vb, pb, vc, 0)] += w
    drop = math.fsum(pb / vb * w for (vb, pb, _, _), w in pairs.items()) / n if n else 0.0
    sizes: Counter[tuple[int, int]] = Counter()
    for (vb, _, vc, _), w in pairs.items():
        sizes[(vb, vc)] += w
    common = sizes.most_common(1)
    kb, kc = common[0][0] if common else (1, 1)
    need = power.min_flips(alpha, kb, kc)
    if drop < max_drop - EPS:
        return False, need
    # the extreme outcome is either far beyond alpha or short of it: a coarse p-value tells which
    return conditional.drop_p(extreme, mid_p=mid_p, max_work=100_000).p_value < alpha, need


def effective_sd(sd: float, max_drop: float) -> float:
    """The spread used for MDE and sample sizes: the observed one, but never below the spread a drop
    of ``max_drop`` would itself create (max_drop cases in a hundred flipping), so a suite that happened
    to show no change does not claim it could detect any drop."""
    return max(sd, math.sqrt(max_drop * (1.0 - max_drop)))


def settle_hint(pairs: Pairs, stat: DeltaStat, *, alpha: float, max_drop: float) -> SettleHint:
    """How many more cases (or trials per case) would give the gate 80% power against a drop this
    size, by the same power model as the MDE: a size is named only if the model reaches 80% there."""
    n = sum(pairs.values())
    delta = stat.delta if stat.delta is not None else -max_drop
    effect = abs(min(delta, -max_drop))
    types = power_types(pairs)
    p_bar = power.mean_probability(types)
    r = effect / p_bar if p_bar > EPS else 1.0

    def enough(t: Mapping[power.Type, int]) -> bool:
        return r < 1.0 and power.power(t, r, alpha=alpha, max_drop=max_drop) >= power.TARGET_POWER

    def scaled(cases: int) -> Counter[power.Type]:
        return Counter({key: max(1, round(c * cases / n)) for key, c in types.items()})

    need = None
    if n and r < 1.0:
        lo, hi = n, n
        while hi <= 64 * n and not enough(scaled(hi)):
            lo, hi = hi, hi * 2
        if hi <= 64 * n:
            while hi - lo > max(1, lo // 50):
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if enough(scaled(mid)) else (mid, hi)
            need = hi
    more = max(0, need - n) if need is not None else None
    k_now = max((max(vb, vc) for vb, _, vc, _ in pairs), default=1)

    def with_trials(k: int) -> Counter[power.Type]:
        out: Counter[power.Type] = Counter()
        for (_, _, p), c in types.items():
            out[(k, k, p)] += c
        return out

    trials = None
    if n and r < 1.0 and enough(with_trials(MAX_TRIALS_HINT)):
        lo_k, hi_k = k_now, MAX_TRIALS_HINT
        while hi_k - lo_k > 1:
            mid_k = (lo_k + hi_k) // 2
            lo_k, hi_k = (lo_k, mid_k) if enough(with_trials(mid_k)) else (mid_k, hi_k)
        trials = hi_k if hi_k > k_now else None
    # once earlier baselines are pooled (--history), pointing to --history again helps no one
    more_history = "" if stat.history_runs else ", or give earlier baselines (--history)"
    parts = []
    if more:
        parts.append(f"about {more} more cases ({need} paired in all)")
    if trials:
        parts.append(f"{trials} trials per case with the current {n} cases")
    if parts:
        message = (
            f"To catch a {_points(effect, 'point').replace(' ', '-')} drop 4 times in 5 at this flakiness: "
            + " or ".join(parts)
            + "."
        )
    elif need is not None and more == 0:
        message = (
            "The suite is large enough to catch a drop this size most of the time; "
            "re-running it (or --confirm-trials) would show whether this one is noise."
        )
    elif r < 1.0 and effect < 1.5 * max_drop:
        message = (
            f"A true drop of {_points(effect)}, this close to max_drop ({_points(max_drop)}), "
            "is caught at most about half the time whatever the suite's size, because the observed drop "
            f"must also exceed max_drop; re-run the suite{more_history}."
        )
    else:
        message = (
            f"No suite size up to {64 * n} cases or {MAX_TRIALS_HINT} trials per case would catch a "
            f"{_points(effect, 'point').replace(' ', '-')} drop 4 times in 5 here; mark the cases that matter critical"
            f"{more_history}."
        )
    return SettleHint(cases_needed=need, more_cases=more, trials_needed=trials, message=message)


MAX_TRIALS_HINT = 50
"""Most trials per case a settle hint considers."""

ERROR_BOUND_LEVEL = 0.95
"""Confidence of the one-sided bound the error budget compares with ``max_error_rate``."""


ERROR_BOUND_MIN_EXPECTED = 5.0
"""Below this many errors expected at the budget (trials x max_error_rate) the bound cannot tell a
rate at the budget from one well over it, so the observed rate is compared with the budget directly."""


def over_error_budget(errored: int, trials: int, budget: float) -> bool:
    """Whether the exact one-sided lower 95% bound of the error rate is above ``budget``: the chance
    of ``errored`` or more errors in ``trials`` at a true rate of exactly ``budget`` is under 5%.
    A budget of 0 tolerates no error at all; a suite too small for the bound (fewer than 5 errors
    expected at the budget) fails when its observed rate is over the budget."""
    if errored <= 0 or trials <= 0:
        return False
    if budget <= 0.0:
        return True
    if budget >= 1.0:
        return False
    if trials * budget < ERROR_BOUND_MIN_EXPECTED:
        return errored / trials > budget + EPS
    return stats.binom_sf(errored, trials, budget) < 1.0 - ERROR_BOUND_LEVEL


def charge_lost_grades(sides: Mapping[tuple[Key, Key], int]) -> tuple[Counter[tuple[Key, Key]], int]:
    """Paired sides with every case that lost its grade (valid trials in the baseline, no graded or
    errored trial now: its trials have no pass/fail verdict, or it has none) charged as errored in as
    many trials as the baseline counted; and how many trials were so charged. A case that stopped
    being graded then weighs on the error budget like one that errored, instead of vanishing."""
    charged: Counter[tuple[Key, Key]] = Counter()
    lost = 0
    for (bk, ck), w in sides.items():
        if ck[0] == 0 and bk[0] > bk[2]:
            ck = (bk[0], 0, bk[0])
            lost += bk[0] * w
        charged[(bk, ck)] += w
    return charged, lost


def informative(pairs: Pairs) -> bool:
    """Whether some paired case both passed and failed among its valid trials (the two sides
    together). Without one, every case passed, or failed, every trial on both sides: no drop test can
    call a drop, and leaving it out of the Holm family depends only on the cases' totals, which the
    tests condition on, so it keeps the family's false-alarm rate."""
    return any(0 < pb + pc < nb + nc for nb, pb, nc, pc in pairs)


def error_rise_floor(sides: Mapping[tuple[Key, Key], int]) -> float:
    """The smallest p-value the error-rise test can give these cases wherever their errors fell: each
    case's errors in the candidate as far as its trials go. It depends only on the cases' error
    totals, which the test conditions on: a rise test whose floor is not below alpha can never be
    significant, and leaving it out of the Holm family keeps the family's false-alarm rate (one
    errored trial would otherwise double every drop test's p-value)."""
    extreme: Pairs = Counter()
    for ((nb, _, eb), (nc, _, ec)), w in sides.items():
        if nb > 0 and nc > 0:
            valid = nb - eb + nc - ec  # the case's trials that did not error, both sides
            in_candidate = max(0, valid - nb)  # as few as the baseline's trials leave
            extreme[(nb, valid - in_candidate, nc, in_candidate)] += w
    return conditional.drop_p(extreme).p_value if extreme else 1.0


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
