"""PydanticAI run results and message histories -> OpenAI chat-completions messages and usage (PydanticAI
is never imported)."""

from __future__ import annotations

from typing import Any

from agent_evals.core.converters.shapes import get, json_text, text, usage_block


def is_agent_run_result(value: Any) -> bool:
    """True for a PydanticAI ``AgentRunResult`` (or a finished streamed run): read by its shape."""
    return callable(getattr(value, "all_messages", None)) and hasattr(value, "output")


def _messages(value: Any) -> list[Any]:
    if is_agent_run_result(value):
        return list(value.all_messages())
    if isinstance(value, (list, tuple)):
        return list(value)
    raise TypeError(
        "pydantic_ai_to_openai expects a PydanticAI AgentRunResult (agent.run / run_sync) or its "
        f"all_messages() list (objects or their JSON form), got {type(value).__name__}"
    )


def _result_text(value: Any) -> str:
    """A tool's result as the ``tool`` message's text: text as it is, anything else (a dict, a model,
    a list) as JSON."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json_text(value)


def _request(parts: list[Any], out: list[dict[str, Any]]) -> None:
    """A ModelRequest's parts: system and user prompts, tool returns and retry prompts."""
    for part in parts:
        kind = get(part, "part_kind")
        if kind == "system-prompt":
            out.append({"role": "system", "content": text(get(part, "content"))})
        elif kind == "user-prompt":
            out.append({"role": "user", "content": text(get(part, "content"))})
        elif kind == "tool-return":
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": str(get(part, "tool_call_id") or ""),
                    "content": _result_text(get(part, "content")),
                }
            )
        elif kind == "retry-prompt":  # a tool's validation error goes back to the model as its result
            content = _result_text(get(part, "content"))  # the error text, or a list of validation errors
            if get(part, "tool_name"):
                out.append(
                    {"role": "tool", "tool_call_id": str(get(part, "tool_call_id") or ""), "content": content}
                )
            else:
                out.append({"role": "user", "content": content})


def _response(parts: list[Any]) -> dict[str, Any]:
    """A ModelResponse's parts as one assistant message: its text and its tool calls."""
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for part in parts:
        kind = get(part, "part_kind")
        if kind == "text":
            texts.append(text(get(part, "content")))
        elif kind == "tool-call":
            function = {"name": str(get(part, "tool_name") or ""), "arguments": json_text(get(part, "args"))}
            calls.append(
                {"id": str(get(part, "tool_call_id") or ""), "type": "function", "function": function}
            )
        # thinking and provider-side (builtin) tool parts are not part of the chat trajectory
    message: dict[str, Any] = {"role": "assistant", "content": "".join(texts)}
    if calls:
        message["tool_calls"] = calls
    return message


def pydantic_ai_to_openai(messages: Any) -> list[dict[str, Any]]:
    """A PydanticAI run (``await agent.run(...)``) or its ``all_messages()`` as OpenAI chat messages.

    Each ``ModelRequest`` gives a system message per system prompt, a user message per user prompt
    and a ``tool`` message per tool return (or retry prompt of a tool); each ``ModelResponse``
    gives one assistant message with its text and its tool calls (arguments as JSON text). Messages
    may be PydanticAI's objects or their JSON form (``all_messages_json()`` parsed). Thinking and
    provider-side built-in tool parts are skipped.

    Raises TypeError for anything else.
    """
    out: list[dict[str, Any]] = []
    for index, message in enumerate(_messages(messages)):
        kind = get(message, "kind")
        parts = list(get(message, "parts") or ())
        if kind == "request":
            _request(parts, out)
        elif kind == "response":
            out.append(_response(parts))
        else:
            raise TypeError(
                f"messages[{index}]: expected a PydanticAI ModelRequest or ModelResponse (kind "
                f"'request' or 'response'), got {type(message).__name__}"
            )
    return out


def is_message_list(messages: list[Any]) -> bool:
    """True for PydanticAI messages (objects or their JSON form): a ``kind`` and ``parts``."""
    return any(get(m, "kind") in ("request", "response") and get(m, "parts") is not None for m in messages)


def _models(messages: list[Any]) -> set[str]:
    models = set()
    for message in messages:
        name = get(message, "model_name")
        if get(message, "kind") == "response" and isinstance(name, str) and name:
            models.add(name)
    return models


def pydantic_ai_usage(result: Any) -> dict[str, Any] | None:
    """The run's tokens (``result.usage``) and its model when only one answered."""
    usage = getattr(result, "usage", None)
    if callable(usage) and not hasattr(usage, "input_tokens"):
        usage = usage()  # before PydanticAI 2, usage() was a method
    if usage is None:
        return None
    return usage_block(
        get(usage, "input_tokens"), get(usage, "output_tokens"), _models(result.all_messages())
    )


def messages_usage(messages: list[Any]) -> dict[str, Any] | None:
    """The tokens of a message list's responses (each ``ModelResponse.usage``), summed."""
    totals = [0, 0]
    seen = False
    for message in messages:
        usage = get(message, "usage") if get(message, "kind") == "response" else None
        if usage is None:
            continue
        for slot, name in enumerate(("input_tokens", "output_tokens")):
            count = get(usage, name)
            if isinstance(count, int):
                totals[slot] += count
                seen = True
    return usage_block(totals[0], totals[1], _models(messages)) if seen else None
