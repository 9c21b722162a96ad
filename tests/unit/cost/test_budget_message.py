"""What ``--budget-usd`` says it came to: the money spent (every attempt, replayed answers not), never "recorded"."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.cost.budget import Budget

PAID = {"input_tokens": 1000, "output_tokens": 0, "cost_usd": 0.0025}
REPLAYED = {**PAID, "replayed": dict(PAID)}
HALF_REPLAYED = {"input_tokens": 2000, "output_tokens": 0, "cost_usd": 0.005, "replayed": dict(PAID)}
UNPRICED = {"input_tokens": 1000, "output_tokens": 5}

# attempts charged (a retried trial's earlier attempts are charged like any other), trials refused,
# then what the sentence says
CASES: dict[str, tuple[list[dict[str, Any]], int, str]] = {
    "paid attempts, retries among them": (
        [PAID, PAID, PAID],
        2,
        "Budget exhausted: $0.0075 spent of the $0.005 budget (every attempt charged, retries "
        "included; replayed cache answers not); 2 trial(s) not started",
    ),
    "replayed answers charge nothing, live ones beside them do": (
        [REPLAYED, HALF_REPLAYED, PAID, PAID],
        1,
        "Budget exhausted: $0.0075 spent of the $0.005 budget (every attempt charged, retries "
        "included; replayed cache answers not); 1 trial(s) not started",
    ),
    "models without a price are named as not counted": (
        [PAID, PAID, UNPRICED],
        3,
        "Budget exhausted: $0.0050 spent of the $0.005 budget (every attempt charged, retries "
        "included; replayed cache answers not); 3 trial(s) not started; 1 trial(s) used models "
        "without a price and were not counted",
    ),
}


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_describe__says_what_was_spent_and_what_did_not_start(
    case: tuple[list[dict[str, Any]], int, str],
) -> None:
    attempts, refused, expected = case
    budget = Budget(0.005)
    for usage in attempts:
        budget.charge(usage)
    for _ in range(refused):
        assert budget.allows() is False
    assert budget.exhausted
    assert budget.describe() == expected
    assert "recorded" not in budget.describe()
