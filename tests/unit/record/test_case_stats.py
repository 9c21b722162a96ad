"""Per-case and per-group statistics: unbiased pass@k / pass^k, errors and numeric-only cases."""

from __future__ import annotations

import pytest

from agent_evals.record.case_stats import case_stats, group_stats, pass_at_k, pass_hat_k
from agent_evals.record.model import Case, Trial


@pytest.mark.parametrize(
    ("n", "c", "k", "at_k", "hat_k"),
    [
        (3, 2, 3, 1.0, 0.0),
        (5, 2, 2, 1 - 3 / 10, 1 / 10),
        (4, 4, 2, 1.0, 1.0),
        (4, 0, 2, 0.0, 0.0),
        (10, 3, 1, 0.3, 0.3),
        (2, 1, 3, None, None),
    ],
)
def test_pass_at_k_and_pass_hat_k__match_the_unbiased_estimators(
    n: int, c: int, k: int, at_k: float | None, hat_k: float | None
) -> None:
    assert pass_at_k(n, c, k) == (None if at_k is None else pytest.approx(at_k))
    assert pass_hat_k(n, c, k) == (None if hat_k is None else pytest.approx(hat_k))


def _case(name: str, *trials: str) -> Case:
    made = []
    for t in trials:
        if t == "p":
            made.append(Trial(passed=True))
        elif t == "f":
            made.append(Trial(passed=False))
        elif t == "e":
            made.append(Trial(passed=False, error="boom"))
        else:  # numeric-only
            made.append(Trial(passed=False, graded=False))
    return Case(id=name, group="g", trials=made)


def test_case_stats__errored_trials_are_left_out_of_the_pass_fraction() -> None:
    stats = case_stats(_case("a", "p", "e", "f"))
    assert (stats.valid, stats.passes, stats.errors, stats.pass_fraction, stats.outcome) == (
        2,
        1,
        1,
        0.5,
        "failed",
    )


def test_group_stats__numeric_only_cases_excluded_from_rate_and_pass_at_k_alike() -> None:
    stats = group_stats([_case("a", "p", "p", "f"), _case("b", "n", "n", "n"), _case("c", "e", "e", "e")])
    assert (stats.cases, stats.passed, stats.failed, stats.errored, stats.numeric) == (3, 0, 1, 1, 1)
    assert stats.pass_rate == pytest.approx(2 / 3)
    assert stats.pass_at_k == pytest.approx(1.0)
    assert stats.pass_hat_k == pytest.approx(0.0)
    assert stats.k == 3 and stats.error_trials == 3


def test_group_stats__single_trial__has_no_pass_at_k() -> None:
    stats = group_stats([_case("a", "p"), _case("b", "f")])
    assert (stats.pass_rate, stats.pass_at_k, stats.pass_hat_k) == (0.5, None, None)
