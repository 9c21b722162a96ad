"""--cache record|replay against the loopback OpenAI- and Ollama-compatible servers, which count requests.

Model calls go through the hooks the run sets itself (the httpx hook chain, LangChain's global LLM
cache), with no change to the clients; a hit never reaches the server.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from agent_evals import BaseAgent, Score, TaskResult
from agent_evals.adapters.cache.store import ResponseCache, open_cache
from agent_evals.benchmark.runner import run_benchmark_async
from agent_evals.errors import UsageError
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


BENCH = """
benchmark: cached
execution: {{runs_per_scenario: {trials}, n_parallel_runs: 1}}
capabilities:
  - name: cap
    scenarios:
      - id: case
        prompt: {prompt}
        success:
          output: {{contains: ok}}
"""


class OpenAIAgent(BaseAgent):
    """Calls the model once per trial (twice with ``calls=2``) with a plain OpenAI client."""

    def __init__(self, base_url: str, calls: int = 1, api_key: str = "sk-test-secret-1") -> None:
        self.client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0)
        self.calls = calls

    async def run_case(self, prompt: str, **context: Any) -> TaskResult:
        texts = []
        for _ in range(self.calls):
            reply = await self.client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": prompt}]
            )
            texts.append(reply.choices[0].message.content or "")
        return TaskResult(output=" ".join(texts))


async def _bench(
    tmp_path: Path, agent: BaseAgent, cache: ResponseCache | None, *, trials: int = 1, prompt: str = "go",
    retries: int = 0,
) -> list[Any]:  # fmt: skip
    path = tmp_path / "bench.yaml"
    path.write_text(BENCH.format(trials=trials, prompt=prompt), encoding="utf-8")
    if cache is None:
        result = await run_benchmark_async(path, agent, retry_errors=retries)
    else:
        with cache.activate():
            result = await run_benchmark_async(path, agent, retry_errors=retries)
    return list(result.to_suite().cases[0].trials)


async def test_cache__record_then_replay__the_server_sees_no_second_call_and_trials_are_marked(
    server: OpenAIServer, tmp_path: Path
) -> None:
    folder = tmp_path / "cache"
    server.script(TextAnswer("ok one"), TextAnswer("ok two"))
    recorded = await _bench(tmp_path, OpenAIAgent(server.base_url), ResponseCache("record", folder), trials=2)
    assert server.chat_count == 2
    assert [t.cache.model_dump() for t in recorded] == [
        {"mode": "record", "replayed": 0, "recorded": 1, "missed": 0}
    ] * 2
    replayed = await _bench(tmp_path, OpenAIAgent(server.base_url), ResponseCache("replay", folder), trials=2)
    assert server.chat_count == 2  # nothing reached the server
    assert [t.output for t in replayed] == ["ok one", "ok two"]  # each trial its own answer
    assert [t.passed for t in replayed] == [True, True]
    assert [(t.cache.mode, t.cache.replayed) for t in replayed] == [("replay", 1), ("replay", 1)]


async def test_cache__trial_2_never_replays_trial_1__a_miss_errors_it_without_a_live_call(
    server: OpenAIServer, tmp_path: Path
) -> None:
    folder = tmp_path / "cache"
    server.script(TextAnswer("ok"))
    await _bench(tmp_path, OpenAIAgent(server.base_url), ResponseCache("record", folder), trials=1)
    server.script(TextAnswer("ok live"))  # would answer a live call, which must not happen
    trials = await _bench(tmp_path, OpenAIAgent(server.base_url), ResponseCache("replay", folder), trials=2)
    assert server.chat_count == 1
    assert trials[0].passed and trials[0].error is None
    assert not trials[1].passed
    assert trials[1].error is not None and trials[1].error.startswith("CacheMiss: --cache replay")
    assert "trial 1" in trials[1].error
    assert trials[1].cache is not None and trials[1].cache.missed >= 1


async def test_cache__a_changed_prompt_is_a_miss__byte_identical_requests_share_entries(
    server: OpenAIServer, tmp_path: Path
) -> None:
    folder = tmp_path / "cache"
    server.script(TextAnswer("ok"))
    await _bench(tmp_path, OpenAIAgent(server.base_url), ResponseCache("record", folder), prompt="go")
    candidate = await _bench(
        tmp_path, OpenAIAgent(server.base_url), ResponseCache("replay", folder), prompt="go!"
    )
    assert candidate[0].error is not None and "CacheMiss" in candidate[0].error
    # another API key changes headers, not the request: still the same entry
    same = await _bench(
        tmp_path, OpenAIAgent(server.base_url, api_key="sk-other-key-2"), ResponseCache("replay", folder)
    )
    assert same[0].passed and server.chat_count == 1
    stored = "".join(p.read_text(encoding="utf-8") for p in folder.iterdir())
    assert "sk-test-secret-1" not in stored and "authorization" not in stored.lower()


async def test_cache__identical_requests_in_one_trial_replay_in_order(
    server: OpenAIServer, tmp_path: Path
) -> None:
    folder = tmp_path / "cache"
    server.script(TextAnswer("ok first"), TextAnswer("ok second"))
    await _bench(tmp_path, OpenAIAgent(server.base_url, calls=2), ResponseCache("record", folder))
    trials = await _bench(tmp_path, OpenAIAgent(server.base_url, calls=2), ResponseCache("replay", folder))
    assert trials[0].output == "ok first ok second"
    assert trials[0].cache is not None and trials[0].cache.replayed == 2
    assert server.chat_count == 2


async def test_cache__an_agent_that_swallows_the_miss_is_still_errored(
    server: OpenAIServer, tmp_path: Path
) -> None:
    class Forgiving(OpenAIAgent):
        async def run_case(self, prompt: str, **context: Any) -> TaskResult:
            try:
                return await super().run_case(prompt, **context)
            except Exception:
                return TaskResult(output="ok (fallback)")

    (tmp_path / "cache").mkdir()
    trials = await _bench(tmp_path, Forgiving(server.base_url), ResponseCache("replay", tmp_path / "cache"))
    assert server.chat_count == 0
    assert not trials[0].passed and trials[0].error is not None and "CacheMiss" in trials[0].error


async def test_cache__record_mode_keeps_no_429__the_retried_answer_is_what_replays(
    server: OpenAIServer, tmp_path: Path
) -> None:
    folder = tmp_path / "cache"
    server.script(Failure(429, {"Retry-After": "0"}), TextAnswer("ok after retry"))
    recorded = await _bench(
        tmp_path, OpenAIAgent(server.base_url), ResponseCache("record", folder), retries=1
    )
    assert recorded[0].passed and recorded[0].attempts is not None and len(recorded[0].attempts) == 1
    assert len(list(folder.iterdir())) == 1
    replayed = await _bench(
        tmp_path, OpenAIAgent(server.base_url), ResponseCache("replay", folder), retries=1
    )
    assert replayed[0].output == "ok after retry" and replayed[0].attempts is None
    assert server.chat_count == 2


async def test_cache__replayed_answers_are_metered_like_live_ones(
    server: OpenAIServer, tmp_path: Path
) -> None:
    folder = tmp_path / "cache"
    server.script(TextAnswer("ok"))
    live = await _bench(tmp_path, OpenAIAgent(server.base_url), ResponseCache("record", folder))
    replayed = await _bench(tmp_path, OpenAIAgent(server.base_url), ResponseCache("replay", folder))
    assert live[0].usage is not None and live[0].usage.input_tokens == 10
    assert replayed[0].usage is not None
    assert (replayed[0].usage.input_tokens, replayed[0].usage.output_tokens) == (10, 5)


async def test_cache__off__the_hook_passes_everything_through(server: OpenAIServer, tmp_path: Path) -> None:
    server.script(TextAnswer("ok"), TextAnswer("ok"))
    trials = await _bench(tmp_path, OpenAIAgent(server.base_url), None, trials=2)
    assert server.chat_count == 2 and all(t.cache is None for t in trials)


def test_cache__a_call_outside_any_trial__goes_out_live_uncached_and_is_listed(
    server: OpenAIServer, tmp_path: Path
) -> None:
    client = httpx.Client()
    server.script(TextAnswer("ok"), TextAnswer("ok"))
    with ResponseCache("record", tmp_path / "c").activate() as recording:
        assert client.post(f"{server.base_url}/chat/completions", json={"model": "m"}).status_code == 200
    assert list((tmp_path / "c").iterdir()) == [] and len(recording.outside) == 1
    with ResponseCache("replay", tmp_path / "c").activate() as replaying:
        assert client.post(f"{server.base_url}/chat/completions", json={"model": "m"}).status_code == 200
    assert server.chat_count == 2
    assert replaying.outside == ["POST http://127.0.0.1/v1/chat/completions"]


@pytest.mark.parametrize(
    ("mode", "folder", "message"),
    [("replay", "missing", "does not exist"), ("sometimes", "c", "record, replay or off")],
)
def test_open_cache__a_bad_mode_or_a_missing_replay_folder_is_a_usage_error(
    tmp_path: Path, mode: str, folder: str, message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        open_cache(mode, tmp_path / folder)
    assert open_cache("off", tmp_path / "x") is None


LANGCHAIN_EVAL = """
    import os

    from langchain_ollama import ChatOllama
    from agent_evals import EvalContext, eval

    model = ChatOllama(model="gpt-oss:20b", base_url=os.environ["TEST_OLLAMA"])


    @eval(input="{prompt}", trials=2)
    async def test_model(ctx: EvalContext) -> None:
        reply = await model.ainvoke(ctx.input)
        ctx.output = reply.content
        assert "ok" in ctx.output
"""


def _run_cli(tmp_path: Path, ollama: OllamaServer, *args: str, prompt: str = "hello") -> tuple[Any, Any]:
    (tmp_path / "eval_lc.py").write_text(
        textwrap.dedent(LANGCHAIN_EVAL.format(prompt=prompt)), encoding="utf-8"
    )
    out = tmp_path / "run.json"
    out.unlink(missing_ok=True)
    env = {"PATH": "/usr/bin:/bin", "TEST_OLLAMA": ollama.root_url, "HOME": str(tmp_path)}
    done = subprocess.run(
        [CLI, "run", "eval_lc.py", "--output", str(out), *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    record = json.loads(out.read_text(encoding="utf-8")) if out.exists() else None
    return done, record


def _trials(record: Any) -> list[dict[str, Any]]:
    trials: list[dict[str, Any]] = record["suites"][0]["cases"][0]["trials"]
    return trials


def test_run_cli__langchain_cache_hook__record_then_replay_counted_on_the_ollama_server(
    ollama: OllamaServer, tmp_path: Path
) -> None:
    ollama.script(OllamaAnswer("ok 1"), OllamaAnswer("ok 2"))
    done, record = _run_cli(tmp_path, ollama, "--cache", "record", "--cache-dir", "cache")
    assert done.returncode == 0, done.stderr
    assert ollama.chat_count == 2
    assert [t["cache"]["recorded"] for t in _trials(record)] == [1, 1]

    done, record = _run_cli(tmp_path, ollama, "--cache", "replay", "--cache-dir", "cache")
    assert done.returncode == 0, done.stderr
    assert ollama.chat_count == 2  # both trials answered from the cache
    assert [t["output"] for t in _trials(record)] == ["ok 1", "ok 2"]
    assert [t["cache"]["replayed"] for t in _trials(record)] == [1, 1]
    # LangChain's cache answered without an HTTP call: the tokens are still counted, marked replayed
    for trial in _trials(record):
        assert trial["usage"]["input_tokens"] > 0 and trial["usage"]["output_tokens"] > 0
        assert trial["usage"]["replayed"]["calls"] == 1
        assert trial["usage"]["replayed"]["input_tokens"] == trial["usage"]["input_tokens"]

    done, record = _run_cli(tmp_path, ollama, "--cache", "replay", "--cache-dir", "cache", prompt="changed")
    assert ollama.chat_count == 2  # a miss is never a live call
    assert all(t["error"].startswith("CacheMiss") and not t["passed"] for t in _trials(record))


def test_run_cli__replay_without_a_cache_folder__exit_2_naming_it(
    ollama: OllamaServer, tmp_path: Path
) -> None:
    done, _ = _run_cli(tmp_path, ollama, "--cache", "replay", "--cache-dir", "nowhere")
    assert done.returncode == 2
    assert "nowhere does not exist" in done.stderr and ollama.chat_count == 0


def test_run_cli__replay_warns_about_trials_that_replayed_nothing(
    ollama: OllamaServer, tmp_path: Path
) -> None:
    (tmp_path / "cache").mkdir()
    (tmp_path / "eval_plain.py").write_text(
        "from agent_evals import EvalContext, eval\n\n\n@eval(input='x')\n"
        "def test_plain(ctx: EvalContext) -> None:\n    ctx.output = 'no model'\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [CLI, "run", "eval_plain.py", "--cache", "replay", "--cache-dir", "cache"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "1 trial(s) replayed no model call" in done.stderr


def _chat_task(server: OpenAIServer) -> Any:
    """A library task that asks the loopback server's chat endpoint once and answers with its reply."""
    client = openai.AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0)

    async def task(prompt: str) -> TaskResult:
        reply = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": prompt}]
        )
        return TaskResult(output=reply.choices[0].message.content or "")

    return task


def says_ok(result: TaskResult, expected: Any = None, **_: Any) -> Score:
    """Passes when the task answered exactly "ok"."""
    return Score(name="says_ok", value=1.0, passed=result.output == "ok")


async def test_cache__library_run_eval__replays_and_a_miss_is_an_errored_example(
    server: OpenAIServer, tmp_path: Path
) -> None:
    from agent_evals import run_eval_async
    from agent_evals.core.types import ExampleData

    task = _chat_task(server)

    folder = tmp_path / "cache"
    server.script(TextAnswer("ok"))
    with ResponseCache("record", folder).activate():
        await run_eval_async(task, [ExampleData(input="a")], [says_ok])
    with ResponseCache("replay", folder).activate():
        result = await run_eval_async(task, [ExampleData(input="a"), ExampleData(input="b")], [says_ok])
    hit, miss = result.examples
    assert server.chat_count == 1
    assert hit.error is None and hit.scores["says_ok"].passed and hit.cache == {
        "mode": "replay", "replayed": 1, "recorded": 0, "missed": 0
    }  # fmt: skip
    assert miss.error is not None and miss.error.startswith("CacheMiss") and not miss.scores


async def test_cache__a_judge_scorer_in_replay_mode__calls_live_and_the_trial_still_replays(
    server: OpenAIServer, tmp_path: Path
) -> None:
    from agent_evals import run_eval_async
    from agent_evals.core.types import ExampleData

    client = openai.AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0)
    task = _chat_task(server)

    async def judge(result: TaskResult, expected: Any = None, **_: Any) -> Score:
        verdict = await client.chat.completions.create(
            model="judge", messages=[{"role": "user", "content": f"is {result.output!r} ok?"}]
        )
        passed = verdict.choices[0].message.content == "yes"
        return Score(name="judge", value=float(passed), passed=passed)

    folder = tmp_path / "cache"
    server.script(TextAnswer("ok"), TextAnswer("yes"))
    with ResponseCache("record", folder).activate():
        await run_eval_async(task, [ExampleData(input="a")], [judge])
    server.script(TextAnswer("yes"))
    with ResponseCache("replay", folder).activate() as replaying:
        result = await run_eval_async(task, [ExampleData(input="a")], [judge])
    [example] = result.examples
    assert example.error is None and example.scores["judge"].passed
    assert example.cache is not None and example.cache["replayed"] == 1
    assert server.chat_count == 3  # the agent's call was replayed; the judge's two went out live
    assert len(replaying.outside) == 1


async def test_cache__library_run_eval__a_repeated_example_never_replays_the_first_ones_answer(
    server: OpenAIServer, tmp_path: Path
) -> None:
    from agent_evals import run_eval_async
    from agent_evals.core.types import ExampleData

    task = _chat_task(server)

    folder = tmp_path / "cache"
    server.script(TextAnswer("ok 1"), TextAnswer("b"), TextAnswer("ok 2"))
    same = ExampleData(input="a")
    dataset = [same, ExampleData(input="b"), same]  # the same example twice: like two trials of a case
    with ResponseCache("record", folder).activate():
        live = await run_eval_async(task, dataset, [says_ok], config={"max_concurrency": 1})
    with ResponseCache("replay", folder).activate():
        replayed = await run_eval_async(task, dataset, [says_ok], config={"max_concurrency": 1})
    assert server.chat_count == 3
    assert [e.output for e in replayed.examples] == [e.output for e in live.examples] == ["ok 1", "b", "ok 2"]
    with ResponseCache("replay", folder).activate():  # a third copy has no answer of its own: a miss
        more = await run_eval_async(task, [*dataset, same], [says_ok], config={"max_concurrency": 1})
    assert more.examples[3].error is not None and more.examples[3].error.startswith("CacheMiss")
    assert server.chat_count == 3
