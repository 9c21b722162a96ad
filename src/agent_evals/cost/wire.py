"""Token counts as model APIs and frameworks report them: OpenAI, Ollama and LangChain messages."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Report:
    """One model call's tokens."""

    model: str | None
    input_tokens: int
    output_tokens: int


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return None
    return int(value)


def from_body(obj: Any) -> Report | None:
    """The tokens of one API response document (or one streamed event), when it reports them.

    OpenAI chat completions and embeddings (``usage.prompt_tokens``/``completion_tokens``), the
    Responses API and Anthropic (``usage.input_tokens``/``output_tokens``, also inside a
    ``response.completed`` event), and Ollama (``prompt_eval_count``/``eval_count``).
    """
    if not isinstance(obj, Mapping):
        return None
    inner = obj.get("response")
    if isinstance(inner, Mapping) and isinstance(inner.get("usage"), Mapping):
        obj = inner
    model = obj.get("model")
    model = model if isinstance(model, str) and model else None
    usage = obj.get("usage")
    if isinstance(usage, Mapping):
        tokens_in = _count(usage.get("prompt_tokens", usage.get("input_tokens")))
        tokens_out = _count(usage.get("completion_tokens", usage.get("output_tokens")))
        if tokens_in is None and tokens_out is None:
            return None
        return Report(model, tokens_in or 0, tokens_out or 0)
    if "prompt_eval_count" in obj or "eval_count" in obj:  # Ollama
        tokens_in = _count(obj.get("prompt_eval_count"))
        tokens_out = _count(obj.get("eval_count"))
        if tokens_in is None and tokens_out is None:
            return None
        return Report(model, tokens_in or 0, tokens_out or 0)
    return None


def from_text(text: str) -> Report | None:
    """The tokens of a whole response body: one JSON document, or a stream of events (server-sent
    ``data:`` lines or NDJSON), where the last event that reports usage holds the call's totals."""
    stripped = text.strip()
    if not stripped:
        return None
    if stripped[0] == "{":
        try:
            return from_body(json.loads(stripped))
        except ValueError:
            pass  # NDJSON: one document per line
    found = None
    for line in stripped.splitlines():
        line = line.strip()
        if line.startswith("data:"):
            line = line[5:].strip()
        if not line.startswith("{"):
            continue
        try:
            report = from_body(json.loads(line))
        except ValueError:
            continue
        if report is not None:
            found = report
    return found


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)


def from_message(message: Any) -> Report | None:
    """The tokens of one LangChain/LangGraph AI message (object or its dict form): its
    ``usage_metadata``, else the provider's counts in ``response_metadata``."""
    meta = _get(message, "response_metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    model = meta.get("model_name") or meta.get("model")
    model = model if isinstance(model, str) and model else None
    usage = _get(message, "usage_metadata")
    if isinstance(usage, Mapping):
        tokens_in = _count(usage.get("input_tokens"))
        tokens_out = _count(usage.get("output_tokens"))
        if tokens_in is not None or tokens_out is not None:
            return Report(model, tokens_in or 0, tokens_out or 0)
    token_usage = meta.get("token_usage") or meta.get("usage")
    if isinstance(token_usage, Mapping):
        report = from_body({"usage": token_usage, "model": model})
        if report is not None:
            return report
    return from_body({k: v for k, v in meta.items() if k in ("prompt_eval_count", "eval_count", "model")})


def from_messages(messages: Iterable[Any]) -> list[Report]:
    """Every token report in a message list (messages without counts are skipped)."""
    reports = []
    for message in messages:
        report = from_message(message)
        if report is not None:
            reports.append(report)
    return reports
