"""Renamed cases: the removed cases' baseline results against the added cases' candidate results (unpaired exact test)."""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from fractions import Fraction

from agent_evals.gate.model_stats import RenameCheck
from agent_evals.gate.picks import Pick
from agent_evals.record.summary import SuiteSummary
from agent_evals.record.views import CaseView
from agent_evals.stats.exact import normal_cdf

SCALE_MAX = 60
"""Pass fractions are put on a grid of 1/L, L the least common multiple of the trial counts (at most
this; finer fractions are rounded to 1/60, a 0.8-point step)."""

PAIRED_MIN = 10
"""Fewest removed and added cases with the same input for the test to pair them: a paired test of a
handful of pairs has too few outcomes (2^pairs) to reach alpha, where the unpaired one may (the
simulation: 5 pairs caught 1.5% of broken renames, unpaired 28%; 12 pairs 92% against 64%). The
choice depends on the inputs only, never on the results, so the test stays exact."""

EXACT_WORK = 2_000_000
"""Above this many steps of the exact enumeration the test uses the normal approximation of the same
permutation distribution (its mean and variance are exact): hundreds of renamed cases."""


def _scaled(values: Sequence[Fraction]) -> list[int]:
    scale = 1
    for v in values:
        scale = scale * v.denominator // math.gcd(scale, v.denominator)
        if scale > SCALE_MAX:
            scale = SCALE_MAX
            break
    return [round(v * scale) for v in values]


def _subset_sums(counts: Counter[int], size: int) -> dict[int, int]:
    """How many ways ``size`` of the pooled values (``counts``: value -> how many) sum to each total."""
    dist: dict[tuple[int, int], int] = {(0, 0): 1}
    for value, count in counts.items():
        ways = [math.comb(count, t) for t in range(min(count, size) + 1)]
        nxt: defaultdict[tuple[int, int], int] = defaultdict(int)
        for (taken, total), w in dist.items():
            for t in range(min(len(ways) - 1, size - taken) + 1):
                nxt[(taken + t, total + t * value)] += w * ways[t]
        dist = dict(nxt)
    return {total: w for (taken, total), w in dist.items() if taken == size}


def _pool_dist(pooled: list[int], m: int) -> dict[int, float] | None:
    """The distribution of the sum of ``m`` of the ``pooled`` values drawn without replacement (every
    split equally likely), exact; None above ``EXACT_WORK``."""
    n = len(pooled)
    if m == 0 or m == n or len(set(pooled)) == 1:
        return {sum(sorted(pooled)[:m]): 1.0}
    small = min(m, n - m)
    counts = Counter(pooled)
    work = sum(min(c, small) for c in counts.values()) * (small + 1) * (small * max(max(pooled), 1) + 1)
    if work > EXACT_WORK:
        return None
    ways = math.comb(n, m)
    if small == m:
        return {total: w / ways for total, w in _subset_sums(counts, m).items()}
    grand = sum(pooled)  # the other group is smaller: the sum of the ``m`` is the total minus its sum
    return {grand - total: w / ways for total, w in _subset_sums(counts, n - m).items()}


def _pairs_dist(pairs: Sequence[tuple[int, int]]) -> dict[int, float]:
    """The distribution of the sum of the second values when each pair's two values are swapped or not
    with probability 1/2 (a case renamed with the same input is the same case: only its side is random)."""
    dist: dict[int, float] = {0: 1.0}
    for b, a in pairs:
        nxt: defaultdict[int, float] = defaultdict(float)
        for total, w in dist.items():
            nxt[total + b] += w / 2
            nxt[total + a] += w / 2
        dist = dict(nxt)
    return dist


def drop_p(
    before: Sequence[Fraction], after: Sequence[Fraction], pairs: Sequence[tuple[Fraction, Fraction]] = ()
) -> tuple[float, float, str]:
    """One-sided p-value that the ``after`` values (the added cases' candidate pass fractions) are lower
    than the ``before`` values (the removed cases' baseline ones), by the exact permutation test of the
    sum of ``after`` over the pooled values: each way of splitting the pooled cases into groups of these
    sizes is equally likely when nothing changed. With one trial per case it is Fisher's exact test.
    ``pairs``: (baseline, candidate) values of a removed and an added case with the same input; each
    pair's two values are exchanged or not, independently of the rest (a paired randomization test).

    Returns (p, floor, method): ``floor`` is the smallest p-value the test can give with these values
    (a test whose floor is not below alpha cannot fail anything), ``method`` ``permutation-exact`` or
    ``permutation-normal`` (above ``EXACT_WORK``, continuity-corrected)."""
    if not (before and after) and not pairs:
        return 1.0, 1.0, "none"
    scaled = _scaled([*before, *after, *(v for pair in pairs for v in pair)])
    pooled = scaled[: len(before) + len(after)]
    paired = list(zip(scaled[len(pooled) :: 2], scaled[len(pooled) + 1 :: 2], strict=True))
    m = len(after)
    observed = sum(pooled[len(before) :]) + sum(a for _, a in paired)
    lowest = sum(sorted(pooled)[:m]) + sum(min(pair) for pair in paired)
    pool = _pool_dist(pooled, m)
    span = sum(max(pair) for pair in paired) + 1  # how many totals the pairs can make, at most
    if pool is not None and (len(paired) + len(pool)) * span <= EXACT_WORK:
        dist: dict[int, float] = defaultdict(float)
        for x, wx in _pairs_dist(paired).items():
            for y, wy in pool.items():
                dist[x + y] += wx * wy
        p = sum(w for total, w in dist.items() if total <= observed)
        floor = sum(w for total, w in dist.items() if total <= lowest)
        return min(1.0, p), min(1.0, floor), "permutation-exact"
    n = len(pooled)
    if 0 < m < n:
        mean = sum(pooled) / n
        var = sum((v - mean) ** 2 for v in pooled) / n * m * (n - m) / (n - 1)
        centre = m * mean
    else:  # every pooled case on one side: its sum is fixed
        var, centre = 0.0, float(sum(pooled[len(before) :]))
    centre += sum((b + a) / 2 for b, a in paired)
    var += sum(((b - a) / 2) ** 2 for b, a in paired)
    if var == 0:
        return 1.0, 1.0, "permutation-normal"
    step = 0
    values = [*pooled, *(v for pair in paired for v in pair)]
    for v in values:
        step = math.gcd(step, v - values[0])
    half = step / 2 if step else 0.5
    sd = math.sqrt(var)

    def tail(x: float) -> float:
        return normal_cdf((x + half - centre) / sd)

    return tail(observed), tail(lowest), "permutation-normal"


def _input_key(case: CaseView) -> str | None:
    """What a case was asked, to pair a removed case with an added one (None when not recorded)."""
    raw = case.raw
    text, data = raw.get("input"), raw.get("input_json")
    if text is None and data is None:
        return None
    return json.dumps([text, data], sort_keys=True, default=str)


def _graded(case: CaseView) -> Fraction | None:
    trials, passes, errors = case.key
    return Fraction(passes, trials - errors) if trials > errors else None


def rename_check(
    suite_ids: Sequence[str], removed: Sequence[CaseView], added: Sequence[CaseView]
) -> RenameCheck | None:
    """The test of a suite's (or the run's) removed cases against its added cases, when it has both;
    None when it has not (only removed: named as removed; only added: reported as new, not gated).
    A removed and an added case with the same recorded input are paired first (in order), when there
    are at least ``PAIRED_MIN`` such pairs."""
    if not removed or not added:
        return None
    waiting: defaultdict[str, list[Fraction]] = defaultdict(list)
    before: list[Fraction] = []
    for case in removed:
        value, key = _graded(case), _input_key(case)
        if value is None:
            continue
        if key is None:
            before.append(value)
        else:
            waiting[key].append(value)
    after: list[Fraction] = []
    pairs: list[tuple[Fraction, Fraction]] = []
    for case in added:
        value, key = _graded(case), _input_key(case)
        if value is None:
            continue
        if key is not None and waiting.get(key):
            pairs.append((waiting[key].pop(0), value))
        else:
            after.append(value)
    before += [v for values in waiting.values() for v in values]
    if len(pairs) < PAIRED_MIN:
        before, after, pairs = before + [b for b, _ in pairs], after + [a for _, a in pairs], []
    p, floor, method = drop_p(before, after, pairs)
    olds, news = [*before, *(b for b, _ in pairs)], [*after, *(a for _, a in pairs)]
    b_rate = float(sum(olds) / len(olds)) if olds else None
    c_rate = float(sum(news) / len(news)) if news else None
    return RenameCheck(
        suite_ids=list(suite_ids),
        removed=len(removed),
        added=len(added),
        removed_graded=len(olds),
        added_graded=len(news),
        paired_by_input=len(pairs),
        baseline_rate=b_rate,
        candidate_rate=c_rate,
        delta=c_rate - b_rate if b_rate is not None and c_rate is not None else None,
        p_value=p,
        p_floor=floor,
        p_adjusted=p,
        test=method,
    )


def moved_or_renamed(base_suites: Mapping[str, SuiteSummary], picks: Sequence[Pick]) -> RenameCheck | None:
    """Every case the run removed against every case it added, when they are in more than one suite
    (a suite renamed, or cases moved from one suite into another); None when they are all in one
    suite, whose own test compares them. Pooled whole: an unrelated case added or removed beside the
    moved ones in either suite must not hand them to that suite's own test, where they meet nothing."""
    ran = {pick.sid for pick in picks}
    sids = [sid for sid in base_suites if sid not in ran]
    removed = [case for sid in sids for case in base_suites[sid].view.cases.values()]
    added: list[CaseView] = []
    for pick in picks:
        cases, base = pick.cand_view.cases, pick.base_view
        if pick.same_ids:
            continue  # none removed or added
        if pick.replaced is not None:
            gone, new = list(pick.replaced.cases.values()), list(cases.values())
        elif base is None:
            gone, new = [], list(cases.values())
        else:
            gone, new = pick.gone, [c for cid, c in cases.items() if cid not in base.cases]
        if gone or new:
            removed += gone
            added += new
            sids.append(pick.sid)
    return rename_check(sids, removed, added) if len(sids) > 1 else None
