"""pass@k and pass^k: one definition (``stats.exact``) that every layer uses, undefined when n < k."""

from __future__ import annotations

from types import ModuleType

import pytest

from agent_evals.benchmark import result as benchmark_result
from agent_evals.record import case_stats
from agent_evals.stats.exact import pass_at_k, pass_hat_k


@pytest.mark.parametrize(
    ("n", "c", "k", "at_k", "hat_k"),
    [
        (1, 1, 1, 1.0, 1.0),
        (1, 0, 1, 0.0, 0.0),
        (4, 2, 1, 0.5, 0.5),
        (4, 2, 2, 1 - 1 / 6, 1 / 6),  # 1 - C(2,2)/C(4,2); C(2,2)/C(4,2)
        (5, 4, 3, 1.0, 0.4),  # C(1,3) = 0; C(4,3)/C(5,3) = 4/10
        (5, 0, 5, 0.0, 0.0),
        (5, 5, 5, 1.0, 1.0),
        (2, 1, 3, None, None),  # fewer trials than k: undefined
        (0, 0, 1, None, None),
        (3, 2, 0, None, None),  # k of 0 or less: undefined
        (3, 2, -1, None, None),
    ],
)
def test_pass_at_k__table__unbiased_or_none_when_undefined(
    n: int, c: int, k: int, at_k: float | None, hat_k: float | None
) -> None:
    assert pass_at_k(n, c, k) == (None if at_k is None else pytest.approx(at_k))
    assert pass_hat_k(n, c, k) == (None if hat_k is None else pytest.approx(hat_k))


@pytest.mark.parametrize("module", [benchmark_result, case_stats])
def test_pass_at_k__other_layers__use_the_stats_definition(module: ModuleType) -> None:
    assert module.pass_at_k is pass_at_k
    assert module.pass_hat_k is pass_hat_k
