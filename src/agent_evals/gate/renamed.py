"""Renamed cases: the removed cases' baseline results against the added cases' candidate results (unpaired exact test)."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from fractions import Fraction

from agent_evals.gate.align import CaseView
from agent_evals.gate.model_stats import RenameCheck
from agent_evals.gate.stats import normal_cdf

SCALE_MAX = 60
"""Pass fractions are put on a grid of 1/L, L the least common multiple of the trial counts (at most
this; finer fractions are rounded to 1/60, a 0.8-point step)."""

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


def drop_p(before: Sequence[Fraction], after: Sequence[Fraction]) -> tuple[float, float, str]:
    """One-sided p-value that the ``after`` values (the added cases' candidate pass fractions) are lower
    than the ``before`` values (the removed cases' baseline ones), by the exact permutation test of the
    sum of ``after`` over the pooled values: each way of splitting the pooled cases into groups of these
    sizes is equally likely when nothing changed. With one trial per case it is Fisher's exact test.

    Returns (p, floor, method): ``floor`` is the smallest p-value the test can give with these values
    (a test whose floor is not below alpha cannot fail anything), ``method`` ``permutation-exact`` or
    ``permutation-normal`` (above ``EXACT_WORK``, continuity-corrected)."""
    if not before or not after:
        return 1.0, 1.0, "none"
    pooled = _scaled([*before, *after])
    n, m = len(pooled), len(after)
    observed = sum(pooled[len(before) :])
    lowest = sum(sorted(pooled)[:m])
    if len(set(pooled)) == 1:
        return 1.0, 1.0, "permutation-exact"
    small = min(m, n - m)
    counts = Counter(pooled)
    work = sum(min(c, small) for c in counts.values()) * (small + 1) * (small * max(pooled) + 1)
    if work <= EXACT_WORK:
        total_ways = math.comb(n, m)
        if small == m:
            dist = _subset_sums(counts, m)
            at_most = sum(w for total, w in dist.items() if total <= observed)
            floor = sum(w for total, w in dist.items() if total <= lowest)
        else:  # the other group is smaller: the sum of ``after`` is the total minus its sum
            grand = sum(pooled)
            dist = _subset_sums(counts, n - m)
            at_most = sum(w for total, w in dist.items() if grand - total <= observed)
            floor = sum(w for total, w in dist.items() if grand - total <= lowest)
        return min(1.0, at_most / total_ways), min(1.0, floor / total_ways), "permutation-exact"
    mean = sum(pooled) / n
    var = sum((v - mean) ** 2 for v in pooled) / n
    sd = math.sqrt(var * m * (n - m) / (n - 1))
    step = 0
    for v in pooled:
        step = math.gcd(step, v - pooled[0])
    half = step / 2 if step else 0.5

    def tail(x: float) -> float:
        return normal_cdf((x + half - m * mean) / sd)

    return tail(observed), tail(lowest), "permutation-normal"


def fractions_of(cases: Iterable[CaseView]) -> list[Fraction]:
    """Each graded case's pass fraction, exact (cases without a graded trial are left out)."""
    out = []
    for case in cases:
        trials, passes, errors = case.key
        graded = trials - errors
        if graded > 0:
            out.append(Fraction(passes, graded))
    return out


def rename_check(
    suite_ids: Sequence[str], removed: Sequence[CaseView], added: Sequence[CaseView]
) -> RenameCheck | None:
    """The test of a suite's (or the run's) removed cases against its added cases, when it has both;
    None when it has not (only removed: named as removed; only added: reported as new, not gated)."""
    if not removed or not added:
        return None
    before, after = fractions_of(removed), fractions_of(added)
    p, floor, method = drop_p(before, after)
    b_rate = float(sum(before) / len(before)) if before else None
    c_rate = float(sum(after) / len(after)) if after else None
    return RenameCheck(
        suite_ids=list(suite_ids),
        removed=len(removed),
        added=len(added),
        removed_graded=len(before),
        added_graded=len(after),
        baseline_rate=b_rate,
        candidate_rate=c_rate,
        delta=c_rate - b_rate if b_rate is not None and c_rate is not None else None,
        p_value=p,
        p_floor=floor,
        p_adjusted=p,
        test=method,
    )
