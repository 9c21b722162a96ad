"""Strands, mink-sdk and LangChain histories become OpenAI message lists that TaskResult reads."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

import agent_evals
from agent_evals.adapters.converters import langchain_to_openai, mink_to_openai, strands_to_openai
from agent_evals.core.messages import extract_tool_calls
from agent_evals.core.types import TaskResult


def test_strands__text_tool_use_and_tool_result__flattened_to_openai_turns() -> None:
    history = [
        {"role": "user", "content": [{"text": "open the garage"}]},
        {
            "role": "assistant",
            "content": [
                {"text": "On it."},
                {"toolUse": {"toolUseId": "t1", "name": "open_door", "input": {"door": "garage"}}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"toolResult": {"toolUseId": "t1", "content": [{"text": "opened"}, {"json": {"ok": True}}]}}
            ],
        },
        {"role": "assistant", "content": [{"text": "The garage"}, {"text": "is open."}, {"image": {}}]},
    ]
    converted = strands_to_openai(history)
    assert [m["role"] for m in converted] == ["user", "assistant", "tool", "assistant"]
    assert converted[0] == {"role": "user", "content": "open the garage"}
    call = converted[1]["tool_calls"][0]
    assert (call["id"], call["type"], call["function"]["name"]) == ("t1", "function", "open_door")
    assert json.loads(call["function"]["arguments"]) == {"door": "garage"}
    assert converted[2] == {"role": "tool", "tool_call_id": "t1", "content": 'opened\n{"ok": true}'}
    assert TaskResult.from_messages(converted).output == "The garage\nis open."
    assert extract_tool_calls(converted) == [{"name": "open_door", "args": {"door": "garage"}}]


def test_strands__user_turn_with_text_and_results__keeps_text_then_tool_messages() -> None:
    converted = strands_to_openai(
        [{"role": "user", "content": [{"text": "also"}, {"toolResult": {"toolUseId": "x", "content": []}}]}]
    )
    assert converted == [
        {"role": "user", "content": "also"},
        {"role": "tool", "tool_call_id": "x", "content": ""},
    ]


@pytest.mark.parametrize(
    ("bad", "error"),
    [("text", TypeError), ({"role": "user"}, TypeError), ([{"content": []}], ValueError), ([3], ValueError)],
)
def test_strands__not_a_message_list__clear_error(bad: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        strands_to_openai(bad)


def test_mink__each_entry_is_a_call_and_its_result_with_a_shared_id() -> None:
    history = [
        {"call": {"name": "goto", "args": {"lat": 1.5}}, "result": {"name": "goto", "output": {"ok": 1}}},
        {"call": {"name": "land", "args": {}}, "result": None},  # still in flight
    ]
    converted = mink_to_openai(history)
    assert [m["role"] for m in converted] == ["assistant", "tool", "assistant"]
    assert [m["tool_calls"][0]["id"] for m in converted if m["role"] == "assistant"] == ["tc_0", "tc_1"]
    assert converted[1] == {"role": "tool", "tool_call_id": "tc_0", "content": "{'ok': 1}"}
    assert extract_tool_calls(converted) == [
        {"name": "goto", "args": {"lat": 1.5}},
        {"name": "land", "args": {}},
    ]
    assert mink_to_openai([]) == []
    with pytest.raises(TypeError, match="expects a list"):
        mink_to_openai({"tool_history": []})


def test_langchain__messages_become_openai_dicts_with_wire_tool_calls() -> None:
    messages = [
        HumanMessage(content="lights on"),
        AIMessage(content="", tool_calls=[{"id": "c1", "name": "set_light", "args": {"on": True}}]),
        ToolMessage(content="done", tool_call_id="c1"),
        AIMessage(content="They are on."),
    ]
    converted = langchain_to_openai(messages)
    assert all(isinstance(m, dict) for m in converted)
    assert [m["role"] for m in converted] == ["user", "assistant", "tool", "assistant"]
    assert converted[1]["tool_calls"][0]["function"]["name"] == "set_light"
    result = TaskResult.from_messages(converted, final_state={"on": True})
    assert result.output == "They are on." and result.context == {
        "outputs": converted,
        "final_state": {"on": True},
    }


def test_converters__top_level_names_resolve_lazily() -> None:
    assert agent_evals.strands_to_openai is strands_to_openai
    assert agent_evals.mink_to_openai is mink_to_openai
    assert agent_evals.langchain_to_openai is langchain_to_openai
    script = (
        "import sys, agent_evals\n"
        "loaded = [m for m in sys.modules if m.startswith(('agent_evals.adapters.converters', 'agent_evals.core.converters', 'langchain', 'strands'))]\n"
        "assert not loaded, loaded\n"
        "agent_evals.mink_to_openai([])\n"
        "assert 'langchain_core' not in sys.modules and 'mink_sdk' not in sys.modules\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
