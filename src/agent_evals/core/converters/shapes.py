"""Small readers shared by the converters: a field of a dict or an object, JSON text, plain text."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def get(obj: Any, name: str, default: Any = None) -> Any:
    """``obj[name]`` for a mapping, else ``obj.name``; ``default`` when it has neither."""
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def json_text(value: Any) -> str:
    """Tool-call arguments as JSON text: text is kept as it is, anything else is serialised."""
    if isinstance(value, str):
        return value
    if value is None:
        return "{}"
    return json.dumps(plain(value), default=str)


def plain(value: Any) -> Any:
    """A pydantic model or dataclass-like object as plain data (its ``model_dump()``), else itself."""
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        return dump(mode="json")
    return value


def text(value: Any) -> str:
    """The text of a content value: a string, a list of text parts, or anything else as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        parts = []
        for part in value:
            if isinstance(part, str):
                parts.append(part)
                continue
            piece = get(part, "text")
            if piece is None:
                piece = get(part, "refusal")
            if isinstance(piece, str):
                parts.append(piece)
        return "".join(parts)
    value = plain(value)
    return value if isinstance(value, str) else json.dumps(value, default=str)


def final_text(output: Any) -> str:
    """A run's final output as the text ``TaskResult.output`` holds (structured output as JSON)."""
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    return json.dumps(plain(output), default=str)


def usage_block(input_tokens: Any, output_tokens: Any, models: set[str]) -> dict[str, Any] | None:
    """``{"input_tokens", "output_tokens"}`` plus ``model`` when exactly one model answered; None
    when the run reported no token counts, or only zeros (a framework's empty counter, e.g. a streamed
    run whose server sent no usage: reported, it would replace the tokens the HTTP hook counted)."""
    counts = {
        name: value
        for name, value in (("input_tokens", input_tokens), ("output_tokens", output_tokens))
        if isinstance(value, int) and not isinstance(value, bool)
    }
    if not any(counts.values()):
        return None
    usage: dict[str, Any] = dict(counts)
    if len(models) == 1:
        usage["model"] = next(iter(models))
    return usage
