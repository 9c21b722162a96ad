"""The httpx hook chain: installed once per hook, modules looked up once per process, hooks run in order."""

from __future__ import annotations

import importlib.util
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from agent_evals.calls import hooks as http_hooks


class _Recorder:
    def __init__(self, name: str, seen: list[str]) -> None:
        self.name, self.seen = name, seen

    def handle(self, request: Any, send: http_hooks.Send) -> Any:
        self.seen.append(f"{self.name}>")
        response = send(request)
        self.seen.append(f"<{self.name}")
        return response

    async def handle_async(self, request: Any, send: http_hooks.SendAsync) -> Any:
        self.seen.append(f"{self.name}>")
        response = await send(request)
        self.seen.append(f"<{self.name}")
        return response


class _Ok(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"{}"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server_url() -> Any:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Ok)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_add_hook__looks_a_missing_module_up_once_however_many_hooks_are_added(monkeypatch) -> None:
    missing = "agent_evals_test_no_such_httpx"  # as httpx2 is on a core-only install
    monkeypatch.setattr(http_hooks, "HTTPX_MODULES", (*http_hooks.HTTPX_MODULES, missing))
    calls: list[str] = []
    real = importlib.util.find_spec

    def counting(name: str, *args: Any) -> Any:
        calls.append(name)
        return real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", counting)
    for i in range(50):  # as a run does: a hook added and removed around every trial
        hook = _Recorder(f"h{i}", [])
        http_hooks.add_hook(hook)
        http_hooks.remove_hook(hook)
    assert calls.count(missing) == 1


def test_hooks__run_outermost_first_around_a_real_request(server_url: str) -> None:
    seen: list[str] = []
    inner, outer = _Recorder("inner", seen), _Recorder("outer", seen)
    http_hooks.add_hook(inner)
    http_hooks.add_hook(outer, outer=True)
    http_hooks.add_hook(inner)  # a second add of the same hook does nothing
    try:
        with httpx.Client() as client:
            assert client.get(server_url).status_code == 200
    finally:
        http_hooks.remove_hook(inner)
        http_hooks.remove_hook(outer)
    assert seen == ["outer>", "inner>", "<inner", "<outer"]
    with httpx.Client() as client:  # removed: the request goes straight to httpx
        client.get(server_url)
    assert seen == ["outer>", "inner>", "<inner", "<outer"]
