"""The error budget: a significant excess over max_error_rate, or a paired, Holm-adjusted rise over the baseline."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_evals.gate.compare import compare_documents, single_run
from agent_evals.gate.model import Comparison
from agent_evals.gate.paired import error_rise, error_rise_floor, over_error_budget
from agent_evals.gate.policy import resolve_policy
from agent_evals.stats import exact as stats


def compare(base: dict[str, Any] | None, cand: dict[str, Any], **flags: Any) -> Comparison:
    return compare_documents(base, cand, resolve_policy(repo_config=None, suite_blocks={}, overrides=flags))


@pytest.mark.parametrize(
    ("errored", "trials", "budget", "over"),
    [
        (2, 30, 0.05, True),  # 1.5 errors expected at the budget: too few for the bound, 6.7% > 5%
        (1, 30, 0.05, False),
        (1, 3, 0.05, True),  # one trial in three errored
        (6, 100, 0.05, False),  # 6% of 100: P(X >= 6 | 100, 5%) = 0.38
        (10, 100, 0.05, True),  # P(X >= 10) = 0.028
        (9, 100, 0.05, False),  # P(X >= 9) = 0.063
        (1, 10, 0.0, True),  # a budget of 0 tolerates nothing
        (0, 10, 0.0, False),
        (60, 1000, 0.05, False),  # 6% of 1,000: P(X >= 60) = 0.082
        (70, 1000, 0.05, True),
        (5, 5, 1.0, False),
    ],
)
def test_over_error_budget__exact_one_sided_lower_bound(
    errored: int, trials: int, budget: float, over: bool
) -> None:
    assert over_error_budget(errored, trials, budget) is over


def test_over_error_budget__agrees_with_the_binomial_tail_by_hand() -> None:
    # P(X >= 5 | 30, 0.05) = 1 - sum_{i<5} C(30, i) 0.05^i 0.95^(30-i)
    tail = 1 - sum(stats.math.comb(30, i) * 0.05**i * 0.95 ** (30 - i) for i in range(5))
    assert stats.binom_sf(5, 30, 0.05) == pytest.approx(tail, rel=1e-9)
    assert tail < 0.05 < stats.binom_sf(4, 30, 0.05)


def test_error_rise__paired_and_stratified_by_case() -> None:
    sides = Counter({((3, 3, 0), (3, 0, 3)): 4, ((3, 3, 0), (3, 3, 0)): 10})  # 4 cases now error every trial
    rise = error_rise(sides)
    assert rise is not None
    assert rise.delta == pytest.approx(12 / 42)
    assert rise.p_value == pytest.approx((1 / 20) ** 4)


@pytest.mark.parametrize(
    ("base_codes", "cand_codes", "flags", "kinds"),
    [
        # 4 of 20 cases error every trial: 20% errors, significantly over 5%
        ("PPP", "EEE", {}, {"error-budget", "lost-grade"}),
        # a generous budget, but the rise over the baseline (0 -> 20 points) is significant and > max_drop
        ("PPP", "EEE", {"max_error_rate": 0.5}, {"error-budget", "lost-grade"}),
        # the same rise tolerated as a drop of 30 points: the cases that lost their grade still warn
        ("PPP", "EEE", {"max_error_rate": 0.5, "max_drop": 0.3}, {"lost-grade"}),
        # errors on both sides: no rise
        ("EEE", "EEE", {"max_error_rate": 0.5}, set()),
    ],
)
def test_compare__error_budget_reasons(
    record, base_codes: str, cand_codes: str, flags: dict[str, Any], kinds: set[str]
) -> None:
    base = record({"home": {f"g/c{i}": base_codes if i < 4 else "PPP" for i in range(20)}})
    cand = record({"home": {f"g/c{i}": cand_codes if i < 4 else "PPP" for i in range(20)}})
    result = compare(base, cand, **flags)
    assert {r.kind for r in result.reasons} == kinds
    assert result.exit_code == (1 if kinds - {"lost-grade"} else 0)


@pytest.mark.parametrize(
    ("codes", "in_family"),
    [
        # 2 of 3 trials of 3 cases now error: p = (3/15)^3 can reach alpha, so the test joins the family
        ("EEP", True),
        # 1 of 3: p >= (1/2)^3 wherever the errors fell, it can never be significant: left out
        ("EPP", False),
    ],
)
def test_compare__error_rise_joins_the_holm_family_when_it_can_reach_alpha(
    record, codes: str, in_family: bool
) -> None:
    flaky = {"g/flaky": "PPF"}  # a drop test that can move, so the family has it too
    base = record({"home": {f"g/c{i}": "PPP" for i in range(20)} | flaky})
    cand = record({"home": {f"g/c{i}": codes if i < 3 else "PPP" for i in range(20)} | flaky})
    result = compare(base, cand, max_error_rate=0.5, max_drop=0.01)
    rise = result.suites[0].error_rise
    assert rise is not None and rise.p_adjusted is not None
    expected = min(1.0, 2 * rise.p_value) if in_family else rise.p_value  # two tests in the family, or one
    assert rise.p_adjusted == pytest.approx(expected)


@pytest.mark.parametrize(
    ("sides", "floor"),
    [
        (Counter({((1, 1, 0), (1, 0, 1)): 1}), 1 / 2),  # one trial errored: never below 1/2
        (Counter({((1, 0, 1), (1, 1, 0)): 1}), 1 / 2),  # the same totals, the error fixed: the same floor
        (Counter({((3, 3, 0), (3, 0, 3)): 4, ((3, 3, 0), (3, 3, 0)): 10}), (1 / 20) ** 4),
        (Counter({((3, 3, 0), (3, 2, 1)): 3}), (1 / 2) ** 3),
    ],
)
def test_error_rise_floor__the_p_value_of_every_error_in_the_candidate(sides: Counter, floor: float) -> None:
    assert error_rise_floor(sides) == pytest.approx(floor)


# the record fixture is a pure builder function: nothing to reset between examples
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    cases=st.lists(st.text(alphabet="PF", min_size=1, max_size=5), min_size=1, max_size=12),
    knobs=st.fixed_dictionaries(
        {},
        optional={
            "max_error_rate": st.floats(0.0, 1.0),
            "min_pass_rate": st.floats(0.0, 1.0),
            "max_drop": st.floats(0.0, 1.0),
            "alpha": st.floats(0.001, 0.2),
        },
    ),
)
def test_single_run__no_errored_trial__never_over_the_error_budget(
    record: Any, cases: list[str], knobs: dict[str, float]
) -> None:
    """`agent-evals run` leaves the gate unloaded for a run without an errored trial and no --fail-under
    (cli/run.py gate_failures): what a lone run's comparison blocks on must then hold no error budget."""
    doc = record({"home": {f"g/c{i}": codes for i, codes in enumerate(cases)}})
    result = single_run(doc, resolve_policy(repo_config=None, suite_blocks={}, overrides=knobs))
    assert not [r for r in result.reasons if r.kind == "error-budget"]
