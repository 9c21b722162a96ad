"""A loopback server speaking the Ollama API (/api/chat with tool calls, streamed or not; /api/tags; /api/show)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from servers.loopback_http import Recorded, Reply, ScriptedChatServer

OLLAMA_PORT = 11434
"""The port Ollama clients use when no host is configured."""

_CREATED_AT = "2026-01-01T00:00:00.000000Z"


@dataclass
class OllamaAnswer:
    """One assistant turn: text content and/or tool calls ``(name, arguments)``."""

    content: str = ""
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    prompt_eval_count: int = 20
    """Prompt tokens the final chunk reports."""
    eval_count: int = 10
    """Completion tokens the final chunk reports."""


def by_turn(*answers: OllamaAnswer) -> Callable[[dict[str, Any]], OllamaAnswer]:
    """A responder that answers turn N of a conversation (N = assistant messages so far) with ``answers[N]``.

    Stateless per request, so concurrent or repeated conversations get the same script.
    """

    def respond(body: dict[str, Any]) -> OllamaAnswer:
        turn = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        if turn >= len(answers):
            raise LookupError(f"the script has {len(answers)} turns; the conversation is at turn {turn + 1}")
        return answers[turn]

    return respond


class OllamaServer(ScriptedChatServer[OllamaAnswer]):
    """The Ollama endpoints LangChain's ChatOllama and the ``ollama`` client call, with scripted replies.

    Replies come from ``script(...)`` (a queue) or from ``responder(body)``; ``models`` lists the
    model names ``/api/tags`` and ``/api/show`` know.
    """

    CHAT_PATH = "/api/chat"

    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, models: Sequence[str] = ("gpt-oss:20b",)
    ) -> None:
        super().__init__(host, port)
        self.models = list(models)
        self.routes[("POST", "/api/chat")] = self._chat
        self.routes[("GET", "/api/tags")] = self._tags
        self.routes[("POST", "/api/show")] = self._show
        self.routes[("GET", "/api/version")] = lambda _: Reply(200, {"version": "0.12.0"})
        self.routes[("GET", "/")] = lambda _: Reply(200, "Ollama is running")
        self.routes[("HEAD", "/")] = lambda _: Reply(200, "")

    def _chat(self, request: Recorded) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        model = body.get("model", "")
        if model not in self.models:
            return Reply(404, {"error": f"model '{model}' not found"})
        answer = self._next_answer(body)
        if answer is None:
            return Reply(400, {"error": "the test server has no scripted answer left"})
        message: dict[str, Any] = {"role": "assistant", "content": answer.content}
        if answer.tool_calls:
            message["tool_calls"] = [
                {"function": {"name": name, "arguments": arguments}} for name, arguments in answer.tool_calls
            ]
        final = {
            "model": model,
            "created_at": _CREATED_AT,
            "done": True,
            "done_reason": "stop",
            "total_duration": 1_000_000,
            "load_duration": 1_000,
            "prompt_eval_count": answer.prompt_eval_count,
            "prompt_eval_duration": 1_000,
            "eval_count": answer.eval_count,
            "eval_duration": 1_000,
        }
        if body.get("stream", True) is False:
            return Reply(200, {**final, "message": message})
        first = {"model": model, "created_at": _CREATED_AT, "message": message, "done": False}
        last = {**final, "message": {"role": "assistant", "content": ""}}
        return Reply(200, lines=[first, last])

    def _tags(self, _: Recorded) -> Reply:
        return Reply(
            200,
            {
                "models": [
                    {
                        "name": m,
                        "model": m,
                        "modified_at": _CREATED_AT,
                        "size": 1,
                        "digest": "0" * 64,
                        "details": {
                            "format": "gguf",
                            "family": "test",
                            "parameter_size": "1B",
                            "quantization_level": "Q4_0",
                        },
                    }
                    for m in self.models
                ]
            },
        )

    def _show(self, request: Recorded) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        model = body.get("model") or body.get("name")
        if model not in self.models:
            return Reply(404, {"error": f"model '{model}' not found"})
        return Reply(
            200,
            {
                "modelfile": "",
                "parameters": "",
                "template": "{{ .Prompt }}",
                "details": {"format": "gguf", "family": "test"},
                "model_info": {},
                "capabilities": ["completion", "tools"],
            },
        )
