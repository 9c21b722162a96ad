"""The gate's power and minimum detectable effect: how often the test and ``max_drop`` together catch a drop.

The drop model: every case keeps its pass probability in the baseline and loses the same share ``r``
of it in the candidate (``q = p (1 - r)``), so a suite whose mean is ``p_bar`` drops by ``r p_bar``.
A case's probability is estimated from its trials on both sides (and from earlier baselines, when
given). The gate fails when the stratified statistic is significant *and* the delta is at or below
``-max_drop``; both are approximated as jointly normal from exact per-case moments, with the
test's variance term linearised and a continuity correction, which keeps the exact test's
discreteness in view. The simulation (``benchmarks/perf/gate_simulation.py``) checks the result.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from agent_evals.stats.exact import normal_cdf, normal_quantile

TARGET_POWER = 0.8
"""The power the MDE is defined at."""

Type = tuple[int, int, float]
"""Cases alike for power: (baseline valid trials, candidate valid trials, pass probability)."""


def _binom(k: int, p: float) -> list[float]:
    return [math.comb(k, x) * p**x * (1.0 - p) ** (k - x) for x in range(k + 1)]


@dataclass
class _Moments:
    mean_a: float = 0.0
    var_a: float = 0.0
    mean_b: float = 0.0
    cov_ab: float = 0.0
    var_b: float = 0.0
    mean_d: float = 0.0
    var_d: float = 0.0
    cov_ad: float = 0.0
    cov_bd: float = 0.0
    step: float = 0.0


def _moments(types: Mapping[Type, int], r: float) -> _Moments:
    m = _Moments()
    steps = []
    for (kb, kc, p), count in types.items():
        n = kb + kc
        w = 1.0 / kb + 1.0 / kc
        steps.append(w)
        pb, pc = _binom(kb, p), _binom(kc, p * (1.0 - r))
        ea = ea2 = eb = eb2 = ed = ed2 = ead = eab = ebd = 0.0
        for xb, qb in enumerate(pb):
            for xc, qc in enumerate(pc):
                q = qb * qc
                if q == 0.0:
                    continue
                t = xb + xc
                a = w * (xc - t * kc / n)
                b = w * w * t * (kc / n) * (kb / n) * (n - t) / (n - 1)
                d = xc / kc - xb / kb
                ea += q * a
                ea2 += q * a * a
                eb += q * b
                eb2 += q * b * b
                ed += q * d
                ed2 += q * d * d
                ead += q * a * d
                eab += q * a * b
                ebd += q * b * d
        m.mean_a += count * ea
        m.var_a += count * (ea2 - ea * ea)
        m.mean_b += count * eb
        m.var_b += count * (eb2 - eb * eb)
        m.cov_ab += count * (eab - ea * eb)
        m.mean_d += count * ed
        m.var_d += count * (ed2 - ed * ed)
        m.cov_ad += count * (ead - ea * ed)
        m.cov_bd += count * (ebd - eb * ed)
    m.step = min(steps, default=1.0)
    return m


def _bivariate_below(a: float, b: float, rho: float) -> float:
    """P(X < a, Y < b) for standard normals with correlation ``rho`` (Simpson's rule)."""
    if rho > 0.999:
        return normal_cdf(min(a, b))
    lo = -8.0
    if a <= lo:
        return 0.0
    a = min(a, 8.0)
    steps = 120
    h = (a - lo) / steps
    s = math.sqrt(1.0 - rho * rho)
    total = 0.0
    for i in range(steps + 1):
        x = lo + i * h
        f = math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi) * normal_cdf((b - rho * x) / s)
        total += f * (1 if i in (0, steps) else 4 if i % 2 else 2)
    return max(0.0, min(1.0, total * h / 3.0))


def power(
    types: Mapping[Type, int], r: float, *, alpha: float, max_drop: float, test_only: bool = False
) -> float:
    """Chance the gate fails a suite of these cases when each loses a share ``r`` of its pass probability."""
    n = sum(types.values())
    if n == 0:
        return 0.0
    m = _moments(types, r)
    if m.mean_b <= 0.0:
        return 0.0
    z = normal_quantile(1.0 - alpha)
    root = math.sqrt(m.mean_b)
    # reject when A + c + z sqrt(B) < 0; sqrt(B) ~ root + (B - mean_b) / (2 root)
    g = z / (2.0 * root)
    mean_w = m.mean_a + g * m.mean_b
    var_w = m.var_a + 2 * g * m.cov_ab + g * g * m.var_b
    threshold = -0.5 * m.step - z * root + g * m.mean_b
    # W < threshold - ... : W = A + g B, so A + g B < -c - z root + g mean_b
    sd_w = math.sqrt(max(var_w, 0.0))
    u = (threshold - mean_w) / sd_w if sd_w > 0 else (math.inf if threshold > mean_w else -math.inf)
    if test_only:
        return normal_cdf(u)
    mean_d, sd_d = m.mean_d / n, math.sqrt(max(m.var_d, 0.0)) / n
    v = (
        (-max_drop + 1e-12 - mean_d) / sd_d
        if sd_d > 0
        else (math.inf if mean_d <= -max_drop + 1e-12 else -math.inf)
    )
    if math.isinf(u) or math.isinf(v) or sd_w == 0 or sd_d == 0:
        return (
            normal_cdf(u) * normal_cdf(v) if not (math.isinf(u) and math.isinf(v)) else float(u > 0 and v > 0)
        )
    rho = (m.cov_ad + g * m.cov_bd) / n / (sd_w * sd_d)
    return _bivariate_below(u, v, max(-0.999, min(0.999, rho)))


def mean_probability(types: Mapping[Type, int]) -> float:
    """The suite's mean pass probability under the model."""
    n = sum(types.values())
    return sum(p * c for (_, _, p), c in types.items()) / n if n else 0.0


def detectable_drop(
    types: Mapping[Type, int],
    *,
    alpha: float,
    max_drop: float,
    target: float = TARGET_POWER,
    test_only: bool = False,
) -> float | None:
    """The drop (in rate units) the gate catches with probability ``target``; None when even a total
    loss of every passing trial would not reach it."""
    p_bar = mean_probability(types)
    if p_bar <= 0.0 or power(types, 1.0, alpha=alpha, max_drop=max_drop, test_only=test_only) < target:
        return None
    lo, hi = 0.0, 1.0
    for _ in range(30):
        mid = (lo + hi) / 2.0
        if power(types, mid, alpha=alpha, max_drop=max_drop, test_only=test_only) >= target:
            hi = mid
        else:
            lo = mid
        if hi - lo < 1e-4:
            break
    return hi * p_bar


def min_flips(alpha: float, kb: int, kc: int) -> int:
    """Fewest cases going from passing every trial to failing every trial that reach ``p < alpha``
    in the exact test (each has chance ``1 / C(kb + kc, kc)``)."""
    single = 1.0 / math.comb(kb + kc, kc)
    return max(1, math.floor(math.log(alpha) / math.log(single)) + 1)
