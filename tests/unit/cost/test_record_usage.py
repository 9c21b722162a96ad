"""cost.meter.record_usage: a trial's usage in the record's shape, numbers no record holds left out."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.cost.meter import record_usage
from agent_evals.record.rules import MAX_USAGE

GPT = {"gpt-4o": {"input_tokens": 10, "output_tokens": 2, "calls": 1}}


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        pytest.param(None, None, id="none"),
        pytest.param(
            {"input_tokens": 10, "output_tokens": 2.0, "cost_usd": 1},
            {"input_tokens": 10, "output_tokens": 2, "cost_usd": 1.0},
            id="shaped",
        ),
        pytest.param(
            {"input_tokens": 10**400, "output_tokens": 2, "cost_usd": 1e308},
            {"input_tokens": None, "output_tokens": 2, "cost_usd": None},
            id="beyond-the-limit-left-out",
        ),
        pytest.param(
            {"input_tokens": MAX_USAGE, "cost_usd": MAX_USAGE},
            {"input_tokens": int(MAX_USAGE), "output_tokens": None, "cost_usd": MAX_USAGE},
            id="at-the-limit-kept",
        ),
        pytest.param(
            {"input_tokens": float("inf"), "output_tokens": float("nan"), "cost_usd": "a lot"},
            {"input_tokens": None, "output_tokens": None, "cost_usd": None},
            id="no-numbers",
        ),
        pytest.param(
            {"cost_usd": float("nan")},
            {
                "input_tokens": None,
                "output_tokens": None,
                "cost_usd": pytest.approx(float("nan"), nan_ok=True),
            },
            id="nan-cost-kept-as-no-measurement",
        ),
        pytest.param(
            {"input_tokens": 12, "models": GPT},
            {"input_tokens": 12, "output_tokens": None, "cost_usd": None, "models": GPT},
            id="models",
        ),
        pytest.param(
            {"input_tokens": 12, "models": {**GPT, "big": {"input_tokens": 10**20}}},
            {"input_tokens": 12, "output_tokens": None, "cost_usd": None},
            id="a-breakdown-with-one-beyond-is-left-out-whole",
        ),
        pytest.param(
            {"replayed": {"input_tokens": 10**18, "calls": 1}},
            {"input_tokens": None, "output_tokens": None, "cost_usd": None},
            id="replayed-beyond-left-out",
        ),
    ],
)
def test_record_usage__numbers_no_record_holds__left_out_as_not_measured(
    given: dict[str, Any] | None, expected: dict[str, Any] | None
) -> None:
    assert record_usage(given) == expected
