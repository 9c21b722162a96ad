"""Pure-Python statistics for the gate: exact tests, intervals, multiplicity corrections, power."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

EXACT_SIGN_FLIP_MAX = 20
"""Up to this many non-zero differences the sign-flip test enumerates every sign pattern exactly."""

RANDOM_FLIPS = 10_000
"""Random sign patterns drawn above ``EXACT_SIGN_FLIP_MAX``."""

FLIP_SEED = 20240611
"""Fixed seed of the random sign flips, so a comparison is reproducible."""


# -- special functions ---------------------------------------------------------------------------


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta function I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if a <= 0 or b <= 0:
        raise ValueError(f"betainc needs a > 0 and b > 0, got a={a}, b={b}")
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"betainc needs 0 <= x <= 1, got x={x}")
    if x == 0.0 or x == 1.0:
        return x
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b


def normal_cdf(z: float) -> float:
    """Standard normal CDF."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def normal_quantile(p: float) -> float:
    """Standard normal quantile (Wichura's AS 241, about 16 significant digits)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"normal_quantile needs 0 < p < 1, got {p}")
    q = p - 0.5
    if abs(q) <= 0.425:
        r = 0.180625 - q * q
        num = (((((((2509.0809287301226727 * r + 33430.575583588128105) * r + 67265.770927008700853) * r
                   + 45921.953931549871457) * r + 13731.693765509461125) * r + 1971.5909503065514427) * r
                 + 133.14166789178437745) * r + 3.387132872796366608)  # fmt: skip
        den = (((((((5226.495278852545925 * r + 28729.085735721942674) * r + 39307.89580009271061) * r
                   + 21213.794301586595867) * r + 5394.1960214247511077) * r + 687.1870074920579083) * r
                 + 42.313330701600911252) * r + 1.0)  # fmt: skip
        return q * num / den
    r = p if q < 0 else 1.0 - p
    r = math.sqrt(-math.log(r))
    if r <= 5.0:
        r -= 1.6
        num = (((((((7.7454501427834140764e-4 * r + 0.0227238449892691845833) * r + 0.24178072517745061177) * r
                   + 1.27045825245236838258) * r + 3.64784832476320460504) * r + 5.7694972214606914055) * r
                 + 4.6303378461565452959) * r + 1.42343711074968357734)  # fmt: skip
        den = (((((((1.05075007164441684324e-9 * r + 5.475938084995344946e-4) * r + 0.0151986665636164571966) * r
                   + 0.14810397642748007459) * r + 0.68976733498510000455) * r + 1.6763848301838038494) * r
                 + 2.05319162663775882187) * r + 1.0)  # fmt: skip
    else:
        r -= 5.0
        num = (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r + 0.0012426609473880784386) * r
                   + 0.026532189526576123093) * r + 0.29656057182850489123) * r + 1.7848265399172913358) * r
                 + 5.4637849111641143699) * r + 6.6579046435011037772)  # fmt: skip
        den = (((((((2.04426310338993978564e-15 * r + 1.4215117583164458887e-7) * r + 1.8463183175100546818e-5) * r
                   + 7.868691311456132591e-4) * r + 0.0148753612908506148525) * r + 0.13692988092273580531) * r
                 + 0.59983220655588793769) * r + 1.0)  # fmt: skip
    value = num / den
    return -value if q < 0 else value


def t_cdf(t: float, df: float) -> float:
    """CDF of Student's t distribution with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"t_cdf needs df > 0, got {df}")
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


@lru_cache(maxsize=256)
def t_quantile(p: float, df: float) -> float:
    """Quantile of Student's t distribution (bisection on ``t_cdf``)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"t_quantile needs 0 < p < 1, got {p}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2.0


# -- tests ---------------------------------------------------------------------------------------


def binom_sf(k: int, n: int, p: float = 0.5) -> float:
    """P(X >= k) for X ~ Binomial(n, p); exact integer arithmetic for p = 1/2 and n <= 1000."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    if p == 0.5 and n <= 1000:
        return sum(math.comb(n, i) for i in range(k, n + 1)) / (1 << n)
    return betainc(k, n - k + 1, p)


def binom_pmf(k: int, n: int, p: float = 0.5) -> float:
    """P(X = k) for X ~ Binomial(n, p)."""
    if k < 0 or k > n:
        return 0.0
    if p == 0.5 and n <= 1000:
        return math.comb(n, k) / (1 << n)
    log_pmf = (
        math.lgamma(n + 1)
        - math.lgamma(k + 1)
        - math.lgamma(n - k + 1)
        + k * math.log(p)
        + (n - k) * math.log1p(-p)
    )
    return math.exp(log_pmf)


def mcnemar_drop_p(b: int, c: int, *, mid_p: bool = False) -> float:
    """One-sided exact McNemar p-value for a drop: b cases went pass -> fail, c went fail -> pass.

    p = P(Binomial(b + c, 1/2) >= b); the mid-p variant counts half of P(X = b).
    """
    n = b + c
    if n == 0:
        return 1.0
    p = binom_sf(b, n)
    if mid_p:
        p -= 0.5 * binom_pmf(b, n)
    return min(1.0, max(0.0, p))


def mean_sd(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for fewer than two values)."""
    n = len(values)
    if n == 0:
        raise ValueError("mean_sd needs at least one value")
    mean = math.fsum(values) / n
    if n < 2:
        return mean, 0.0
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var)


def paired_t_drop_p_from(mean: float, sd: float, n: int) -> float:
    """One-sided paired t-test p-value from the differences' mean, standard deviation and count."""
    if n < 2:
        return 1.0
    if sd == 0.0:
        return 0.0 if mean < 0 else 1.0
    return t_cdf(mean / (sd / math.sqrt(n)), n - 1)


def _as_fractions(diffs: Sequence[float]) -> list[Fraction]:
    return [Fraction(d).limit_denominator(10_000) for d in diffs if d != 0]


def sign_flip_drop_p(diffs: Sequence[float], *, seed: int = FLIP_SEED, flips: int = RANDOM_FLIPS) -> float:
    """One-sided sign-flip permutation p-value for a drop: P(sum of randomly signed |d| <= observed sum).

    Exact (every sign pattern, by dynamic programming over sums) up to ``EXACT_SIGN_FLIP_MAX`` non-zero
    differences; above, ``flips`` random patterns with a fixed seed and the (hits + 1) / (flips + 1) estimate.
    """
    nonzero = _as_fractions(diffs)
    if not nonzero:
        return 1.0
    observed = sum(nonzero, Fraction(0))
    if len(nonzero) <= EXACT_SIGN_FLIP_MAX:
        counts: dict[Fraction, int] = {Fraction(0): 1}
        for d in nonzero:
            mag = abs(d)
            nxt: dict[Fraction, int] = {}
            for s, cnt in counts.items():
                nxt[s + mag] = nxt.get(s + mag, 0) + cnt
                nxt[s - mag] = nxt.get(s - mag, 0) + cnt
            counts = nxt
        hits = sum(cnt for s, cnt in counts.items() if s <= observed)
        return hits / (1 << len(nonzero))
    mags = [float(abs(d)) for d in nonzero]
    obs = float(observed) + 1e-12
    total = math.fsum(mags)
    rng = random.Random(seed)
    n = len(mags)
    hits = 0
    for _ in range(flips):
        bits = rng.getrandbits(n)
        # sum of +mag for set bits, -mag for clear bits = 2 * (sum of set) - total
        positive = math.fsum(m for i, m in enumerate(mags) if bits >> i & 1)
        if 2.0 * positive - total <= obs:
            hits += 1
    return (hits + 1) / (flips + 1)


# -- intervals -----------------------------------------------------------------------------------


def wilson_interval(successes: float, n: float, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion."""
    if n <= 0:
        raise ValueError("wilson_interval needs n > 0")
    z = normal_quantile(0.5 + level / 2.0)
    phat = successes / n
    denom = 1.0 + z * z / n
    centre = (phat + z * z / (2.0 * n)) / denom
    half = z * math.sqrt(phat * (1.0 - phat) / n + z * z / (4.0 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def paired_t_interval_from(mean: float, sd: float, n: int, level: float = 0.95) -> tuple[float, float] | None:
    """Paired t interval from the differences' mean, standard deviation and count."""
    if n < 2:
        return None
    half = t_quantile(0.5 + level / 2.0, n - 1) * sd / math.sqrt(n)
    return mean - half, mean + half


# -- multiplicity --------------------------------------------------------------------------------


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values, in input order."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (q-values), in input order."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i], reverse=True)
    adjusted = [0.0] * m
    running = 1.0
    for pos, i in enumerate(order):
        rank = m - pos
        running = min(running, p_values[i] * m / rank)
        adjusted[i] = min(1.0, running)
    return adjusted


# -- power and sizes -----------------------------------------------------------------------------


def mde(sd: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float | None:
    """Minimum detectable effect of a one-sided paired test: (z_{1-alpha} + z_power) * sd / sqrt(n)."""
    if n <= 0:
        return None
    return (normal_quantile(1.0 - alpha) + normal_quantile(power)) * sd / math.sqrt(n)


def cases_needed(sd: float, effect: float, alpha: float = 0.05, power: float = 0.8) -> int | None:
    """Paired cases needed to detect ``effect`` at the given spread (None when the effect is 0)."""
    if effect == 0:
        return None
    z = normal_quantile(1.0 - alpha) + normal_quantile(power)
    return max(2, math.ceil((z * sd / abs(effect)) ** 2))


def trials_needed(
    between_var: float, within_var_one_trial: float, n_cases: int, effect: float, alpha: float = 0.05,
    power: float = 0.8, max_trials: int = 50,
) -> int | None:  # fmt: skip
    """Trials per case that make ``n_cases`` enough, given the between-case variance of the differences
    and the within-case variance one trial adds; None when no number up to ``max_trials`` is enough."""
    if effect == 0 or n_cases <= 0:
        return None
    z = normal_quantile(1.0 - alpha) + normal_quantile(power)
    for k in range(1, max_trials + 1):
        var = between_var + within_var_one_trial / k
        if z * math.sqrt(var / n_cases) <= abs(effect):
            return k
    return None


@lru_cache(maxsize=4096)
def pass_at_k(n: int, c: int, k: int) -> float | None:
    """Unbiased pass@k of one case: 1 - C(n - c, k) / C(n, k) (None when n < k)."""
    if k <= 0 or n < k:
        return None
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


@lru_cache(maxsize=4096)
def pass_hat_k(n: int, c: int, k: int) -> float | None:
    """Unbiased pass^k of one case: C(c, k) / C(n, k) (None when n < k)."""
    if k <= 0 or n < k:
        return None
    return math.comb(c, k) / math.comb(n, k)
