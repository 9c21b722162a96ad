"""Known values of the gate's pure-Python statistics (references computed once with SciPy, by hand where noted)."""

from __future__ import annotations

import math

import pytest

from agent_evals.stats import exact as stats


@pytest.mark.parametrize(
    ("a", "b", "x", "expected"),
    [
        (2.5, 3.5, 0.3, 0.29675298929566646),
        (0.5, 0.5, 0.9, 0.7951672353008665),
        (10, 20, 0.2, 0.049263517304212585),
        (1, 1, 0.37, 0.37),  # uniform: I_x(1, 1) = x
    ],
)
def test_betainc__known_values(a: float, b: float, x: float, expected: float) -> None:
    assert stats.betainc(a, b, x) == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize(
    ("t", "df", "expected"),
    [
        (-2.1, 7, 0.036935598106461326),
        (1.5, 2, 0.8638034375544994),
        (-0.3, 29, 0.3831585466644839),
        (-3.0, 150, 0.0015811383041614581),
        (0.0, 5, 0.5),
        (1.0, 1, 0.75),  # Cauchy: 1/2 + atan(1)/pi
    ],
)
def test_t_cdf__known_values(t: float, df: float, expected: float) -> None:
    assert stats.t_cdf(t, df) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(
    ("p", "df", "expected"),
    [(0.975, 4, 2.7764451051977934), (0.975, 29, 2.045229642132703), (0.95, 1, 6.313751514675037)],
)
def test_t_quantile__table_values(p: float, df: float, expected: float) -> None:
    assert stats.t_quantile(p, df) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(
    ("p", "expected"),
    [(0.975, 1.959963984540054), (0.95, 1.6448536269514722), (0.8, 0.8416212335729143), (0.5, 0.0),
     (0.999999, 4.753424308817087), (1e-10, -6.361340902404056)],
)  # fmt: skip
def test_normal_quantile__known_values(p: float, expected: float) -> None:
    assert stats.normal_quantile(p) == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    ("k", "n", "p", "expected"),
    [
        (8, 10, 0.5, 56 / 1024),  # (45 + 10 + 1) / 2^10, by hand
        (2, 3, 0.5, 0.125 + 0.375),
        (600, 1100, 0.5, 0.0014097724957182142),
        (30, 40, 0.3, 5.702976426557347e-09),
        (0, 5, 0.5, 1.0),
        (6, 5, 0.5, 0.0),
    ],
)
def test_binom_sf__known_values(k: int, n: int, p: float, expected: float) -> None:
    assert stats.binom_sf(k, n, p) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(
    ("b", "c", "mid_p", "expected"),
    [
        (8, 2, False, 56 / 1024),  # P(Bin(10, 1/2) >= 8)
        (8, 2, True, 0.03271484375),  # P(X > 8) + P(X = 8) / 2
        (0, 0, False, 1.0),  # nothing flipped
        (0, 5, False, 1.0),  # only improvements
        (5, 0, False, 1 / 32),
    ],
)
def test_mcnemar_drop_p__exact_binomial_tail(b: int, c: int, mid_p: bool, expected: float) -> None:
    assert stats.mcnemar_drop_p(b, c, mid_p=mid_p) == pytest.approx(expected, rel=1e-12)


DIFFS = [-1 / 3, 0, -2 / 3, 1 / 3, -1 / 3, 0, 0, -1, 1 / 3, -1 / 3]


def _t_drop_p(diffs: list[float]) -> float:
    return stats.paired_t_drop_p_from(*stats.mean_sd(diffs), len(diffs))


def test_paired_t_drop_p__matches_one_sided_t_test() -> None:
    assert _t_drop_p(DIFFS) == pytest.approx(0.08392532802853753, rel=1e-9)


def test_paired_t_interval__matches_t_interval() -> None:
    low, high = stats.paired_t_interval_from(*stats.mean_sd(DIFFS), len(DIFFS)) or (math.nan, math.nan)
    assert (low, high) == (
        pytest.approx(-0.5016209550397607, rel=1e-9),
        pytest.approx(0.10162095503976065, rel=1e-9),
    )


def test_sign_flip__small_n__exact_enumeration() -> None:
    # 7 non-zero differences: 17 of the 128 sign patterns give a sum <= the observed -4/3.
    assert stats.sign_flip_drop_p(DIFFS) == pytest.approx(17 / 128, rel=1e-12)


def test_sign_flip__all_drops__smallest_possible_p() -> None:
    assert stats.sign_flip_drop_p([-1.0] * 6) == pytest.approx(1 / 64)


def test_sign_flip__large_n__reproducible_random_flips_close_to_t_test() -> None:
    diffs = [(-1.0 if i % 3 == 0 else 0.5 if i % 3 == 1 else -0.5) for i in range(27)]
    first, second = stats.sign_flip_drop_p(diffs), stats.sign_flip_drop_p(diffs)
    assert first == second
    assert first == pytest.approx(_t_drop_p(diffs), abs=0.03)


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        (8, 10, 0.4901624715366418, 0.9433178485456248),
        (0, 20, 0.0, 0.16112515805281935),
        (45, 50, 0.7863976856252034, 0.9565242350681095),
    ],
)
def test_wilson_interval__known_values(successes: int, n: int, low: float, high: float) -> None:
    got = stats.wilson_interval(successes, n)
    assert got == (pytest.approx(low, abs=1e-12), pytest.approx(high, rel=1e-12))


def test_holm__step_down_by_hand() -> None:
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 -> max(0.06, 0.04) = 0.06
    assert stats.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_holm__caps_at_one() -> None:
    assert stats.holm([0.6, 0.7]) == [1.0, 1.0]


def test_benjamini_hochberg__known_values() -> None:
    assert stats.benjamini_hochberg([0.01, 0.04, 0.03, 0.005, 0.2]) == pytest.approx(
        [0.025, 0.05, 0.05, 0.025, 0.2]
    )


def test_mde__about_2_49_sd_over_root_n_at_alpha_005() -> None:
    assert stats.mde(0.5, 100, 0.05) == pytest.approx(2.486475 * 0.5 / 10, rel=1e-6)
    assert stats.mde(0.5, 0) is None


def test_cases_needed__inverts_mde() -> None:
    need = stats.cases_needed(0.5, 0.05)
    assert need is not None
    mde_at_need = stats.mde(0.5, need)
    assert mde_at_need is not None and mde_at_need <= 0.05 < (stats.mde(0.5, need - 1) or 0)


def test_trials_needed__more_trials_shrink_within_case_noise() -> None:
    # no between-case spread: var = within / k; 100 cases need z^2 * 0.5 / (k * 100) <= 0.1^2
    k = stats.trials_needed(0.0, 0.5, 100, -0.1)
    assert k == 4
    assert stats.trials_needed(1.0, 0.5, 10, -0.01) is None


@pytest.mark.parametrize(
    ("n", "c", "k", "at_k", "hat_k"),
    [
        (3, 1, 1, 1 / 3, 1 / 3),
        (3, 1, 2, 2 / 3, 0.0),  # 1 - C(2,2)/C(3,2); C(1,2) = 0
        (5, 3, 2, 0.9, 0.3),  # 1 - C(2,2)/C(5,2) = 1 - 1/10; C(3,2)/C(5,2) = 3/10
        (3, 3, 3, 1.0, 1.0),
        (3, 0, 3, 0.0, 0.0),
    ],
)
def test_pass_at_k_and_pass_hat_k__unbiased_estimators(
    n: int, c: int, k: int, at_k: float, hat_k: float
) -> None:
    assert stats.pass_at_k(n, c, k) == pytest.approx(at_k)
    assert stats.pass_hat_k(n, c, k) == pytest.approx(hat_k)


def test_pass_at_k__fewer_trials_than_k__undefined() -> None:
    assert stats.pass_at_k(2, 1, 3) is None


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: stats.normal_quantile(1.0), "0 < p < 1"),
        (lambda: stats.betainc(0, 1, 0.5), "a > 0"),
        (lambda: stats.t_cdf(1.0, 0), "df > 0"),
        (lambda: stats.wilson_interval(1, 0), "n > 0"),
    ],
)
def test_stats__out_of_domain__value_error_says_why(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


def _brute_force_sign_flip(diffs: list[float]) -> float:
    nonzero = [d for d in diffs if d != 0]
    observed = sum(nonzero)
    hits = 0
    for mask in range(1 << len(nonzero)):
        total = sum(d if mask >> i & 1 else -d for i, d in enumerate(nonzero))
        hits += total <= observed + 1e-9
    return hits / (1 << len(nonzero))


@pytest.mark.parametrize("seed", range(8))
def test_sign_flip__exact_path_equals_brute_force_enumeration(seed: int) -> None:
    import random

    rng = random.Random(seed)
    diffs = [rng.choice([-1, -2 / 3, -1 / 3, 0, 1 / 3, 2 / 3, 1]) for _ in range(rng.randint(1, 12))]
    assert stats.sign_flip_drop_p(diffs) == pytest.approx(_brute_force_sign_flip(diffs), abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_multiplicity__bh_never_above_holm_and_both_at_least_raw(seed: int) -> None:
    import random

    rng = random.Random(seed)
    ps = [rng.random() ** 3 for _ in range(rng.randint(1, 15))]
    for raw, h, q in zip(ps, stats.holm(ps), stats.benjamini_hochberg(ps), strict=True):
        assert raw <= q + 1e-15 and q <= h + 1e-15 and h <= 1.0
