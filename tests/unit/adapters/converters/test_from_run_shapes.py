"""TaskResult.from_run and the public converters on each framework's plain shapes (the real clients are
driven in tests/integration/test_from_run_frameworks.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

import pytest

from agent_evals import TaskResult
from agent_evals.adapters.converters import pydantic_ai_to_openai, responses_to_openai
from agent_evals.adapters.scorers import ToolCallExactMatch
from agent_evals.core.types import ExpectedResult

CALL = {"name": "set_light", "args": {"room": "kitchen", "state": "on"}}
ARGS = json.dumps(CALL["args"])


def _wire_call(call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "set_light", "arguments": ARGS}}


RESPONSE = {
    "object": "response",
    "model": "gpt-4o-mini-2024-07-18",
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "c1", "name": "set_light", "arguments": ARGS},
    ],
    "output_text": "",
    "usage": {"input_tokens": 12, "output_tokens": 4, "total_tokens": 16},
}

INPUT_ITEMS = [
    {"role": "user", "content": "Kitchen light on"},
    {"type": "function_call", "call_id": "c1", "name": "set_light", "arguments": ARGS},
    {"type": "function_call_output", "call_id": "c1", "output": "kitchen is on"},
    {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Done.", "annotations": []}],
    },
]

PYDANTIC_AI_JSON = [  # json.loads(result.all_messages_json()) of a one-tool run
    {
        "kind": "request",
        "parts": [
            {"part_kind": "system-prompt", "content": "You control lights."},
            {"part_kind": "user-prompt", "content": "Kitchen light on"},
        ],
    },
    {
        "kind": "response",
        "model_name": "gpt-4o-mini",
        "usage": {"input_tokens": 30, "output_tokens": 7},
        "parts": [
            {"part_kind": "thinking", "content": "The user wants light."},
            {"part_kind": "tool-call", "tool_name": "set_light", "args": CALL["args"], "tool_call_id": "c1"},
        ],
    },
    {
        "kind": "request",
        "parts": [
            {
                "part_kind": "tool-return",
                "tool_name": "set_light",
                "content": "kitchen is on",
                "tool_call_id": "c1",
            }
        ],
    },
    {
        "kind": "response",
        "model_name": "gpt-4o-mini",
        "usage": {"input_tokens": 50, "output_tokens": 9},
        "parts": [{"part_kind": "text", "content": "Done."}],
    },
]

STRANDS_MESSAGES = [
    {"role": "user", "content": [{"text": "Kitchen light on"}]},
    {
        "role": "assistant",
        "content": [{"toolUse": {"toolUseId": "c1", "name": "set_light", "input": CALL["args"]}}],
    },
    {
        "role": "user",
        "content": [{"toolResult": {"toolUseId": "c1", "content": [{"text": "kitchen is on"}]}}],
    },
    {"role": "assistant", "content": [{"text": "Done."}]},
]

CHAT = [
    {"role": "user", "content": "Kitchen light on"},
    {"role": "assistant", "content": "", "tool_calls": [_wire_call("c1")]},
    {"role": "tool", "tool_call_id": "c1", "content": "kitchen is on"},
    {"role": "assistant", "content": "Done."},
]


@dataclass
class StrandsMetrics:
    accumulated_usage: dict[str, int] = field(
        default_factory=lambda: {"inputTokens": 80, "outputTokens": 16, "totalTokens": 96}
    )


@dataclass
class StrandsResult:
    """The fields of strands.agent.AgentResult that from_run reads."""

    stop_reason: str
    message: dict[str, Any]
    metrics: StrandsMetrics


@dataclass
class StrandsModel:
    config: dict[str, Any]


@dataclass
class StrandsAgent:
    """The fields of strands.Agent that from_run reads."""

    messages: list[dict[str, Any]]
    event_loop_metrics: StrandsMetrics
    model: StrandsModel


@pytest.mark.parametrize(
    ("run", "output", "outputs", "usage"),
    [
        (
            RESPONSE,
            "",
            [{"role": "assistant", "content": "", "tool_calls": [_wire_call("c1")]}],
            {"input_tokens": 12, "output_tokens": 4, "model": "gpt-4o-mini-2024-07-18"},
        ),
        (INPUT_ITEMS, "Done.", CHAT, None),
        (
            PYDANTIC_AI_JSON,
            "Done.",
            [{"role": "system", "content": "You control lights."}, *CHAT],
            {"input_tokens": 80, "output_tokens": 16, "model": "gpt-4o-mini"},
        ),
        (STRANDS_MESSAGES, "Done.", CHAT, None),
        (
            StrandsAgent(
                STRANDS_MESSAGES, StrandsMetrics(), StrandsModel({"model_id": "us.amazon.nova-lite-v1:0"})
            ),
            "Done.",
            CHAT,
            {"input_tokens": 80, "output_tokens": 16, "model": "us.amazon.nova-lite-v1:0"},
        ),
        (
            StrandsResult("end_turn", STRANDS_MESSAGES[-1], StrandsMetrics()),
            "Done.",
            [{"role": "assistant", "content": "Done."}],
            {"input_tokens": 80, "output_tokens": 16},
        ),
        ({"messages": CHAT}, "Done.", CHAT, None),
        (CHAT, "Done.", CHAT, None),
    ],
    ids=[
        "responses-response",
        "responses-input-items",
        "pydantic-ai-json-messages",
        "strands-messages",
        "strands-agent",
        "strands-result",
        "langgraph-state",
        "openai-messages",
    ],
)
def test_from_run__each_shape__output_openai_messages_and_usage(
    run: Any, output: str, outputs: list[dict[str, Any]], usage: dict[str, Any] | None
) -> None:
    result = TaskResult.from_run(run)
    assert result.output == output
    assert result.context is not None
    assert result.context["outputs"] == outputs
    assert result.context.get("usage") == usage


def test_from_run__langchain_messages__usage_summed_from_their_metadata() -> None:
    messages = pytest.importorskip("langchain_core.messages", reason="langchain-core is in the dev extra")
    run = {
        "messages": [
            messages.HumanMessage("Kitchen light on"),
            messages.AIMessage(
                "",
                tool_calls=[{"name": "set_light", "args": CALL["args"], "id": "c1"}],
                usage_metadata={"input_tokens": 30, "output_tokens": 7, "total_tokens": 37},
                response_metadata={"model_name": "gpt-4o-mini"},
            ),
            messages.ToolMessage("kitchen is on", tool_call_id="c1"),
            messages.AIMessage(
                "Done.",
                usage_metadata={"input_tokens": 50, "output_tokens": 9, "total_tokens": 59},
                response_metadata={"model_name": "gpt-4o-mini"},
            ),
        ]
    }
    result = TaskResult.from_run(run)
    assert result.output == "Done."
    assert result.context is not None
    assert result.context["outputs"][1]["tool_calls"] == [_wire_call("c1")]
    assert result.context["usage"] == {"input_tokens": 80, "output_tokens": 16, "model": "gpt-4o-mini"}


def test_from_run__caller_context__wins_over_what_the_run_gave() -> None:
    result = TaskResult.from_run(RESPONSE, usage={"input_tokens": 1}, final_state={"lights": {}})
    assert result.context == {
        "outputs": [{"role": "assistant", "content": "", "tool_calls": [_wire_call("c1")]}],
        "usage": {"input_tokens": 1},
        "final_state": {"lights": {}},
    }


@pytest.mark.parametrize("run", ["Done.", 42, None, {"answer": "Done."}, object()])
def test_from_run__anything_else__type_error_naming_what_it_reads(run: Any) -> None:
    with pytest.raises(TypeError) as caught:
        TaskResult.from_run(run)
    message = str(caught.value)
    for accepted in (
        "OpenAI Agents SDK RunResult",
        "PydanticAI AgentRunResult",
        "Responses API",
        "LangGraph",
        "Strands",
    ):
        assert accepted in message
    assert type(run).__name__ in message


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        (  # parallel calls in one response: one assistant message, as chat completions carries them
            [
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "On it."}],
                },
                {"type": "function_call", "call_id": "a", "name": "set_light", "arguments": ARGS},
                {"type": "function_call", "call_id": "b", "name": "set_light", "arguments": ARGS},
            ],
            [{"role": "assistant", "content": "On it.", "tool_calls": [_wire_call("a"), _wire_call("b")]}],
        ),
        (  # a remote MCP tool: the call and its result
            [{"type": "mcp_call", "id": "m1", "name": "set_light", "arguments": ARGS, "output": "ok"}],
            [
                {"role": "assistant", "content": "", "tool_calls": [_wire_call("m1")]},
                {"role": "tool", "tool_call_id": "m1", "content": "ok"},
            ],
        ),
        ([{"type": "web_search_call", "id": "w1", "status": "completed"}], []),
    ],
    ids=["parallel-calls", "mcp-call", "hosted-tool-skipped"],
)
def test_responses_to_openai__items__chat_messages(items: list[Any], expected: list[dict[str, Any]]) -> None:
    assert responses_to_openai(items) == expected


def test_pydantic_ai_to_openai__retry_prompt_of_a_tool__becomes_its_tool_message() -> None:
    messages = [
        {
            "kind": "request",
            "parts": [
                {
                    "part_kind": "retry-prompt",
                    "tool_name": "set_light",
                    "tool_call_id": "c1",
                    "content": [{"loc": ["room"], "msg": "Field required", "type": "missing"}],
                }
            ],
        }
    ]
    (message,) = pydantic_ai_to_openai(messages)
    assert message["role"] == "tool" and message["tool_call_id"] == "c1"
    assert json.loads(message["content"])[0]["msg"] == "Field required"


@pytest.mark.parametrize(
    "converter", [responses_to_openai, pydantic_ai_to_openai], ids=["responses", "pydantic-ai"]
)
def test_converters__not_a_run_or_list__type_error(converter: Any) -> None:
    with pytest.raises(TypeError, match="expects"):
        converter("Done.")


def test_from_run__the_converted_calls__score_with_tool_call_exact_match_unchanged() -> None:
    expected = ExpectedResult(expected="", context={"reference_outputs": [CALL]})
    for run in (INPUT_ITEMS, PYDANTIC_AI_JSON, STRANDS_MESSAGES):
        score = ToolCallExactMatch()(TaskResult.from_run(run), expected)
        assert score.passed, (run, score)


def test_from_run__on_plain_shapes__imports_no_framework() -> None:
    code = (
        "import sys, json; from agent_evals import TaskResult\n"
        f"TaskResult.from_run(json.loads({json.dumps(json.dumps(INPUT_ITEMS))}))\n"
        f"TaskResult.from_run(json.loads({json.dumps(json.dumps(PYDANTIC_AI_JSON))}))\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('agents', 'pydantic_ai', 'strands', 'langchain_core', 'openai', 'opentelemetry'))\n"
        "print(heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"


def test_from_run__openai_sdk_response_object__read_like_its_dict() -> None:
    responses = pytest.importorskip("openai.types.responses", reason="openai is in the dev extra")
    response = responses.Response.model_validate(
        {
            **RESPONSE,
            "id": "resp_1",
            "created_at": 1_700_000_000,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "output": [{**RESPONSE["output"][1], "id": "fc_1", "status": "completed"}],
            "usage": {
                "input_tokens": 12,
                "output_tokens": 4,
                "total_tokens": 16,
                "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        }
    )
    assert TaskResult.from_run(response).context == TaskResult.from_run(RESPONSE).context
    assert responses_to_openai(response.output) == responses_to_openai(RESPONSE)


def test_from_run__a_run_reporting_zero_tokens__no_usage_so_counted_calls_are_kept() -> None:
    empty = StrandsMetrics(accumulated_usage={"inputTokens": 0, "outputTokens": 0, "totalTokens": 0})
    result = TaskResult.from_run(StrandsResult("end_turn", STRANDS_MESSAGES[-1], empty))
    assert result.context is not None and "usage" not in result.context


def test_pydantic_ai_to_openai__structured_tool_return__json_text() -> None:
    messages = [
        {
            "kind": "request",
            "parts": [
                {
                    "part_kind": "tool-return",
                    "tool_name": "get_lights",
                    "tool_call_id": "c1",
                    "content": [{"room": "kitchen", "state": "on"}],
                }
            ],
        }
    ]
    (message,) = pydantic_ai_to_openai(messages)
    assert json.loads(message["content"]) == [{"room": "kitchen", "state": "on"}]
