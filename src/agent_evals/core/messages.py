"""Reading tool calls out of message lists, whatever shape the agent framework emitted them in."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

ACCEPTED_SHAPES = (
    'OpenAI wire shape {"function": {"name": ..., "arguments": "<json>" or {...}}} '
    'or flat shape {"name": ..., "args": {...}}'
)


def extract_tool_calls(messages: Any) -> list[dict[str, Any]]:
    """Every tool call in ``messages``, in order, as ``{"name": str, "args": dict}``.

    ``messages`` is a list of messages or a ``{"messages": [...]}`` mapping. A message is a
    dict or an object with a ``tool_calls`` attribute (LangChain ``AIMessage``). Each call may be
    in the OpenAI wire shape (``function.name`` and ``function.arguments`` as a JSON string or
    an object) or the flat shape (``name`` and ``args``/``arguments``). Anthropic-style
    ``tool_use`` content blocks are read too, and so are bare calls listed without a message
    around them (a mapping with ``name`` or ``function`` but no ``role``, ``content`` or
    ``tool_calls``). Frames without tool calls (user prompts, tool responses, plain assistant
    text) are skipped.

    Raises TypeError for a container that is not a message list, and ValueError naming the
    message and call index for a call without a name or with arguments that are not a JSON object.
    """
    if type(messages) is list:
        fast = _plain_calls(messages)
        if fast is not None:
            return [{"name": name, "args": args} for name, args in fast]
    else:  # the common case skips the ABC checks below
        if isinstance(messages, Mapping) and "messages" in messages:
            messages = messages["messages"]
        if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
            raise TypeError(
                "expected a list of messages or a {'messages': [...]} mapping, "
                f"got {type(messages).__name__}"
            )
    calls: list[dict[str, Any]] = []
    for m_index, message in enumerate(messages):
        for c_index, raw in enumerate(_raw_calls(message)):
            calls.append(_normalize_call(raw, m_index, c_index))
    return calls


def tool_call_pairs(messages: Any) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls of ``messages`` as ``(name, args)`` pairs: ``extract_tool_calls`` without the dicts.

    Same shapes, order and errors as ``extract_tool_calls``; scorers use it on their hot path.
    """
    if type(messages) is list:
        fast = _plain_calls(messages)
        if fast is not None:
            return fast
    return [(call["name"], call["args"]) for call in extract_tool_calls(messages)]


_scan_once: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_ABSENT = object()


def _plain_calls(messages: list[Any]) -> list[tuple[str, dict[str, Any]]] | None:
    """Fast path for the common case: plain dict messages holding plain dict calls.

    Returns (name, args) pairs, or None as soon as anything is unusual (objects, bare calls,
    content blocks, arguments that are not a compact JSON object, a malformed call); the general
    path then decides, and words any error.
    """
    calls: list[tuple[str, dict[str, Any]]] = []
    for message in messages:
        if type(message) is not dict:
            return None
        tool_calls = message.get("tool_calls")
        if not tool_calls:
            content = message.get("content", _ABSENT)
            if type(content) is str:  # plain text: the common frame without calls
                continue
            if content is _ABSENT and "role" not in message and "tool_calls" not in message:
                return None  # a bare call
            if isinstance(content, list):
                return None  # may hold tool_use blocks
            continue
        if type(tool_calls) is not list:
            return None
        for raw in tool_calls:
            if type(raw) is not dict:
                return None
            function = raw.get("function")
            if type(function) is dict:
                name = function.get("name")
                args = function.get("arguments", _ABSENT)
                if args is _ABSENT:
                    args = function.get("args")
            elif function is None:
                name = raw.get("name")
                args = raw.get("args", _ABSENT)
                if args is _ABSENT:
                    args = raw.get("arguments", _ABSENT)
                    if args is _ABSENT:
                        args = raw.get("input")
            else:
                return None
            if type(name) is not str or not name:
                return None
            if type(args) is str:
                if args:
                    text = args
                    try:
                        args, end = _scan_once(text, 0)
                    except (StopIteration, ValueError):
                        return None
                    if type(args) is not dict or end != len(text):
                        return None
                else:
                    args = {}
            elif args is None:
                args = {}
            elif type(args) is not dict:
                return None
            calls.append((name, args))
    return calls


def _raw_calls(message: Any) -> list[Any]:
    if type(message) is dict or isinstance(message, Mapping):
        if "role" not in message and "content" not in message and "tool_calls" not in message:
            # a bare call listed without its message wrapper
            return [message] if "name" in message or "function" in message else []
        tool_calls = message.get("tool_calls")
        content = message.get("content")
    else:
        tool_calls = getattr(message, "tool_calls", None)
        content = getattr(message, "content", None)
    found: list[Any] = (
        list(tool_calls)
        if tool_calls and (type(tool_calls) is list or isinstance(tool_calls, Sequence))
        else []
    )
    if not found and isinstance(content, list):
        found = [b for b in content if isinstance(b, Mapping) and b.get("type") == "tool_use"]
    return found


def _normalize_call(raw: Any, m_index: int, c_index: int) -> dict[str, Any]:
    if type(raw) is not dict and not isinstance(raw, Mapping):
        raw = {
            "name": getattr(raw, "name", None),
            "args": getattr(raw, "args", None),
            "function": getattr(raw, "function", None),
        }
    function = raw.get("function")
    if function is None:
        name = raw.get("name")
        args = raw.get("args", raw.get("arguments", raw.get("input")))
    elif isinstance(function, Mapping):
        name = function.get("name")
        args = function.get("arguments", function.get("args"))
    elif not isinstance(function, (str, bytes)):
        name = getattr(function, "name", None)
        args = getattr(function, "arguments", None)
    else:
        name = raw.get("name")
        args = raw.get("args", raw.get("arguments", raw.get("input")))
    where = f"message {m_index}, tool call {c_index}"
    if not isinstance(name, str) or not name:
        raise ValueError(f"{where}: tool call has no name; accepted shapes: {ACCEPTED_SHAPES}")
    return {"name": name, "args": _parse_args(args, where, name)}


def _parse_args(args: Any, where: str, name: str) -> dict[str, Any]:
    if type(args) is dict:
        return args
    if args is None or args == "":
        return {}
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where} ({name}): arguments are not valid JSON: {exc}") from exc
    if not isinstance(args, Mapping):
        raise ValueError(
            f"{where} ({name}): arguments must be a JSON object, got {type(args).__name__}; "
            f"accepted shapes: {ACCEPTED_SHAPES}"
        )
    return dict(args)
