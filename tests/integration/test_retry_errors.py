"""--retry-errors against the loopback OpenAI- and Ollama-compatible servers, in every layer.

The SDK clients are built with ``max_retries=0`` so the retries seen are ours; the servers count
the requests they received, and send ``Retry-After: 0`` (or a small value) to keep the tests fast.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import openai
import pytest

from agent_evals import BaseAgent, TaskResult, run_eval_async
from agent_evals.benchmark.runner import run_benchmark_async
from agent_evals.core.types import EvalConfig, ExampleData, Score
from agent_evals.schemas import load_run_schema
from servers.loopback_http import Failure
from servers.ollama_server import OllamaAnswer, OllamaServer
from servers.openai_server import OpenAIServer, TextAnswer

CLI = str(Path(sys.executable).with_name("agent-evals"))


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        yield running


@pytest.fixture
def ollama() -> Iterator[OllamaServer]:
    with OllamaServer() as running:
        yield running


def _client(server: OpenAIServer) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.base_url, api_key="test-key", max_retries=0)


def says_ok(result: TaskResult, expected: Any = None, **_: Any) -> Score:
    return Score(name="says_ok", value=float(result.output == "ok"), passed=result.output == "ok")


async def _library(server: OpenAIServer, retries: int, timeout: float | None = None) -> Any:
    client = _client(server)

    async def task(prompt: str) -> TaskResult:
        reply = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": prompt}]
        )
        return TaskResult(output=reply.choices[0].message.content or "")

    config = EvalConfig(retry_errors=retries, timeout_s=timeout)
    result = await run_eval_async(task, [ExampleData(input="go")], [says_ok], config=config)
    return result.examples[0]


BENCH = """
benchmark: retries
execution: {runs_per_scenario: 1, n_parallel_runs: 1}
capabilities:
  - name: cap
    scenarios:
      - id: case
        prompt: go
        success:
          output: {contains: ok}
"""


async def _benchmark(server: OpenAIServer, retries: int, folder: Path) -> Any:
    path = folder / "bench.yaml"
    path.write_text(BENCH, encoding="utf-8")
    client = _client(server)
    states: list[dict[str, Any]] = []

    class Agent(BaseAgent):
        async def run_case(self, prompt: str, **context: Any) -> TaskResult:
            states.append(context)
            reply = await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": prompt}]
            )
            return TaskResult(output=reply.choices[0].message.content or "")

    result = await run_benchmark_async(path, Agent(), retry_errors=retries)
    trial = result.to_suite().cases[0].trials[0]
    assert all(c["trial"] == 0 for c in states)  # every attempt is the same trial, with a fresh context
    assert len({id(c) for c in states}) == len(states)
    return trial


@pytest.mark.parametrize("layer", ["library", "benchmark"])
@pytest.mark.parametrize(
    ("failure", "reason"),
    [
        (Failure(429, {"Retry-After": "0"}, "rate limited"), "HTTP 429"),
        (Failure(503, {"Retry-After": "0"}, "overloaded"), "HTTP 503"),
    ],
    ids=["429-retry-after", "503"],
)
async def test_retry_errors__an_infrastructure_error_then_success__passes_with_the_error_kept_in_attempts(
    server: OpenAIServer, tmp_path: Path, layer: str, failure: Failure, reason: str
) -> None:
    server.script(failure, TextAnswer("ok"))
    trial = await (_library(server, 2) if layer == "library" else _benchmark(server, 2, tmp_path))
    attempts = [a if isinstance(a, dict) else a.model_dump() for a in trial.attempts or []]
    assert server.chat_count == 2
    assert trial.error is None
    assert [a["reason"] for a in attempts] == [reason]
    assert attempts[0]["waited_s"] == 0.0
    assert str(failure.status) in attempts[0]["error"]


async def test_retry_errors__waits_as_retry_after_says(server: OpenAIServer) -> None:
    server.script(Failure(429, {"Retry-After": "1"}), TextAnswer("ok"))
    example = await _library(server, 1)
    assert example.error is None and example.attempts[0]["waited_s"] == 1.0


@pytest.mark.parametrize("layer", ["library", "benchmark"])
async def test_retry_errors__used_up__the_last_error_is_the_trial(
    server: OpenAIServer, tmp_path: Path, layer: str
) -> None:
    server.script(*[Failure(503, {"Retry-After": "0"})] * 3, TextAnswer("ok"))
    trial = await (_library(server, 2) if layer == "library" else _benchmark(server, 2, tmp_path))
    assert server.chat_count == 3
    assert trial.error is not None and "503" in trial.error
    assert trial.attempts is not None and len(trial.attempts) == 2


async def test_retry_errors__a_400_is_never_retried(server: OpenAIServer) -> None:
    server.script(Failure(400, message="bad request"), TextAnswer("ok"))
    example = await _library(server, 3)
    assert server.chat_count == 1
    assert example.error is not None and "BadRequestError" in example.error
    assert example.attempts == []


async def test_retry_errors__off_by_default__one_request(server: OpenAIServer) -> None:
    server.script(Failure(503, {"Retry-After": "0"}), TextAnswer("ok"))
    example = await _library(server, 0)
    assert server.chat_count == 1 and example.error is not None


def test_retry_errors__ollama_503_through_its_client__retried(ollama: OllamaServer, tmp_path: Path) -> None:
    import ollama as ollama_sdk

    ollama.script(Failure(503, {"Retry-After": "0"}), OllamaAnswer("ok"))
    client = ollama_sdk.Client(host=ollama.root_url)

    def task(prompt: str) -> TaskResult:
        reply = client.chat(model="gpt-oss:20b", messages=[{"role": "user", "content": prompt}], stream=False)
        return TaskResult(output=reply.message.content or "")

    import asyncio

    result = asyncio.run(
        run_eval_async(task, [ExampleData(input="go")], [says_ok], config=EvalConfig(retry_errors=1))
    )
    example = result.examples[0]
    assert ollama.chat_count == 2
    assert example.error is None and example.scores["says_ok"].passed
    assert example.attempts[0]["reason"] == "HTTP 503"


EVAL_FILE = """
    import os

    import openai
    from agent_evals import EvalContext, eval

    client = openai.OpenAI(base_url=os.environ["TEST_BASE_URL"], api_key="test-key", max_retries=0)


    @eval(input="go", trials=2)
    def test_model(ctx: EvalContext) -> None:
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": ctx.input}])
        ctx.output = reply.choices[0].message.content
        assert ctx.output == "ok"
"""


def _run_cli(
    tmp_path: Path, server: OpenAIServer, *args: str
) -> tuple[subprocess.CompletedProcess[str], Any]:
    (tmp_path / "eval_model.py").write_text(textwrap.dedent(EVAL_FILE), encoding="utf-8")
    out = tmp_path / "run.json"
    env = {"PATH": "/usr/bin:/bin", "TEST_BASE_URL": server.base_url, "HOME": str(tmp_path)}
    done = subprocess.run(
        [CLI, "run", "eval_model.py", "--output", str(out), *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    record = json.loads(out.read_text(encoding="utf-8")) if out.exists() else None
    return done, record


def test_run_cli__retry_errors_on_code_first_evals__records_attempts_valid_against_the_schema(
    server: OpenAIServer, tmp_path: Path
) -> None:
    server.script(Failure(429, {"Retry-After": "0"}), TextAnswer("ok"), TextAnswer("ok"))
    done, record = _run_cli(tmp_path, server, "--retry-errors", "1")
    assert done.returncode == 0, done.stderr
    jsonschema.validate(record, load_run_schema())
    trials = record["suites"][0]["cases"][0]["trials"]
    assert [t["passed"] for t in trials] == [True, True]
    assert [len(t.get("attempts") or []) for t in trials] == [1, 0]
    assert trials[0]["attempts"][0]["reason"] == "HTTP 429"
    assert server.chat_count == 3


def test_run_cli__a_failed_assertion_is_never_retried(server: OpenAIServer, tmp_path: Path) -> None:
    server.script(TextAnswer("not ok"), TextAnswer("ok"), TextAnswer("ok"))
    done, record = _run_cli(tmp_path, server, "--retry-errors", "3")
    assert done.returncode == 0, done.stderr
    trials = record["suites"][0]["cases"][0]["trials"]
    assert [t["passed"] for t in trials] == [False, True]
    assert all("attempts" not in t for t in trials)
    assert server.chat_count == 2


def test_ci_cli__retry_errors_reaches_the_child_run(server: OpenAIServer, tmp_path: Path) -> None:
    server.script(Failure(503, {"Retry-After": "0"}), TextAnswer("ok"), TextAnswer("ok"))
    (tmp_path / "eval_model.py").write_text(textwrap.dedent(EVAL_FILE), encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "TEST_BASE_URL": server.base_url, "HOME": str(tmp_path)}
    done = subprocess.run(
        [CLI, "ci", "eval_model.py", "--retry-errors", "1", "--output-dir", "out"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "out" / "run.json").read_text(encoding="utf-8"))
    trials = record["suites"][0]["cases"][0]["trials"]
    assert [t["passed"] for t in trials] == [True, True]
    assert trials[0]["attempts"][0]["reason"] == "HTTP 503"
