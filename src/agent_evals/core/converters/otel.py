"""OpenTelemetry GenAI spans -> OpenAI chat messages, usage and models (no OpenTelemetry import: read by shape)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_evals.core.converters.shapes import json_text, usage_block

MODEL_CALLS = frozenset({"chat", "text_completion", "generate_content"})
"""``gen_ai.operation.name`` values of a model call: their spans carry the tokens (an agent's own
``invoke_agent`` span may repeat the run's total, so only these are summed)."""


@dataclass
class _Call:
    """One tool call, as a chat span's output message or an ``execute_tool`` span told it."""

    id: str
    name: str
    arguments: str
    result: str | None = None


@dataclass
class _Turn:
    """What one span adds to the trajectory: an assistant turn (text and calls), in start-time order."""

    start: int
    text: str = ""
    calls: list[_Call] = field(default_factory=list)


Read = list[tuple[int, str, Mapping[str, Any]]]
"""Spans as ``(start time, operation, attributes)``, in start-time order: each span is read once."""


def _read(spans: Iterable[Any]) -> Read:
    out: Read = []
    for span in spans:
        found: Any = getattr(span, "attributes", None)
        # a Mapping (the SDK's is a mappingproxy: duck-typed, the ABC check costs more than the read)
        attributes: Mapping[str, Any] = found if hasattr(found, "get") else {}
        start = getattr(span, "start_time", None)
        out.append((start if isinstance(start, int) else 0, _operation(span, attributes), attributes))
    out.sort(key=lambda read: read[0])
    return out


def _operation(span: Any, attributes: Mapping[str, Any]) -> str:
    """``gen_ai.operation.name``, else the first word of the span's name (``execute_tool get_weather``)."""
    operation = attributes.get("gen_ai.operation.name")
    if isinstance(operation, str) and operation:
        return operation
    name = getattr(span, "name", None)
    return name.split(" ", 1)[0] if isinstance(name, str) and name else ""


def _json(value: Any) -> Any:
    """A JSON-text attribute parsed (None when it is not JSON text)."""
    if not isinstance(value, str):
        return None
    try:
        return json.loads(value)
    except ValueError:
        return None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else json_text(value)


def _messages(value: Any) -> list[Mapping[str, Any]]:
    parsed = _json(value) if isinstance(value, str) else value
    if not isinstance(parsed, (list, tuple)):
        return []
    return [m for m in parsed if isinstance(m, Mapping)]


def _parts(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    parts = message.get("parts")
    return [p for p in parts if isinstance(p, Mapping)] if isinstance(parts, (list, tuple)) else []


def _responses(inputs: list[Any], wanted: set[str]) -> dict[str, str]:
    """The ``tool_call_response`` parts of model calls' ``gen_ai.input.messages`` for the call ids in
    ``wanted``, read latest first (a model call's input repeats the history) until all are found."""
    found: dict[str, str] = {}
    for value in reversed(inputs):
        for message in _messages(value):
            for part in _parts(message):
                call_id = part.get("id")
                if part.get("type") == "tool_call_response" and str(call_id) in wanted:
                    found.setdefault(str(call_id), _text(part.get("response")) or "")
        if len(found) == len(wanted):
            break
    return found


def _chat_turn(attributes: Mapping[str, Any], start: int) -> _Turn | None:
    """The assistant turn of a model call's ``gen_ai.output.messages``: its text and ``tool_call`` parts."""
    turn = _Turn(start)
    seen = False
    for message in _messages(attributes.get("gen_ai.output.messages")):
        if message.get("role", "assistant") != "assistant":
            continue
        seen = True
        for part in _parts(message):
            kind = part.get("type")
            if kind == "text" and isinstance(part.get("content"), str):
                turn.text += part["content"]
            elif kind == "tool_call":
                call_id = part.get("id")
                turn.calls.append(
                    _Call(
                        id="" if call_id is None else str(call_id),
                        name=str(part.get("name") or ""),
                        arguments=json_text(part.get("arguments")),
                    )
                )
    return turn if seen else None


def _tool_call(attributes: Mapping[str, Any]) -> _Call:
    call_id = attributes.get("gen_ai.tool.call.id")
    return _Call(
        id="" if call_id is None else str(call_id),
        name=str(attributes.get("gen_ai.tool.name") or ""),
        arguments=json_text(attributes.get("gen_ai.tool.call.arguments")),
        result=_text(attributes.get("gen_ai.tool.call.result")),
    )


def _same(call: _Call, other: _Call) -> bool:
    """Whether two descriptions are one call: the same call id, or (one has no id) the same name and arguments."""
    if call.id and other.id:
        return call.id == other.id
    return call.name == other.name and _json(call.arguments) == _json(other.arguments)


def _turns(spans: Read) -> list[_Turn]:
    """The assistant turns of the spans in start-time order; a call both shapes describe is kept once,
    where the model asked for it, with the result the tool span recorded."""
    inputs: list[Any] = []
    turns: list[_Turn] = []
    tools: list[tuple[int, _Call]] = []
    for start, operation, attributes in spans:
        if operation == "execute_tool":
            tools.append((start, _tool_call(attributes)))
        elif operation in MODEL_CALLS or "gen_ai.output.messages" in attributes:
            inputs.append(attributes.get("gen_ai.input.messages"))
            turn = _chat_turn(attributes, start)
            if turn is not None:
                turns.append(turn)
    asked = [call for turn in turns for call in turn.calls]
    by_id = {call.id: call for call in reversed(asked) if call.id}  # the first call of an id
    taken: set[int] = set()
    for start, call in tools:
        match = by_id.get(call.id) if call.id else None
        if match is None or id(match) in taken:
            match = next((c for c in asked if id(c) not in taken and _same(c, call)), None)
        if match is None:  # only the tool span tells of this call: a turn of its own
            turns.append(_Turn(start, calls=[call]))
            continue
        taken.add(id(match))
        if match.result is None:
            match.result = call.result
    wanted = {call.id for call in asked if call.result is None and call.id}
    if wanted:  # no tool span told these results: the later model calls' inputs may
        results = _responses(inputs, wanted)
        for call in asked:
            if call.result is None and call.id in results:
                call.result = results[call.id]
    turns.sort(key=lambda turn: turn.start)
    return turns


def otel_spans_to_openai(spans: Iterable[Any]) -> list[dict[str, Any]]:
    """Finished OpenTelemetry GenAI spans (of one run) as OpenAI chat messages.

    ``spans`` are finished span objects (an SDK ``ReadableSpan``, e.g. what an
    ``InMemorySpanExporter`` holds) or anything with ``name``, ``attributes`` and ``start_time``. Both
    shapes of the GenAI semantic conventions are read: ``execute_tool`` spans (``gen_ai.tool.name``,
    ``gen_ai.tool.call.id``, ``gen_ai.tool.call.arguments``, ``gen_ai.tool.call.result``) and the
    ``tool_call`` parts of a model call's ``gen_ai.output.messages`` (with the ``tool_call_response``
    parts of later ``gen_ai.input.messages`` as results). Each model call's output is one assistant
    message (its text and tool calls, arguments as JSON text), each call's result a ``tool`` message;
    turns follow the spans' start times, and a call both shapes describe (one call id) counts once.
    """
    return _messages_of(_read(spans))


def _messages_of(spans: Read) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for turn in _turns(spans):
        message: dict[str, Any] = {"role": "assistant", "content": turn.text}
        if turn.calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in turn.calls
            ]
        out.append(message)
        out.extend(
            {"role": "tool", "tool_call_id": c.id, "content": c.result}
            for c in turn.calls
            if c.result is not None
        )
    return out


def otel_models(spans: Iterable[Any]) -> set[str]:
    """The models that answered the spans' model calls: ``gen_ai.response.model``, else ``gen_ai.request.model``."""
    return _models_of(_read(spans))


def _models_of(spans: Read) -> set[str]:
    models = set()
    for _start, operation, attributes in spans:
        if operation in MODEL_CALLS:
            model = attributes.get("gen_ai.response.model") or attributes.get("gen_ai.request.model")
            if isinstance(model, str) and model:
                models.add(model)
    return models


def otel_usage(spans: Iterable[Any]) -> dict[str, Any] | None:
    """The tokens of the spans' model calls (``gen_ai.usage.input_tokens`` / ``output_tokens``),
    summed, with ``model`` when one model answered; None when no model call reported tokens."""
    read = _read(spans)
    return _usage_of(read, _models_of(read))


def _usage_of(spans: Read, models: set[str]) -> dict[str, Any] | None:
    totals = [0, 0]
    seen = False
    for _start, operation, attributes in spans:
        if operation not in MODEL_CALLS:
            continue
        for slot, name in enumerate(("gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens")):
            count = attributes.get(name)
            if isinstance(count, int) and not isinstance(count, bool):
                totals[slot] += count
                seen = True
    return usage_block(totals[0], totals[1], models) if seen else None


def read_spans(spans: Iterable[Any]) -> tuple[list[dict[str, Any]], dict[str, Any] | None, set[str]]:
    """The messages (:func:`otel_spans_to_openai`), usage (:func:`otel_usage`) and models
    (:func:`otel_models`) of the spans, each span read once."""
    read = _read(spans)
    models = _models_of(read)
    return _messages_of(read), _usage_of(read, models), models
