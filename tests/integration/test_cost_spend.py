"""What a run spends, against the loopback OpenAI-compatible server: every attempt of a retried trial
is charged to --budget-usd (and its usage kept in ``attempts``), answers replayed from the response
cache keep their usage in the record but are not charged, and run_eval meters the task's calls.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import openai
import pytest

from agent_evals import BaseAgent, TaskResult, run_eval_async
from agent_evals.adapters.cache.store import ResponseCache
from agent_evals.benchmark.runner import run_benchmark_async
from agent_evals.core.eval_record import eval_result_to_run_record
from agent_evals.core.types import EvalConfig, ExampleData, Score
from agent_evals.cost.budget import budgeted
from agent_evals.cost.prices import use_table
from agent_evals.run.session import RunBuilder, run_paths
from agent_evals.schemas import load_run_schema
from servers.loopback_http import Failure
from servers.openai_server import OpenAIServer, TextAnswer

# gpt-4o: $2.50 per million input tokens, so one PAID answer costs $0.0025
PAID = {"prompt_tokens": 1000, "completion_tokens": 0}
ONE_CALL = 0.0025
RATE_LIMITED = Failure(429, {"Retry-After": "0"}, "rate limited")


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        yield running


@pytest.fixture(autouse=True)
def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(tmp_path)  # no agent-evals.yaml: the built-in price table
    monkeypatch.delenv("AGENT_EVALS_BUDGET_USD", raising=False)
    use_table(None)
    yield
    use_table(None)


BENCH = """
benchmark: spend
execution: {runs_per_scenario: 1, n_parallel_runs: 1}
capabilities:
  - name: cap
    scenarios:
      - {id: first, prompt: go, success: {output: {contains: ok}}}
      - {id: second, prompt: go, success: {output: {contains: ok}}}
"""


class TwoCallAgent(BaseAgent):
    """A paid call, then a second call (the one the server rate-limits on a first attempt)."""

    def __init__(self, base_url: str) -> None:
        self.client = openai.AsyncOpenAI(base_url=base_url, api_key="sk-test", max_retries=0)

    async def run_case(self, prompt: str, **context: Any) -> TaskResult:
        for _ in range(2):
            reply = await self.client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": prompt}]
            )
        return TaskResult(output=reply.choices[0].message.content or "")


def _free(text: str = "ok") -> TextAnswer:
    return TextAnswer(text, usage={"prompt_tokens": 0, "completion_tokens": 0})


async def test_budget__a_benchmark_trials_failed_attempt_is_charged__the_budget_stops_the_next_trial(
    server: OpenAIServer, tmp_path: Path
) -> None:
    # attempt 1 of `first` pays, then is rate-limited; attempt 2 pays again: $0.005 spent >= $0.004
    server.script(TextAnswer("ok", usage=PAID), RATE_LIMITED, TextAnswer("ok", usage=PAID), _free())
    server.responder = lambda body: _free()
    path = tmp_path / "bench.yaml"
    path.write_text(BENCH, encoding="utf-8")
    with budgeted(0.004) as budget:
        result = await run_benchmark_async(path, TwoCallAgent(server.base_url), retry_errors=1)
    assert budget is not None
    assert budget.spent_usd == pytest.approx(2 * ONE_CALL)
    assert server.chat_count == 4  # `second` never started
    assert result.complete is False and budget.skipped == 1
    trial = result.to_suite().cases[0].trials[0]
    assert trial.error is None and trial.attempts is not None
    assert trial.attempts[0].usage is not None
    assert trial.attempts[0].usage.cost_usd == pytest.approx(ONE_CALL)
    assert trial.usage is not None and trial.usage.cost_usd == pytest.approx(ONE_CALL)  # the final attempt


EVALS = """
import os
import openai
from agent_evals import EvalContext, eval

client = openai.OpenAI(base_url=os.environ["MODEL_URL"], api_key="sk-test", max_retries=0)

@eval(cases=[{"id": f"c{n}", "input": f"q{n}"} for n in range(3)])
def test_paid(ctx: EvalContext):
    client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": ctx.input}])
    ctx.output = "ok"
"""


def _evals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: OpenAIServer, text: str = EVALS) -> None:
    monkeypatch.setenv("MODEL_URL", server.base_url)
    folder = tmp_path / "evals"
    folder.mkdir(exist_ok=True)
    (folder / "eval_paid.py").write_text(textwrap.dedent(text), encoding="utf-8")


def test_budget__an_eval_trials_rate_limited_attempts_are_charged_and_kept_in_the_record(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _evals(tmp_path, monkeypatch, server, EVALS.replace("range(3)", "range(1)").replace(
        '    ctx.output = "ok"',
        '    client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "2"}])\n'
        '    ctx.output = "ok"',
    ))  # fmt: skip
    server.script(TextAnswer("ok", usage=PAID), RATE_LIMITED, TextAnswer("ok", usage=PAID), _free())
    record = run_paths(["evals"], builder=RunBuilder(env={}), budget_usd=1.0, retry_errors=1)
    jsonschema.validate(record.model_dump(mode="json", by_alias=True, exclude_none=True), load_run_schema())
    [trial] = record.suites[0].cases[0].trials
    assert trial.error is None and trial.attempts is not None and len(trial.attempts) == 1
    assert trial.attempts[0].reason == "HTTP 429"
    assert trial.attempts[0].usage is not None
    assert trial.attempts[0].usage.cost_usd == pytest.approx(ONE_CALL)
    assert record.run.budget is not None
    assert record.run.budget.spent_usd == pytest.approx(2 * ONE_CALL)  # both attempts paid


def test_budget__reached_exactly_by_the_last_trial__complete_and_nothing_skipped(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _evals(tmp_path, monkeypatch, server)
    server.responder = lambda body: TextAnswer("ok", usage=PAID)
    record = run_paths(["evals"], builder=RunBuilder(env={}), budget_usd=3 * ONE_CALL)
    assert server.chat_count == 3
    assert record.run.complete is True and record.run.budget is not None
    assert record.run.budget.skipped_trials == 0


def test_budget__reached_exactly_before_the_last_trial__that_trial_never_starts(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _evals(tmp_path, monkeypatch, server)
    server.responder = lambda body: TextAnswer("ok", usage=PAID)
    record = run_paths(["evals"], builder=RunBuilder(env={}), budget_usd=2 * ONE_CALL)
    assert server.chat_count == 2
    assert record.run.complete is False and record.run.incomplete_reason == "budget"
    assert record.run.budget is not None and record.run.budget.skipped_trials == 1


def test_budget__record_mode_charges__replay_mode_keeps_the_usage_but_charges_nothing__a_miss_fails(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _evals(tmp_path, monkeypatch, server)
    server.responder = lambda body: TextAnswer("ok", usage=PAID)
    folder = tmp_path / "cache"
    with ResponseCache("record", folder).activate():
        recorded = run_paths(["evals"], builder=RunBuilder(env={}), budget_usd=1.0)
    assert server.chat_count == 3
    assert recorded.run.budget is not None
    assert recorded.run.budget.spent_usd == pytest.approx(3 * ONE_CALL)  # live calls are paid for
    assert all(t.usage and t.usage.replayed is None for c in recorded.suites[0].cases for t in c.trials)

    # replayed answers cost nothing: a budget below one live call lets every trial run
    with ResponseCache("replay", folder).activate():
        replayed = run_paths(["evals"], builder=RunBuilder(env={}), budget_usd=ONE_CALL / 2)
    assert server.chat_count == 3
    assert replayed.run.complete is True and replayed.run.budget is not None
    assert replayed.run.budget.spent_usd == 0.0
    trials = [t for c in replayed.suites[0].cases for t in c.trials]
    assert len(trials) == 3 and all(t.passed for t in trials)
    for trial in trials:  # the usage stays for gating vs the baseline, marked replayed
        assert trial.usage is not None and trial.usage.cost_usd == pytest.approx(ONE_CALL)
        assert trial.usage.replayed is not None
        assert (trial.usage.replayed.calls, trial.usage.replayed.input_tokens) == (1, 1000)
        assert trial.usage.replayed.cost_usd == pytest.approx(ONE_CALL)

    # a request the cache never saw: the trial fails loudly, nothing goes out, nothing is charged
    _evals(tmp_path, monkeypatch, server, EVALS.replace('f"q{n}"', 'f"changed {n}"'))
    with ResponseCache("replay", folder).activate():
        missed = run_paths(["evals"], builder=RunBuilder(env={}), budget_usd=1.0)
    assert server.chat_count == 3
    errors = [t.error for c in missed.suites[0].cases for t in c.trials]
    assert len(errors) == 3 and all(e is not None and e.startswith("CacheMiss") for e in errors)
    assert missed.run.budget is not None and missed.run.budget.spent_usd == 0.0


def says_ok(result: TaskResult, expected: Any = None, **_: Any) -> Score:
    return Score(name="says_ok", value=float(result.output == "ok"), passed=result.output == "ok")


@pytest.mark.parametrize("kind", ["async", "sync", "sync-with-timeout"])
async def test_run_eval__the_tasks_openai_calls_are_metered_into_the_results_and_the_record(
    server: OpenAIServer, kind: str
) -> None:
    server.responder = lambda body: TextAnswer("ok", usage={"prompt_tokens": 1000, "completion_tokens": 100})
    async_client = openai.AsyncOpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)
    sync_client = openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)

    async def async_task(prompt: str) -> TaskResult:
        reply = await async_client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": prompt}]
        )
        return TaskResult(output=reply.choices[0].message.content or "")

    def sync_task(prompt: str) -> TaskResult:
        reply = sync_client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": prompt}]
        )
        return TaskResult(output=reply.choices[0].message.content or "")

    config = EvalConfig(timeout_s=30) if kind == "sync-with-timeout" else None
    task = async_task if kind == "async" else sync_task
    result = await run_eval_async(
        task, [ExampleData(input="a"), ExampleData(input="b")], [says_ok], config=config
    )
    cost = (1000 * 2.50 + 100 * 10.0) / 1e6
    for example in result.examples:
        assert example.error is None and example.usage is not None
        assert (example.usage["input_tokens"], example.usage["output_tokens"]) == (1000, 100)
        assert example.usage["cost_usd"] == pytest.approx(cost)
        assert example.usage["models"]["gpt-4o"]["calls"] == 1
    record = eval_result_to_run_record(result)
    trials = [t for c in record.suites[0].cases for t in c.trials]
    assert [t.usage.input_tokens if t.usage else None for t in trials] == [1000, 1000]


async def test_run_eval__a_retried_attempts_usage_is_kept_and_the_tasks_own_report_wins(
    server: OpenAIServer,
) -> None:
    server.script(TextAnswer("ok", usage=PAID), RATE_LIMITED, TextAnswer("ok", usage=PAID), _free())
    client = openai.AsyncOpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)

    async def task(prompt: str) -> TaskResult:
        for _ in range(2):
            reply = await client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": prompt}]
            )
        return TaskResult(output=reply.choices[0].message.content or "", context={"usage": {"cost_usd": 1.0}})

    with budgeted(10.0) as budget:
        result = await run_eval_async(
            task, [ExampleData(input="a")], [says_ok], config=EvalConfig(retry_errors=1)
        )
    [example] = result.examples
    assert example.error is None
    assert example.attempts[0]["usage"]["cost_usd"] == pytest.approx(ONE_CALL)
    assert example.usage is not None and example.usage["cost_usd"] == 1.0  # the task's own accounting
    assert budget is not None and budget.spent_usd == pytest.approx(ONE_CALL + 1.0)
