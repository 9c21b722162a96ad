"""otel_spans_to_openai and the usage and models of GenAI spans, on spans made by the real OpenTelemetry SDK."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from agent_evals.adapters.converters import otel_spans_to_openai
from agent_evals.core.converters.otel import otel_models, otel_usage
from agent_evals.core.types import wire_tool_calls

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace", reason="the otel extra: pip install -e '.[dev]'")
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

ARGS = {"room": "kitchen", "state": "on"}


def _spans(*specs: tuple[str, int, dict[str, Any]]) -> list[Any]:
    """Finished spans ``(name, start time in ns, attributes)`` from the SDK's tracer, in the order given
    (not start-time order), as an in-memory exporter holds them."""
    provider = sdk_trace.TracerProvider()
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("test")
    for name, start, attributes in specs:
        span = tracer.start_span(name, attributes=attributes, start_time=start)
        span.end(end_time=start + 1_000)
    return list(exporter.get_finished_spans())


def _tool(call_id: str | None, name: str, args: dict[str, Any], result: str | None) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.arguments": json.dumps(args),
    }
    if call_id is not None:
        attributes["gen_ai.tool.call.id"] = call_id
    if result is not None:
        attributes["gen_ai.tool.call.result"] = result
    return attributes


def _chat(
    output: list[dict[str, Any]],
    inputs: list[dict[str, Any]] | None = None,
    tokens: tuple[int, int] = (10, 5),
    model: str = "gpt-4o-mini",
) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": model,
        "gen_ai.output.messages": json.dumps(output),
        "gen_ai.usage.input_tokens": tokens[0],
        "gen_ai.usage.output_tokens": tokens[1],
    }
    if inputs is not None:
        attributes["gen_ai.input.messages"] = json.dumps(inputs)
    return attributes


def _asks(call_id: str, args: dict[str, Any] = ARGS) -> list[dict[str, Any]]:
    part = {"type": "tool_call", "id": call_id, "name": "set_light", "arguments": args}
    return [{"role": "assistant", "parts": [part], "finish_reason": "tool_call"}]


def _says(text: str) -> list[dict[str, Any]]:
    return [{"role": "assistant", "parts": [{"type": "text", "content": text}], "finish_reason": "stop"}]


def _answered(call_id: str, response: Any) -> list[dict[str, Any]]:
    return [{"role": "user", "parts": [{"type": "tool_call_response", "id": call_id, "response": response}]}]


def _call(call_id: str, args: dict[str, Any] = ARGS) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": "set_light", "arguments": json.dumps(args)},
    }


HALL = {"room": "hallway", "state": "off"}


@pytest.mark.parametrize(
    ("specs", "expected"),
    [
        pytest.param(
            # execute_tool spans only, handed over latest first: turns follow the start times
            [
                ("execute_tool set_light", 2_000, _tool("c2", "set_light", HALL, "hallway off")),
                ("execute_tool set_light", 1_000, _tool("c1", "set_light", ARGS, "kitchen on")),
            ],
            [
                {"role": "assistant", "content": "", "tool_calls": [_call("c1")]},
                {"role": "tool", "tool_call_id": "c1", "content": "kitchen on"},
                {"role": "assistant", "content": "", "tool_calls": [_call("c2", HALL)]},
                {"role": "tool", "tool_call_id": "c2", "content": "hallway off"},
            ],
            id="execute-tool-spans",
        ),
        pytest.param(
            # tool_call parts of gen_ai.output.messages, the result in the next call's input messages
            [
                ("chat gpt-4o-mini", 1_000, _chat(_asks("c1"))),
                ("chat gpt-4o-mini", 3_000, _chat(_says("Done."), inputs=_answered("c1", {"ok": True}))),
            ],
            [
                {"role": "assistant", "content": "", "tool_calls": [_call("c1")]},
                {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true}'},
                {"role": "assistant", "content": "Done."},
            ],
            id="output-messages",
        ),
        pytest.param(
            # both shapes tell of call c1: it counts once, where the model asked for it
            [
                ("chat gpt-4o-mini", 1_000, _chat(_asks("c1"))),
                ("execute_tool set_light", 2_000, _tool("c1", "set_light", ARGS, "kitchen on")),
                ("chat gpt-4o-mini", 3_000, _chat(_says("Done."), inputs=_answered("c1", "kitchen on"))),
            ],
            [
                {"role": "assistant", "content": "", "tool_calls": [_call("c1")]},
                {"role": "tool", "tool_call_id": "c1", "content": "kitchen on"},
                {"role": "assistant", "content": "Done."},
            ],
            id="both-shapes-one-call",
        ),
        pytest.param(
            # a tool span without a call id is the model's call of the same name and arguments
            [
                ("chat gpt-4o-mini", 1_000, _chat(_asks("c1"))),
                ("execute_tool set_light", 2_000, _tool(None, "set_light", ARGS, "kitchen on")),
            ],
            [
                {"role": "assistant", "content": "", "tool_calls": [_call("c1")]},
                {"role": "tool", "tool_call_id": "c1", "content": "kitchen on"},
            ],
            id="tool-span-without-id",
        ),
        pytest.param(
            [("HTTP GET", 1_000, {"http.request.method": "GET"}), ("invoke_agent lights", 500, {})],
            [],
            id="no-genai-spans",
        ),
    ],
)
def test_otel_spans_to_openai__span_shapes__one_trajectory(
    specs: list[tuple[str, int, dict[str, Any]]], expected: list[dict[str, Any]]
) -> None:
    assert otel_spans_to_openai(_spans(*specs)) == expected


def test_otel_spans_to_openai__two_calls_of_one_tool__both_kept_in_order() -> None:
    spans = _spans(
        ("chat gpt-4o-mini", 1_000, _chat(_asks("c1"))),
        ("execute_tool set_light", 2_000, _tool("c1", "set_light", ARGS, "kitchen on")),
        ("chat gpt-4o-mini", 3_000, _chat(_asks("c2", HALL))),
        ("execute_tool set_light", 4_000, _tool("c2", "set_light", HALL, "hallway off")),
    )
    calls = wire_tool_calls(otel_spans_to_openai(spans))
    assert [(c["id"], json.loads(c["function"]["arguments"])) for c in calls or []] == [
        ("c1", ARGS),
        ("c2", HALL),
    ]


def test_otel_usage__chat_spans_summed__agent_span_total_not_counted_twice() -> None:
    agent = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.usage.input_tokens": 80,
        "gen_ai.usage.output_tokens": 16,
    }
    spans = _spans(
        ("invoke_agent lights", 500, agent),
        ("chat gpt-4o-mini", 1_000, _chat(_asks("c1"), tokens=(30, 7))),
        ("chat gpt-4o-mini", 3_000, _chat(_says("Done."), tokens=(50, 9))),
    )
    assert otel_usage(spans) == {"input_tokens": 80, "output_tokens": 16, "model": "gpt-4o-mini"}


def test_otel_models__response_model_over_request_model__two_models_no_usage_model() -> None:
    first = {**_chat(_asks("c1")), "gen_ai.response.model": "gpt-4o-mini-2024-07-18"}
    second = _chat(_says("Done."), model="gpt-4o")
    spans = _spans(("chat", 1_000, first), ("chat", 2_000, second))
    assert otel_models(spans) == {"gpt-4o-mini-2024-07-18", "gpt-4o"}
    assert otel_usage(spans) == {"input_tokens": 20, "output_tokens": 10}  # two models: none named


def test_otel_usage__no_model_call__none() -> None:
    assert otel_usage(_spans(("execute_tool set_light", 1, _tool("c1", "set_light", ARGS, "ok")))) is None


def test_otel_spans_to_openai__plain_objects__read_by_shape() -> None:
    span = SimpleNamespace(
        name="execute_tool set_light", start_time=1, attributes=_tool("c1", "set_light", ARGS, None)
    )
    assert otel_spans_to_openai([span]) == [{"role": "assistant", "content": "", "tool_calls": [_call("c1")]}]
