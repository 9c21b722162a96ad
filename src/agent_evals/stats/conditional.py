"""The case-stratified exact conditional test of a drop: within a case, which arm a passing trial fell in.

Under "no change" a case's trials on both sides are independent draws from the same pass probability,
so given the case's total passes ``t`` over ``n_b + n_c`` valid trials, the candidate's passes follow a
hypergeometric law whatever that probability is. The statistic is the weighted sum of the candidate's
passes over cases, weighted so that it moves exactly with the macro delta; its null law is the
convolution of the cases' hypergeometric laws (exact), or their normal approximation when the suite
is too large to convolve (the Cochran-Mantel-Haenszel statistic). With one trial per case on both
sides it is exact McNemar. A case whose trials all passed or all failed on both sides carries no
information and drops out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from agent_evals.stats.exact import normal_cdf

EXACT_MAX_WORK = 1_000_000
"""Above this many multiply-adds the exact convolution gives way to the normal approximation."""

WEIGHT_SCALE_MAX = 60
"""Largest common multiple of trial counts used for exact weights; beyond it weights are rounded
(any fixed weights give a valid test: rounding costs a little power, never the false-alarm rate)."""

Stratum = tuple[int, int, int]
"""A case's null law: (baseline valid trials, candidate valid trials, total passes)."""


@dataclass(frozen=True)
class ConditionalResult:
    """The test's outcome: one-sided p for a drop, and whether it was exact."""

    p_value: float
    exact: bool
    informative: int
    """Cases whose trials neither all passed nor all failed across both sides."""


@lru_cache(maxsize=4096)
def hypergeom_pmf(n_b: int, n_c: int, t: int) -> tuple[int, tuple[float, ...]]:
    """Law of the candidate's passes given ``t`` passes over ``n_b + n_c`` trials: (lowest value, pmf)."""
    lo, hi = max(0, t - n_b), min(n_c, t)
    total = math.comb(n_b + n_c, t)
    return lo, tuple(math.comb(n_c, j) * math.comb(n_b, t - j) / total for j in range(lo, hi + 1))


def _weights(trial_counts: set[tuple[int, int]]) -> dict[tuple[int, int], int]:
    """Integer weight per (n_b, n_c) proportional to 1/n_b + 1/n_c (the slope of d in x_c)."""
    lcm = 1
    for n_b, n_c in trial_counts:
        lcm = math.lcm(lcm, n_b, n_c)
    scale = lcm if lcm <= WEIGHT_SCALE_MAX else WEIGHT_SCALE_MAX
    raw = {key: max(1, round(scale / key[0] + scale / key[1])) for key in trial_counts}
    common = 0
    for w in raw.values():
        common = math.gcd(common, w)
    return {key: w // common for key, w in raw.items()}


def drop_p(
    pairs: Mapping[tuple[int, int, int, int], int], *, mid_p: bool = False, max_work: int = EXACT_MAX_WORK
) -> ConditionalResult:
    """One-sided p-value for a drop from paired cases counted by (n_b, passes_b, n_c, passes_c);
    exact up to ``max_work`` multiply-adds, then the normal approximation."""
    strata: dict[Stratum, int] = {}
    observed: dict[tuple[int, int], int] = {}
    for (n_b, p_b, n_c, p_c), count in pairs.items():
        t = p_b + p_c
        if 0 < t < n_b + n_c and count > 0:
            strata[(n_b, n_c, t)] = strata.get((n_b, n_c, t), 0) + count
            observed[(n_b, n_c)] = observed.get((n_b, n_c), 0) + p_c * count
    informative = sum(strata.values())
    if not strata:
        return ConditionalResult(p_value=1.0, exact=True, informative=0)
    weights = _weights({(n_b, n_c) for n_b, n_c, _ in strata})
    s_obs = sum(weights[key] * x for key, x in observed.items())
    span = sum(weights[(n_b, n_c)] * min(n_c, t) * m for (n_b, n_c, t), m in strata.items())
    work = span * sum(m * (min(n_b, n_c) + 1) for (n_b, n_c, _), m in strata.items())
    if work <= min(max_work, EXACT_MAX_WORK):
        p = _exact(strata, weights, s_obs, mid_p=mid_p)
        return ConditionalResult(p_value=p, exact=True, informative=informative)
    return ConditionalResult(p_value=_normal(strata, weights, s_obs), exact=False, informative=informative)


def _exact(
    strata: Mapping[Stratum, int], weights: Mapping[tuple[int, int], int], s_obs: int, *, mid_p: bool
) -> float:
    dist = [1.0]  # dist[s] = P(S = s + base)
    base = 0
    for (n_b, n_c, t), count in sorted(strata.items()):
        w = weights[(n_b, n_c)]
        lo, pmf = hypergeom_pmf(n_b, n_c, t)
        for _ in range(count):
            base += w * lo
            out = [0.0] * (len(dist) + w * (len(pmf) - 1))
            for j, q in enumerate(pmf):
                if q == 0.0:
                    continue
                shift = w * j
                for s, v in enumerate(dist):
                    if v:
                        out[s + shift] += v * q
            dist = out
    index = s_obs - base
    if index < 0:
        return 0.0
    below = math.fsum(dist[: min(index, len(dist))])
    at = dist[index] if index < len(dist) else 0.0
    p = below + (0.5 * at if mid_p else at)
    return min(1.0, max(0.0, p))


def _normal(strata: Mapping[Stratum, int], weights: Mapping[tuple[int, int], int], s_obs: int) -> float:
    mean = var = 0.0
    step = 0
    for (n_b, n_c, t), count in strata.items():
        w = weights[(n_b, n_c)]
        step = math.gcd(step, w)
        n = n_b + n_c
        mean += count * w * t * n_c / n
        var += count * w * w * t * (n_c / n) * (n_b / n) * (n - t) / (n - 1)
    if var <= 0.0:
        return 1.0 if s_obs >= mean else 0.0
    return normal_cdf((s_obs + 0.5 * step - mean) / math.sqrt(var))
