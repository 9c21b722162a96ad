"""Core value types keep the seed's shapes and validate their ranges."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agent_evals.core.types import EvalConfig, Score, TaskResult


@pytest.mark.parametrize("value", [-0.01, 1.01, float("nan")])
def test_score__value_outside_unit_interval__is_rejected(value: float) -> None:
    with pytest.raises(ValidationError, match=r"Score value must be between 0\.0 and 1\.0"):
        Score(name="s", value=value, passed=False)


def test_eval_config__seed_spelling_of_concurrency__is_accepted() -> None:
    assert EvalConfig(max_concurrent_tests=7).max_concurrency == 7
    assert EvalConfig(max_concurrency=3).max_concurrent_tests == 3


def test_task_result_from_messages__last_assistant_text_is_output() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "", "tool_calls": [{"name": "x", "args": {}}]},
        {"role": "tool", "content": "done"},
        {"role": "assistant", "content": [{"type": "text", "text": "all "}, {"type": "text", "text": "set"}]},
    ]
    result = TaskResult.from_messages(messages, final_state={"a": 1})
    assert result.output == "all set"
    assert result.context == {"final_state": {"a": 1}, "outputs": messages}
