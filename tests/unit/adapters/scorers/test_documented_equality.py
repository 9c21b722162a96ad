"""The equality rules docs/library.md and docs/adapters.md state: native JSON equality, JSONDiff's string handling."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.adapters.scorers import ToolCallExactMatch, ToolCallSupersetMatch
from agent_evals.core.types import ExpectedResult, TaskResult


def _messages(args: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": "", "tool_calls": [{"name": "f", "args": args}]}]


@pytest.mark.parametrize(
    ("actual", "reference", "equal"),
    [
        pytest.param({"x": True}, {"x": 1}, False, id="true-is-not-1"),
        pytest.param({"x": False}, {"x": 0}, False, id="false-is-not-0"),
        pytest.param({"x": 1}, {"x": 1.0}, True, id="1-equals-1.0"),
        pytest.param({"x": "1"}, {"x": 1}, False, id="text-is-not-a-number"),
        pytest.param({"x": [1, 2]}, {"x": [2, 1]}, False, id="lists-compare-in-order"),
        pytest.param({"x": None}, {}, False, id="a-null-key-is-still-a-key"),
        pytest.param({"x": {"y": True}}, {"x": {"y": 1}}, False, id="nested-true-is-not-1"),
    ],
)
def test_native_tool_call_arguments__compare_as_json_values(
    actual: dict[str, Any], reference: dict[str, Any], equal: bool
) -> None:
    score = ToolCallExactMatch()(
        TaskResult(output="", context={"outputs": _messages(actual)}),
        ExpectedResult(expected="", context={"reference_outputs": _messages(reference)}),
    )
    assert score.passed is equal


def test_native_superset_mode__nested_values_still_compare_whole() -> None:
    score = ToolCallSupersetMatch(tool_args_match_mode="superset")(
        TaskResult(output="", context={"outputs": _messages({"x": {"y": 1, "z": 2}, "w": 3})}),
        ExpectedResult(expected="", context={"reference_outputs": _messages({"x": {"y": 1}})}),
    )
    assert score.passed is False


@pytest.mark.parametrize(
    ("output", "expected", "parsed", "preserved"),
    [
        pytest.param("hello world", "hello there", "same", "same", id="plain-text-unchanged"),
        pytest.param('{"a":1}', '{"a": 1}', 1.0, "below", id="json-spacing"),
        pytest.param('{"a": 1, "b": 2}', '{"b": 2, "a": 1}', 1.0, "below", id="json-key-order"),
        pytest.param('{"a": true}', '{"a": 1}', 1.0, "below", id="json-true-and-1"),
    ],
)
def test_json_diff__preserve_strings__only_stops_parsing_json_text(
    output: str, expected: str, parsed: Any, preserved: str
) -> None:
    pytest.importorskip("autoevals")
    from agent_evals.adapters.scorers.autoevals import JSONDiff

    result, reference = TaskResult(output=output), ExpectedResult(expected=expected)
    default = JSONDiff()(result, reference).value
    kept = JSONDiff(preserve_strings=True)(result, reference).value
    assert (default == kept) if parsed == "same" else (default == parsed)
    assert (kept < 1.0) if preserved in ("same", "below") else (kept == 1.0)
