"""A loopback server speaking OpenAI chat completions (text and tool calls, streamed or not), embeddings and
moderation, scripted."""

from __future__ import annotations

import base64
import json
import struct
from dataclasses import dataclass, field
from typing import Any

from servers.loopback_http import Recorded, Reply, ScriptedChatServer


@dataclass
class TextAnswer:
    """An assistant message with text content (e.g. a JSON document for structured output)."""

    content: str
    usage: dict[str, int] | None = None
    """The ``usage`` the response reports (default: 10 prompt and 5 completion tokens)."""


@dataclass
class ToolCallAnswer:
    """An assistant message that calls one function (the shape autoevals' classifiers read)."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, int] | None = None
    """The ``usage`` the response reports (default: 10 prompt and 5 completion tokens)."""


Answer = TextAnswer | ToolCallAnswer


def select_choice(choice: str, reasons: str = "Scripted reasoning.") -> ToolCallAnswer:
    """The ``select_choice`` call autoevals' model-graded classifiers expect from the model."""
    return ToolCallAnswer("select_choice", {"reasons": reasons, "choice": choice})


class OpenAIServer(ScriptedChatServer[Answer]):
    """``POST /v1/chat/completions``, ``POST /v1/embeddings`` and ``GET /v1/models`` on loopback.

    Chat answers come from ``script(...)`` (a queue, one answer per request) or from a
    ``responder(body) -> Answer`` function; with neither, the request fails with a 400 that says
    the script ran out. Embeddings come from ``embeddings[text]``; an unknown text is a 400.
    Moderation (``POST /v1/moderations``) flags nothing unless ``moderation[text]`` holds that
    text's category scores; a text with any score above 0.5 is flagged.
    """

    CHAT_PATH = "/v1/chat/completions"

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(host, port)
        self.embeddings: dict[str, list[float]] = {}
        self.moderation: dict[str, dict[str, float]] = {}
        self.routes[("POST", "/v1/moderations")] = self._moderate
        self.routes[("POST", "/v1/chat/completions")] = self._chat
        self.routes[("POST", "/v1/embeddings")] = self._embed
        self.routes[("GET", "/v1/models")] = lambda _: Reply(200, {"object": "list", "data": []})

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL (``.../v1``) to give clients."""
        return f"{self.root_url}/v1"

    def _chat(self, request: Recorded) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        answer = self._next_answer(body)
        if answer is None:
            # 400, not 5xx: a client must not retry a request the script cannot answer
            return Reply(400, {"error": {"message": "the test server has no scripted answer left"}})
        message: dict[str, Any]
        if isinstance(answer, ToolCallAnswer):
            call_number = len(self.chat_requests)
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{call_number}",
                        "type": "function",
                        "function": {"name": answer.name, "arguments": json.dumps(answer.arguments)},
                    }
                ],
            }
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": answer.content}
            finish = "stop"
        usage = answer.usage or {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        head = {
            "id": f"chatcmpl-{len(self.chat_requests)}",
            "created": 1_700_000_000,
            "model": body.get("model", "scripted"),
        }
        if body.get("stream"):
            return Reply(200, events=_chunks(head, message, finish, usage, body.get("stream_options")))
        return Reply(
            200,
            {
                **head,
                "object": "chat.completion",
                "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
                "usage": usage,
            },
        )

    def _embed(self, request: Recorded) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts or [])
        missing = [t for t in texts if t not in self.embeddings]
        if missing:
            return Reply(400, {"error": {"message": f"no scripted embedding for {missing!r}"}})
        return Reply(
            200,
            {
                "object": "list",
                "data": [
                    {"object": "embedding", "index": i, "embedding": _encode(self.embeddings[t], body)}
                    for i, t in enumerate(texts)
                ],
                "model": body.get("model", "scripted-embedding"),
                "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
            },
        )

    def _moderate(self, request: Recorded) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts or [])
        results = []
        for text in texts:
            scores = self.moderation.get(text, {"violence": 0.0})
            flagged = any(value > 0.5 for value in scores.values())
            categories = {name: value > 0.5 for name, value in scores.items()}
            results.append({"flagged": flagged, "categories": categories, "category_scores": scores})
        return Reply(200, {"id": "modr-1", "model": body.get("model", "scripted"), "results": results})


def _chunks(
    head: dict[str, Any], message: dict[str, Any], finish: str, usage: dict[str, int], options: Any
) -> list[dict[str, Any]]:
    """A streamed answer as the API sends it: the message in one delta, the finish reason, then
    the usage in a chunk without choices when ``stream_options.include_usage`` asked for it."""
    delta: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]
    chunk = {**head, "object": "chat.completion.chunk"}
    chunks = [
        {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
    ]
    if isinstance(options, dict) and options.get("include_usage"):
        chunks.append({**chunk, "choices": [], "usage": usage})
    return chunks


def _encode(vector: list[float], body: dict[str, Any]) -> list[float] | str:
    """Floats, or little-endian float32 in base64 when the client asks (the SDK's default)."""
    if body.get("encoding_format") == "base64":
        return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
    return vector
