"""mink-sdk ``tool_history`` entries -> OpenAI chat-completions message dicts (no SDK needed)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def mink_to_openai(tool_history: Any) -> list[dict[str, Any]]:
    """Turn ``AgenticAgent.chat(...)["tool_history"]`` into OpenAI-format messages.

    Entry ``i`` (``{"call": {"name", "args"}, "result": {"name", "output"} | None}``) becomes an
    assistant message with one tool call whose id is ``tc_<i>``, followed by a ``tool`` message
    with that id and ``str(result["output"])`` when the call has a result (a call still in flight
    has none). The reply text is not part of the history: pass it as ``TaskResult(output=...)``.
    The mink SDK is never imported; the conversion reads the dict shape only.

    Raises TypeError when ``tool_history`` is not a list.
    """
    if not isinstance(tool_history, list):
        raise TypeError(
            f"mink_to_openai expects a list of tool_history entries, got {type(tool_history).__name__}"
        )
    out: list[dict[str, Any]] = []
    for index, entry in enumerate(tool_history):
        fields: Mapping[str, Any] = entry if isinstance(entry, Mapping) else {}
        raw_call = fields.get("call")
        call: Mapping[str, Any] = raw_call if isinstance(raw_call, Mapping) else {}
        call_id = f"tc_{index}"
        function = {"name": str(call.get("name", "")), "arguments": json.dumps(call.get("args", {}))}
        out.append(
            {"role": "assistant", "tool_calls": [{"id": call_id, "type": "function", "function": function}]}
        )
        result = fields.get("result")
        if isinstance(result, Mapping):
            out.append({"role": "tool", "tool_call_id": call_id, "content": str(result.get("output", ""))})
    return out
