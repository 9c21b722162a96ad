"""--cache record|replay for clients on the standard library's http.client: urllib, http.client, requests.

Each client asks the loopback OpenAI-compatible server, which counts the requests that reach it:
a replayed answer or a refused miss never does.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import textwrap
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import requests

from agent_evals import BaseAgent, TaskResult
from agent_evals.adapters.cache.store import ResponseCache
from agent_evals.benchmark.runner import run_benchmark_async
from servers.openai_server import OpenAIServer, TextAnswer

CLI = str(Path(sys.executable).with_name("agent-evals"))
HEADERS = {"Content-Type": "application/json"}

Client = Callable[[str, bytes], bytes]
"""POST ``body`` to ``url`` and return the response body."""


def _urllib(url: str, body: bytes) -> bytes:
    request = urllib.request.Request(url, data=body, headers=HEADERS, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        data: bytes = response.read()
        return data


def _http_client(url: str, body: bytes) -> bytes:
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        connection.request("POST", parts.path, body=body, headers=HEADERS)
        return connection.getresponse().read()
    finally:
        connection.close()


def _requests(url: str, body: bytes) -> bytes:
    with requests.Session() as session:
        return session.post(url, data=body, headers=HEADERS, timeout=10).content


def _httpx(url: str, body: bytes) -> bytes:
    return httpx.post(url, content=body, headers=HEADERS, timeout=10).content


CLIENTS: dict[str, Client] = {"urllib.request": _urllib, "http.client": _http_client, "requests": _requests}


class ChatAgent(BaseAgent):
    """Asks the chat endpoint once per trial with ``client`` and answers with the reply's text."""

    def __init__(self, server: OpenAIServer, client: Client) -> None:
        self.url = f"{server.base_url}/chat/completions"
        self.client = client

    async def run_case(self, prompt: str, **context: Any) -> TaskResult:
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": prompt}]}).encode()
        reply = json.loads(self.client(self.url, body))
        return TaskResult(output=reply["choices"][0]["message"]["content"])


BENCH = """
benchmark: cached
execution: {runs_per_scenario: 1, n_parallel_runs: 1}
capabilities:
  - name: cap
    scenarios:
      - id: case
        prompt: go
        success:
          output: {contains: ok}
"""


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        yield running


async def _trial(tmp_path: Path, agent: BaseAgent, cache: ResponseCache | None) -> Any:
    path = tmp_path / "bench.yaml"
    path.write_text(BENCH, encoding="utf-8")
    if cache is None:
        result = await run_benchmark_async(path, agent)
    else:
        with cache.activate():
            result = await run_benchmark_async(path, agent)
    [trial] = result.to_suite().cases[0].trials
    return trial


@pytest.mark.parametrize("client", list(CLIENTS), ids=list(CLIENTS))
@pytest.mark.parametrize("situation", ["record_then_replay", "replay_without_entry", "off"])
async def test_cache__stdlib_clients__replay_never_calls_live_and_record_is_replayed(
    server: OpenAIServer, tmp_path: Path, client: str, situation: str
) -> None:
    agent = ChatAgent(server, CLIENTS[client])
    folder = tmp_path / "cache"
    folder.mkdir()
    server.script(TextAnswer("ok recorded"))
    if situation == "off":
        trial = await _trial(tmp_path, agent, None)
        assert (trial.output, trial.cache, server.chat_count) == ("ok recorded", None, 1)
        assert not any(folder.iterdir())
    elif situation == "replay_without_entry":
        trial = await _trial(tmp_path, agent, ResponseCache("replay", folder))
        assert server.chat_count == 0  # refused, never sent
        assert not trial.passed and trial.error is not None and trial.error.startswith("CacheMiss")
        assert "POST http://127.0.0.1:" in trial.error and "/v1/chat/completions" in trial.error
        assert trial.cache is not None and trial.cache.missed == 1
    else:
        recorded = await _trial(tmp_path, agent, ResponseCache("record", folder))
        assert (recorded.output, server.chat_count) == ("ok recorded", 1)
        assert recorded.cache is not None and recorded.cache.recorded == 1
        server.stop()  # replay needs no server: nothing is sent, no connection is opened
        replayed = await _trial(tmp_path, agent, ResponseCache("replay", folder))
        assert server.chat_count == 1
        assert replayed.passed and replayed.output == "ok recorded"
        assert replayed.cache is not None and (replayed.cache.replayed, replayed.cache.missed) == (1, 0)


@pytest.mark.parametrize(
    ("recorder", "replayer"),
    [(_httpx, _urllib), (_requests, _httpx), (_urllib, _http_client)],
    ids=["httpx_then_urllib", "requests_then_httpx", "urllib_then_http_client"],
)
async def test_cache__one_request_through_two_clients__shares_one_entry(
    server: OpenAIServer, tmp_path: Path, recorder: Client, replayer: Client
) -> None:
    folder = tmp_path / "cache"
    server.script(TextAnswer("ok shared"))
    await _trial(tmp_path, ChatAgent(server, recorder), ResponseCache("record", folder))
    trial = await _trial(tmp_path, ChatAgent(server, replayer), ResponseCache("replay", folder))
    assert (trial.output, trial.error, server.chat_count) == ("ok shared", None, 1)


def test_cache__outside_a_run__http_client_is_left_as_it_was(tmp_path: Path) -> None:
    before = (http.client.HTTPConnection.putrequest, http.client.HTTPConnection.send)
    with ResponseCache("record", tmp_path / "cache").activate():
        assert http.client.HTTPConnection.send is not before[1]
        with ResponseCache("record", tmp_path / "cache").activate():  # nested runs share the wrapping
            pass
        assert http.client.HTTPConnection.send is not before[1]
    assert (http.client.HTTPConnection.putrequest, http.client.HTTPConnection.send) == before


URLLIB_EVAL = """
    import json
    import os
    import urllib.request

    from agent_evals import EvalContext, eval


    @eval(input="{prompt}")
    def test_urllib(ctx: EvalContext) -> None:
        body = json.dumps({{"model": "m", "messages": [{{"role": "user", "content": ctx.input}}]}}).encode()
        request = urllib.request.Request(
            os.environ["TEST_OPENAI"] + "/chat/completions", data=body, method="POST",
            headers={{"Content-Type": "application/json"}},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            ctx.output = json.loads(response.read())["choices"][0]["message"]["content"]
        assert "ok" in ctx.output
"""


def _run(tmp_path: Path, server: OpenAIServer, mode: str, prompt: str = "hello") -> tuple[Any, Any]:
    (tmp_path / "eval_urllib.py").write_text(textwrap.dedent(URLLIB_EVAL.format(prompt=prompt)), "utf-8")
    out = tmp_path / "run.json"
    out.unlink(missing_ok=True)
    env = {"PATH": "/usr/bin:/bin", "TEST_OPENAI": server.base_url, "HOME": str(tmp_path)}
    if "PYTHONPATH" in os.environ:  # a checkout's own sources first, as the test process has them
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    done = subprocess.run(
        [CLI, "run", "eval_urllib.py", "--output", str(out), "--cache", mode, "--cache-dir", "cache"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    record = json.loads(out.read_text(encoding="utf-8")) if out.exists() else None
    return done, record


def test_run_cli__urllib_eval__record_then_replay_without_a_live_call_and_a_miss_errors(
    server: OpenAIServer, tmp_path: Path
) -> None:
    server.script(TextAnswer("ok from the model"))
    done, record = _run(tmp_path, server, "record")
    assert done.returncode == 0, done.stderr
    [trial] = record["suites"][0]["cases"][0]["trials"]
    assert trial["cache"]["recorded"] == 1 and server.chat_count == 1

    done, record = _run(tmp_path, server, "replay")
    assert done.returncode == 0, done.stderr
    [trial] = record["suites"][0]["cases"][0]["trials"]
    assert (trial["output"], trial["cache"]["replayed"], server.chat_count) == ("ok from the model", 1, 1)
    assert "replayed no model call" not in done.stderr

    done, record = _run(tmp_path, server, "replay", prompt="changed")
    [trial] = record["suites"][0]["cases"][0]["trials"]
    assert trial["error"].startswith("CacheMiss") and not trial["passed"]
    assert server.chat_count == 1  # a miss is never a live call
