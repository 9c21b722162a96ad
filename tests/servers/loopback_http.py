"""A small threaded JSON-over-HTTP server on a loopback port, the base of the model-protocol servers."""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Generic, TypeVar


@dataclass
class Recorded:
    """One request the server received."""

    method: str
    path: str
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Reply:
    """What a route answers: a JSON body, NDJSON lines when ``lines`` is set, or server-sent events
    (``data: {json}`` each, then ``data: [DONE]``, as OpenAI streams) when ``events`` is set."""

    status: int = 200
    body: Any = None
    lines: Iterable[Any] | None = None
    events: Iterable[Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    """Extra response headers (e.g. ``Retry-After``)."""


@dataclass
class Failure:
    """A scripted error answer: the chat endpoint replies with ``status`` (and ``headers``) instead."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "scripted failure"

    def reply(self) -> Reply:
        """The error response (an OpenAI- and Ollama-shaped error body)."""
        return Reply(
            self.status, {"error": {"message": self.message, "type": "scripted"}}, headers=self.headers
        )


Route = Callable[[Recorded], Reply]


class LoopbackJSONServer:
    """Serves ``routes[(method, path)]`` on ``host:port`` (port 0 = any free port) in a thread.

    Every request is recorded in ``requests``; an unknown route answers 404 with a JSON error.
    Use as a context manager, or call ``start()`` / ``stop()``.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port
        self.routes: dict[tuple[str, str], Route] = {}
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def root_url(self) -> str:
        """``http://host:port`` of the running server."""
        return f"http://{self.host}:{self.port}"

    def start(self) -> LoopbackJSONServer:
        """Bind and serve in a daemon thread; raises OSError when the port is taken."""
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                return

            def _handle(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except json.JSONDecodeError:
                    body = raw.decode("utf-8", "replace")
                path = self.path.split("?", 1)[0]
                recorded = Recorded(method, path, body, {k.lower(): v for k, v in self.headers.items()})
                with server._lock:
                    server.requests.append(recorded)
                route = server.routes.get((method, path))
                if route is None:
                    reply = Reply(404, {"error": f"no route for {method} {path}"})
                else:
                    try:
                        reply = route(recorded)
                    except ScriptedFailure as failed:
                        reply = failed.failure.reply()
                    except Exception as exc:  # a broken script shows up as a 500 the client reports
                        reply = Reply(500, {"error": f"{type(exc).__name__}: {exc}"})
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                if reply.events is not None:
                    chunks = [b"data: " + json.dumps(event).encode() + b"\n\n" for event in reply.events]
                    payload = b"".join(chunks) + b"data: [DONE]\n\n"
                    content_type = "text/event-stream"
                elif reply.lines is not None:
                    payload = b"".join(json.dumps(line).encode() + b"\n" for line in reply.lines)
                    content_type = "application/x-ndjson"
                else:
                    payload = json.dumps(reply.body).encode()
                    content_type = "application/json"
                self.send_response(reply.status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                # One request per connection: clients never keep a socket open past a test.
                self.send_header("Connection", "close")
                self.close_connection = True
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:
                self._handle("GET")

            def do_POST(self) -> None:
                self._handle("POST")

            def do_HEAD(self) -> None:
                self._handle("HEAD")

        self._httpd = ThreadingHTTPServer((self.host, self.port), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="loopback-http",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> LoopbackJSONServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def requests_to(self, path: str) -> list[Recorded]:
        """The recorded requests for one path, in arrival order."""
        with self._lock:
            return [r for r in self.requests if r.path == path]


AnswerT = TypeVar("AnswerT")


class ScriptedChatServer(LoopbackJSONServer, Generic[AnswerT]):
    """A loopback server whose chat endpoint (``CHAT_PATH``) answers from a script.

    Answers come from ``script(...)`` (a queue, one per request), else from ``responder(body)``.
    """

    CHAT_PATH = ""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(host, port)
        self.responder: Callable[[dict[str, Any]], AnswerT] | None = None
        self._answers: deque[AnswerT | Failure] = deque()
        self._answers_lock = threading.Lock()

    def script(self, *answers: AnswerT | Failure) -> None:
        """Queue answers (or :class:`Failure` replies) for the next chat requests, in order."""
        with self._answers_lock:
            self._answers.extend(answers)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """Bodies of the chat requests received so far."""
        return [r.body for r in self.requests_to(self.CHAT_PATH)]

    @property
    def chat_count(self) -> int:
        """Chat requests received so far (what a response cache must keep from reaching the server)."""
        return len(self.requests_to(self.CHAT_PATH))

    def _next(self, body: dict[str, Any]) -> AnswerT | Failure | None:
        with self._answers_lock:
            if self._answers:
                return self._answers.popleft()
        return self.responder(body) if self.responder is not None else None

    def _next_answer(self, body: dict[str, Any]) -> AnswerT | None:
        answer = self._next(body)
        if isinstance(answer, Failure):
            raise ScriptedFailure(answer)
        return answer


class ScriptedFailure(Exception):
    """Raised inside a route to send a scripted :class:`Failure` reply."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.status)
        self.failure = failure
