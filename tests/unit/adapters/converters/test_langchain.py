"""LangChain/LangGraph messages and loose dicts become OpenAI-format message dicts."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from agent_evals.adapters.converters import to_openai_message, to_openai_messages


def _wire(name: str, arguments: str, call_id: str = "") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


@pytest.mark.parametrize(
    ("message", "converted"),
    [
        (HumanMessage("hi"), {"role": "user", "content": "hi"}),
        (SystemMessage("be brief"), {"role": "system", "content": "be brief"}),
        (
            AIMessage(content="", tool_calls=[{"id": "c1", "name": "get_weather", "args": {"city": "SF"}}]),
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [_wire("get_weather", '{"city": "SF"}', "c1")],
            },
        ),
        (
            ToolMessage(content="sunny", tool_call_id="c1"),
            {"role": "tool", "content": "sunny", "tool_call_id": "c1"},
        ),
        (AIMessage("done"), {"role": "assistant", "content": "done"}),
    ],
)
def test_to_openai_message__langchain_objects__openai_dicts(message: Any, converted: dict[str, Any]) -> None:
    assert to_openai_message(message) == converted


@pytest.mark.parametrize(
    ("message", "converted"),
    [
        ({"role": "user", "content": "hi"}, {"role": "user", "content": "hi"}),
        ({"type": "human", "content": "hi"}, {"role": "user", "content": "hi"}),
        ({"role": "ai", "content": None}, {"role": "assistant", "content": ""}),
        ({"role": "assistant", "content": "x", "tool_calls": None}, {"role": "assistant", "content": "x"}),
        (
            {"role": "assistant", "tool_calls": [{"name": "land", "args": {"soft": True}}]},
            {"role": "assistant", "content": "", "tool_calls": [_wire("land", '{"soft": true}')]},
        ),
        (
            {
                "role": "assistant",
                "tool_calls": [{"id": "c9", "function": {"name": "fly", "arguments": {"lat": 1}}}],
            },
            {"role": "assistant", "content": "", "tool_calls": [_wire("fly", '{"lat": 1}', "c9")]},
        ),
        (
            {"role": "assistant", "tool_calls": [{"function": {"name": "fly", "arguments": '{"lat": 1}'}}]},
            {"role": "assistant", "content": "", "tool_calls": [_wire("fly", '{"lat": 1}')]},
        ),
    ],
)
def test_to_openai_message__dicts__normalised_to_wire_shape(
    message: dict[str, Any], converted: dict[str, Any]
) -> None:
    assert to_openai_message(message) == converted


def test_to_openai_messages__messages_mapping_and_mixed_items__converted_in_order() -> None:
    converted = to_openai_messages({"messages": [HumanMessage("q"), {"role": "assistant", "content": "a"}]})
    assert converted == [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"msgs": []}, "trajectory: a trajectory mapping needs a 'messages' key; got keys ['msgs']"),
        ("hello", "trajectory: expected a list of messages or {'messages': [...]}, got str"),
        ([42], "trajectory[0]: expected an OpenAI message dict or a LangChain message object, got int"),
        ([{"content": "x"}], "trajectory[0]: a message needs a 'role'"),
        ({"messages": [{"role": "robot"}]}, "trajectory['messages'][0]: a message needs a 'role'"),
        ([{"role": "assistant", "tool_calls": "x"}], "trajectory[0]: 'tool_calls' must be a list, got str"),
        (
            [{"role": "assistant", "tool_calls": [{"args": {}}]}],
            "trajectory[0].tool_calls[0]: a tool call needs",
        ),
        (
            [{"role": "assistant", "tool_calls": [{"name": ""}]}],
            "a tool call's name must be a non-empty string",
        ),
    ],
)
def test_to_openai_messages__malformed__value_error_says_where(value: Any, message: str) -> None:
    with pytest.raises(ValueError) as info:
        to_openai_messages(value, where="trajectory")
    assert message in str(info.value)


def test_converters__dicts_only__do_not_import_langchain() -> None:
    code = (
        "import sys; from agent_evals.adapters.converters import to_openai_messages; "
        "to_openai_messages([{'role': 'user', 'content': 'x'}]); "
        "print(any(m.startswith('langchain') for m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "False"), done.stderr
