"""OpenAI Responses API items (a response's ``output``, or input lists) -> OpenAI chat-completions messages."""

from __future__ import annotations

from typing import Any

from agent_evals.core.converters.shapes import get, json_text, text


def _items(value: Any) -> list[Any]:
    """The item list of a Responses API response (its ``output``) or of a list given as it is."""
    if isinstance(value, (list, tuple)):
        return list(value)
    output = get(value, "output")
    if isinstance(output, (list, tuple)) and not isinstance(value, (str, bytes)):
        return list(output)
    raise TypeError(
        "responses_to_openai expects a Responses API response (with an 'output' list) or a list of "
        f"its items (dicts or the SDK's objects), got {type(value).__name__}"
    )


def _call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    return {
        "id": str(call_id or ""),
        "type": "function",
        "function": {"name": str(name or ""), "arguments": json_text(arguments)},
    }


def _add_call(out: list[dict[str, Any]], call: dict[str, Any]) -> None:
    """Attach ``call`` to the assistant turn just before it, or open a new one (as chat completions
    carries parallel calls: one assistant message with several ``tool_calls``)."""
    last = out[-1] if out else None
    if last is not None and last["role"] == "assistant":
        last.setdefault("tool_calls", []).append(call)
    else:
        out.append({"role": "assistant", "content": "", "tool_calls": [call]})


def _tool_result(call_id: Any, output: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": str(call_id or ""), "content": text(output)}


def responses_to_openai(items: Any) -> list[dict[str, Any]]:
    """Turn Responses API items into OpenAI chat-completions message dicts.

    ``items`` is a response (``client.responses.create(...)``: its ``output`` is read), its
    ``output`` list, or an input list (``RunResult.to_input_list()`` of the OpenAI Agents SDK);
    each item may be a dict or the SDK's object. Messages (``type: "message"`` or a bare
    ``{"role", "content"}``) keep their role and their text; ``function_call`` items become
    ``tool_calls`` of an assistant message (arguments as JSON text, consecutive calls in one
    message); ``function_call_output`` items become ``tool`` messages; an ``mcp_call`` becomes both.
    Reasoning and hosted-tool items (web search, file search, ...) are skipped.

    Raises TypeError for anything that is not a response or a list of items.
    """
    out: list[dict[str, Any]] = []
    for item in _items(items):
        kind = get(item, "type")
        role = get(item, "role")
        if kind == "function_call":
            _add_call(out, _call(get(item, "call_id"), get(item, "name"), get(item, "arguments")))
        elif kind == "function_call_output":
            out.append(_tool_result(get(item, "call_id"), get(item, "output")))
        elif kind == "mcp_call":
            _add_call(out, _call(get(item, "id"), get(item, "name"), get(item, "arguments")))
            out.append(_tool_result(get(item, "id"), get(item, "output") or get(item, "error")))
        elif isinstance(role, str) and kind in (None, "message"):
            out.append({"role": role, "content": text(get(item, "content"))})
        # anything else (reasoning, hosted tools, ...) is not part of the chat trajectory
    return out
