"""Core value types keep the seed's shapes and validate their ranges."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from agent_evals.core.types import EvalConfig, ExpectedResult, Score, TaskResult


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


# --- task_result_to_example (the seed's helper) ------------------------------------------------

_CALL = {"id": "c1", "type": "function", "function": {"name": "noop", "arguments": "{}"}}


@pytest.mark.parametrize(
    ("context", "trajectory", "tool_calls", "warned"),
    [
        (
            {"outputs": [{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [_CALL]}]},
            2,
            [_CALL],
            False,
        ),
        ({"outputs": [{"role": "assistant", "content": "plain"}]}, 1, [], False),
        ({"final_state": {"a": 1}}, None, None, False),
        ({"outputs": None}, None, None, False),
        ({"outputs": {"messages": []}}, None, None, True),
        ({"outputs": "not a list"}, None, None, True),
    ],
)
def test_task_result_to_example__trajectory_and_wire_tool_calls_from_context_outputs(
    context: dict[str, Any],
    trajectory: int | None,
    tool_calls: list[Any] | None,
    warned: bool,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from agent_evals.core.types import task_result_to_example

    score = Score(name="s", value=1.0, passed=True)
    with caplog.at_level("WARNING", logger="agent_evals.core.types"):
        example = task_result_to_example(
            task_result=TaskResult(output="out", context=context),
            input="q",
            expected=ExpectedResult(expected="ref", context={"k": 1}),
            scores={"s": score},
            metadata={"m": 1},
            duration=0.5,
            error=None,
        )
    assert (example.input, example.output, example.expected, example.expected_context) == (
        "q",
        "out",
        "ref",
        {"k": 1},
    )
    assert (example.scores, example.metadata, example.duration) == ({"s": score}, {"m": 1}, 0.5)
    assert (None if example.trajectory is None else len(example.trajectory)) == trajectory
    assert example.tool_calls == tool_calls
    assert any("context['outputs']" in r.message for r in caplog.records) is warned
