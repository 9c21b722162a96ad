"""LangChain/LangGraph messages (and loose dicts) -> OpenAI chat-completions message dicts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agent_evals.core.converters.shapes import json_text
from agent_evals.errors import MissingDependency

# LangChain message ``type`` values and loose role spellings -> OpenAI roles.
_ROLE_ALIASES = {
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "system": "system",
    "developer": "developer",
    "tool": "tool",
    "function": "function",
}


def _wire_tool_call(call: Mapping[str, Any], where: str) -> dict[str, Any]:
    """One tool call in the OpenAI wire shape, from either the wire or the flat shape."""
    function = call.get("function")
    if isinstance(function, Mapping):
        name = function.get("name")
        arguments = function.get("arguments", "{}")
    elif "name" in call:
        name = call.get("name")
        arguments = call.get("args", call.get("arguments", {}))
    else:
        raise ValueError(
            f"{where}: a tool call needs either 'function': {{'name', 'arguments'}} (OpenAI shape) "
            f"or 'name' and 'args' (flat shape); got keys {sorted(call)}"
        )
    if not isinstance(name, str) or not name:
        raise ValueError(f"{where}: a tool call's name must be a non-empty string, got {name!r}")
    return {
        "id": str(call.get("id") or ""),
        "type": "function",
        "function": {"name": name, "arguments": json_text(arguments)},
    }


def _from_mapping(message: Mapping[str, Any], where: str) -> dict[str, Any]:
    raw_role = message.get("role", message.get("type"))
    role = _ROLE_ALIASES.get(str(raw_role).lower()) if raw_role is not None else None
    if role is None:
        raise ValueError(
            f"{where}: a message needs a 'role' (user, assistant, system, tool) or a LangChain "
            f"'type' (human, ai, system, tool); got {raw_role!r}"
        )
    converted = {k: v for k, v in message.items() if k != "type"}
    converted["role"] = role
    content = converted.get("content")
    converted["content"] = "" if content is None else content
    tool_calls = converted.get("tool_calls")
    if tool_calls:
        if not isinstance(tool_calls, list):
            raise ValueError(f"{where}: 'tool_calls' must be a list, got {type(tool_calls).__name__}")
        converted["tool_calls"] = [
            _wire_tool_call(call, f"{where}.tool_calls[{i}]") if isinstance(call, Mapping) else call
            for i, call in enumerate(tool_calls)
        ]
    elif "tool_calls" in converted:
        del converted["tool_calls"]  # None or [] carries no calls; keep the frame comparable
    return converted


def _from_framework_object(message: Any, where: str) -> dict[str, Any]:
    try:
        from langchain_core.messages.utils import convert_to_openai_messages
    except ImportError as exc:
        raise MissingDependency(
            "langchain-core", "langchain", f"Converting {type(message).__name__} messages ({where})"
        ) from exc
    try:
        converted: dict[str, Any] = convert_to_openai_messages(message)
    except (TypeError, ValueError, NotImplementedError) as exc:
        raise ValueError(
            f"{where}: cannot convert a {type(message).__name__} to an OpenAI message: {exc}"
        ) from exc
    return _from_mapping(converted, where)


def to_openai_message(message: Any, *, where: str = "message") -> dict[str, Any]:
    """Convert one message to an OpenAI-format dict.

    Accepts OpenAI dicts (returned normalised: flat ``{"name", "args"}`` tool calls become the wire
    shape, LangChain role spellings become OpenAI roles, ``None`` content becomes ``""``) and
    LangChain/LangGraph message objects (converted with ``langchain_core``, imported only then).
    """
    if isinstance(message, Mapping):
        return _from_mapping(message, where)
    if isinstance(message, (str, bytes)) or not hasattr(message, "content"):
        raise ValueError(
            f"{where}: expected an OpenAI message dict or a LangChain message object, "
            f"got {type(message).__name__}"
        )
    return _from_framework_object(message, where)


def to_openai_messages(messages: Any, *, where: str = "messages") -> list[dict[str, Any]]:
    """Convert a trajectory to a list of OpenAI-format message dicts.

    ``messages`` is a list of messages or a mapping with a ``"messages"`` list (a LangGraph state);
    each item may be an OpenAI dict or a LangChain message object. ``where`` names the value in errors.
    """
    if isinstance(messages, Mapping):
        if "messages" not in messages:
            raise ValueError(
                f"{where}: a trajectory mapping needs a 'messages' key; got keys {sorted(map(str, messages))}"
            )
        messages = messages["messages"]
        where = f"{where}['messages']"
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Iterable):
        raise ValueError(
            f"{where}: expected a list of messages or {{'messages': [...]}}, got {type(messages).__name__}"
        )
    return [to_openai_message(m, where=f"{where}[{i}]") for i, m in enumerate(messages)]


def langchain_to_openai(messages: Any) -> list[dict[str, Any]]:
    """LangChain/LangGraph messages (``graph.invoke(...)["messages"]``) as OpenAI-format dicts.

    The same conversion as :func:`to_openai_messages`, under the name the seed project used.
    """
    return to_openai_messages(messages)
