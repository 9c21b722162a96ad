"""Strands (Bedrock content blocks) conversations -> OpenAI chat-completions message dicts."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def _result_text(content: Any) -> str:
    """The text of a toolResult's content list: text parts as they are, JSON parts serialised."""
    if not isinstance(content, list):
        return "" if content is None else str(content)
    parts = []
    for item in content:
        if isinstance(item, Mapping) and "text" in item:
            parts.append(str(item["text"]))
        elif isinstance(item, Mapping) and "json" in item:
            parts.append(json.dumps(item["json"]))
        else:
            parts.append(str(item))
    return "\n".join(parts)


def strands_to_openai(messages: Any) -> list[dict[str, Any]]:
    """Flatten a Strands message list (``list(agent.messages)``) into OpenAI-format dicts.

    Each Strands message is ``{"role", "content": [block, ...]}``. Text blocks become the
    message's ``content`` (joined by newlines), ``toolUse`` blocks its ``tool_calls`` (wire shape,
    arguments as JSON text) and ``toolResult`` blocks, which Strands carries on ``user`` turns,
    separate ``tool`` messages linked by ``tool_call_id``. Other blocks (images, documents) are
    skipped. Needs no Strands install: the conversion reads the dict shape only.

    Raises TypeError when ``messages`` is not a list, and ValueError naming the index of a
    message that is not a mapping with a ``role``.
    """
    if not isinstance(messages, list):
        raise TypeError(
            f"strands_to_openai expects a list of Strands message dicts, got {type(messages).__name__}"
        )
    out: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping) or "role" not in message:
            raise ValueError(
                f"messages[{index}]: expected a Strands message dict with a 'role', got {message!r:.80}"
            )
        texts: list[str] = []
        calls: list[dict[str, Any]] = []
        results: list[dict[str, Any]] = []
        for block in message.get("content") or []:
            if not isinstance(block, Mapping):
                continue
            if "text" in block:
                texts.append(str(block["text"]))
            elif isinstance(block.get("toolUse"), Mapping):
                use = block["toolUse"]
                calls.append(
                    {
                        "id": str(use.get("toolUseId", "")),
                        "type": "function",
                        "function": {
                            "name": str(use.get("name", "")),
                            "arguments": json.dumps(use.get("input", {})),
                        },
                    }
                )
            elif isinstance(block.get("toolResult"), Mapping):
                done = block["toolResult"]
                results.append(
                    {
                        "role": "tool",
                        "tool_call_id": str(done.get("toolUseId", "")),
                        "content": _result_text(done.get("content")),
                    }
                )
        role = str(message["role"])
        if not (
            role == "user" and results and not texts
        ):  # a results-only user turn is just its tool messages
            converted: dict[str, Any] = {"role": role, "content": "\n".join(texts)}
            if calls:
                converted["tool_calls"] = calls
            out.append(converted)
        out.extend(results)
    return out
