"""extract_tool_calls: the shapes agents emit, non-tool frames skipped, malformed calls located."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from agent_evals.core.messages import extract_tool_calls

FLY = {"name": "fly_to", "args": {"lat": 1, "lon": 2}}


@dataclass
class AIMessageLike:
    """Duck-typed stand-in for a framework message object (LangChain AIMessage has this shape)."""

    content: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


@pytest.mark.parametrize(
    ("label", "messages"),
    [
        ("flat", [{"role": "assistant", "tool_calls": [FLY]}]),
        (
            "wire with JSON string",
            [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "type": "function",
                            "function": {"name": "fly_to", "arguments": json.dumps(FLY["args"])},
                        }
                    ],
                }
            ],
        ),
        (
            "wire with object",
            [
                {
                    "role": "assistant",
                    "tool_calls": [{"function": {"name": "fly_to", "arguments": FLY["args"]}}],
                }
            ],
        ),
        (
            "flat with arguments key",
            [{"role": "assistant", "tool_calls": [{"name": "fly_to", "arguments": '{"lat": 1, "lon": 2}'}]}],
        ),
        ("messages mapping", {"messages": [{"role": "assistant", "tool_calls": [FLY]}]}),
        (
            "framework object",
            [
                AIMessageLike(
                    content="", tool_calls=[{"name": "fly_to", "args": {"lat": 1, "lon": 2}, "id": "c1"}]
                )
            ],
        ),
        (
            "anthropic tool_use block",
            [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "name": "fly_to", "input": FLY["args"]}],
                }
            ],
        ),
        ("bare call", [FLY]),
        (
            "bare wire call",
            [{"type": "function", "function": {"name": "fly_to", "arguments": json.dumps(FLY["args"])}}],
        ),
    ],
)
def test_extract_tool_calls__accepted_shape__normalizes_to_name_and_args(label: str, messages: Any) -> None:
    assert extract_tool_calls(messages) == [FLY], label


def test_extract_tool_calls__non_tool_frames__are_ignored_and_order_kept() -> None:
    messages = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "thinking", "tool_calls": []},
        {"role": "assistant", "content": None, "tool_calls": [FLY, {"name": "land", "args": {}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "done"},
        AIMessageLike(content="plain text"),
    ]
    assert [c["name"] for c in extract_tool_calls(messages)] == ["fly_to", "land"]


@pytest.mark.parametrize("arguments", [None, ""])
def test_extract_tool_calls__empty_arguments__become_empty_dict(arguments: Any) -> None:
    messages = [{"role": "assistant", "tool_calls": [{"function": {"name": "ping", "arguments": arguments}}]}]
    assert extract_tool_calls(messages) == [{"name": "ping", "args": {}}]


@pytest.mark.parametrize(
    ("call", "message_part"),
    [
        ({"args": {}}, "message 1, tool call 0: tool call has no name"),
        (
            {"function": {"name": "f", "arguments": "{oops"}},
            "message 1, tool call 0 (f): arguments are not valid JSON",
        ),
        ({"function": {"name": "f", "arguments": "[1, 2]"}}, "arguments must be a JSON object, got list"),
    ],
)
def test_extract_tool_calls__malformed_call__value_error_names_position(
    call: dict[str, Any], message_part: str
) -> None:
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": [call]}]
    with pytest.raises(ValueError, match=r"accepted shapes|not valid JSON") as info:
        extract_tool_calls(messages)
    assert message_part in str(info.value)


@pytest.mark.parametrize("value", [None, "fly_to", 3, {"role": "assistant"}])
def test_extract_tool_calls__not_a_message_list__type_error(value: Any) -> None:
    with pytest.raises(TypeError, match="expected a list of messages"):
        extract_tool_calls(value)
