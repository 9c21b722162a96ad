"""The one trial driver (core.trials): its semantics, table-driven, and the same through run_eval,
code-first evals and benchmarks (fault kinds, our timeout, the concurrency cap, the budget stop,
retries of infrastructure errors)."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from agent_evals.benchmark.agent import BaseAgent
from agent_evals.benchmark.runner import run_benchmark_async
from agent_evals.core import retry as retry_module
from agent_evals.core.executor import Attempted
from agent_evals.core.retry import RetryPolicy
from agent_evals.core.runner import run_eval_async
from agent_evals.core.trials import MAX_BATCH, TrialBody, _next_batch, drive, drive_sync
from agent_evals.core.types import EvalConfig, ExampleData, Score, TaskResult
from agent_evals.cost.budget import budgeted
from agent_evals.evals.context import EvalContext
from agent_evals.evals.result import EvalCaseResult
from agent_evals.evals.scheduler import Job, run_jobs
from agent_evals.evals.spec import EvalCaseSpec

COST = 0.01
"""What every trial of the layer tests reports spending."""

Act = Callable[[int], Awaitable[str]]
Finished = list[tuple[str | None, int]]
"""Per finished trial, in trial order: its error and how many earlier attempts it replaced."""

BENCH = """
benchmark: driver
execution: {{runs_per_scenario: 1, n_parallel_runs: 1{timeout}}}
capabilities:
  - name: cap
    scenarios:
      - id: case
        prompt: go
        success:
          output: {{contains: ok}}
"""


async def _library(
    act: Act, n: int, concurrency: int, retries: int, timeout: float | None, _: Path
) -> Finished:
    async def task(i: int) -> TaskResult:
        return TaskResult(output=await act(i), context={"usage": {"cost_usd": COST}})

    def passes(result: TaskResult, expected: Any = None) -> Score:
        return Score(name="passes", value=1.0, passed=True)

    config = EvalConfig(max_concurrency=concurrency, retry_errors=retries, timeout_s=timeout)
    result = await run_eval_async(task, [ExampleData(input=i) for i in range(n)], [passes], config=config)
    return [(e.error, len(e.attempts)) for e in sorted(result.examples, key=lambda e: e.index)]


async def _evals(
    act: Act, n: int, concurrency: int, retries: int, timeout: float | None, _: Path
) -> Finished:
    async def body(ctx: EvalContext) -> None:
        ctx.output = await act(ctx.input)
        ctx.store(usage={"cost_usd": COST})

    specs = [
        EvalCaseSpec(func=body, name="body", case_key=str(i), input=i, context_param="ctx", timeout=timeout)
        for i in range(n)
    ]
    results: dict[int, EvalCaseResult] = {}

    def keep(index: int, _trial: int, result: EvalCaseResult) -> None:
        results[index] = result

    jobs = [Job(i, 0) for i in range(n)]
    await run_jobs(specs, jobs, on_result=keep, concurrency=concurrency, retry=RetryPolicy(retries))
    return [(results[i].error, len(results[i].attempts)) for i in sorted(results)]


async def _benchmark(
    act: Act, n: int, concurrency: int, retries: int, timeout: float | None, folder: Path
) -> Finished:
    path = folder / "bench.yaml"
    path.write_text(BENCH.format(timeout=f", timeout_s: {timeout}" if timeout else ""), encoding="utf-8")

    class Agent(BaseAgent):
        async def run_case(self, prompt: str, **context: Any) -> TaskResult:
            return TaskResult(output=await act(context["trial"]), context={"usage": {"cost_usd": COST}})

    result = await run_benchmark_async(path, Agent(), trials=n, concurrency=concurrency, retry_errors=retries)
    return [(t.error, len(t.attempts or [])) for t in result.cases[0].trials]


LAYERS = {"library": _library, "evals": _evals, "benchmark": _benchmark}


async def _ok(_: int) -> str:
    return "ok"


async def _value_error(_: int) -> str:
    raise ValueError("bad")


async def _system_exit(_: int) -> str:
    raise SystemExit(2)


async def _own_timeout(_: int) -> str:
    raise TimeoutError("upstream deadline")


async def _slow(_: int) -> str:
    await asyncio.sleep(2)
    return "ok"


FAULTS = [
    # (behaviour, our time limit, the trial's error)
    ("returns", _ok, None, None),
    ("raises", _value_error, None, r"ValueError: bad"),
    ("exits", _system_exit, None, r"SystemExit: 2"),
    ("its own TimeoutError", _own_timeout, None, r"TimeoutError: upstream deadline"),
    ("over our limit", _slow, 0.05, r"timed out after 0\.05s \(waited 0\.\d\ds\)"),
]


@pytest.mark.parametrize("layer", list(LAYERS))
@pytest.mark.parametrize(("behaviour", "act", "limit", "error"), FAULTS, ids=[f[0] for f in FAULTS])
async def test_layer__fault_kind__one_error_text(
    layer: str, behaviour: str, act: Act, limit: float | None, error: str | None, tmp_path: Path
) -> None:
    [(got, attempts)] = await LAYERS[layer](act, 1, 1, 0, limit, tmp_path)
    assert attempts == 0
    if error is None:
        assert got is None
    else:
        assert got is not None and re.fullmatch(error, got), got


@pytest.mark.parametrize("layer", list(LAYERS))
@pytest.mark.parametrize("cap", [1, 3])
async def test_layer__concurrency_cap__never_more_trials_in_flight(
    layer: str, cap: int, tmp_path: Path
) -> None:
    in_flight = 0
    most = 0

    async def act(_: int) -> str:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        await asyncio.sleep(0.02)
        in_flight -= 1
        return "ok"

    finished = await LAYERS[layer](act, 6, cap, 0, None, tmp_path)
    assert len(finished) == 6 and most == cap


@pytest.mark.parametrize("layer", list(LAYERS))
@pytest.mark.parametrize(("limit_usd", "started"), [(0.025, 3), (0.005, 1), (1.0, 6)])
async def test_layer__budget__stops_starting_trials_once_spent(
    layer: str, limit_usd: float, started: int, tmp_path: Path
) -> None:
    calls = 0

    async def act(_: int) -> str:
        nonlocal calls
        calls += 1
        return "ok"

    with budgeted(limit_usd):
        finished = await LAYERS[layer](act, 6, 1, 0, None, tmp_path)
    assert calls == started and len(finished) == started


@pytest.mark.parametrize("layer", list(LAYERS))
@pytest.mark.parametrize(
    ("retries", "error", "attempts"),
    [(0, "ConnectionError: reset", 0), (1, None, 1)],
    ids=["no retries: the fault stands", "one retry: the second attempt is the trial"],
)
async def test_layer__infrastructure_error__retried_in_one_place(
    layer: str,
    retries: int,
    error: str | None,
    attempts: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(retry_module, "BACKOFF_S", (0.0,))
    failed: set[int] = set()

    async def act(i: int) -> str:
        if i not in failed:
            failed.add(i)
            raise ConnectionError("reset")
        return "ok"

    finished = await LAYERS[layer](act, 3, 2, retries, None, tmp_path)
    assert finished == [(error, attempts)] * 3


# --- the driver itself -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("batch", "elapsed", "after"),
    [
        (1, 0.001, 2),
        (MAX_BATCH, 0.001, MAX_BATCH),
        (8, 0.01, 8),
        (8, 0.1, 4),
        (1, 0.1, 1),
    ],
)
def test_next_batch__hand_off_time__grows_holds_or_shrinks(batch: int, elapsed: float, after: int) -> None:
    assert _next_batch(batch, elapsed) == after


def _body(
    finished: list[int], *, threaded: bool = False, in_thread_finish: bool = False
) -> tuple[TrialBody[int], list[str]]:
    threads: list[str] = []

    async def attempt(index: int) -> int:
        threads.append(threading.current_thread().name)
        return index

    def now(index: int) -> int:
        threads.append(threading.current_thread().name)
        return index

    def finish(index: int, done: Attempted[int]) -> None:
        assert done.value == index
        finished.append(index)

    body = TrialBody(
        attempt=attempt,
        inspect=lambda _: (None, None, 0.0),
        usage_of=lambda _, __: None,
        finish=finish,
        attempt_in_thread=now if threaded else None,
        finish_in_thread=finish if in_thread_finish else None,
        threaded=lambda _: threaded,
    )
    return body, threads


@pytest.mark.parametrize(
    ("threaded", "in_thread_finish", "where"),
    [(False, False, "loop"), (True, False, "worker"), (True, True, "worker")],
    ids=["async: on the loop", "sync: in worker threads", "sync, finished in its thread"],
)
@pytest.mark.parametrize(("count", "concurrency"), [(0, 1), (1, 4), (50, 1), (50, 4)])
async def test_drive__every_trial__finished_once_where_its_code_belongs(
    threaded: bool, in_thread_finish: bool, where: str, count: int, concurrency: int
) -> None:
    finished: list[int] = []
    body, threads = _body(finished, threaded=threaded, in_thread_finish=in_thread_finish)
    await drive(count, body, concurrency=concurrency)
    assert sorted(finished) == list(range(count))
    loop_thread = threading.current_thread().name
    assert all((name == loop_thread) == (where == "loop") for name in threads)


@pytest.mark.parametrize("concurrency", [0, -1])
async def test_drive__concurrency_below_one__value_error(concurrency: int) -> None:
    body, _ = _body([])
    with pytest.raises(ValueError, match="concurrency must be at least 1"):
        await drive(1, body, concurrency=concurrency)


async def test_drive__cancelled__worker_threads_take_no_new_trial() -> None:
    ran: list[int] = []

    def slow(index: int) -> int:
        ran.append(index)
        time.sleep(0.05)
        return index

    body: TrialBody[int] = TrialBody(
        attempt=lambda i: asyncio.sleep(0, i),
        inspect=lambda _: (None, None, 0.0),
        usage_of=lambda _, __: None,
        finish=lambda _, __: None,
        attempt_in_thread=slow,
        threaded=lambda _: True,
    )
    task = asyncio.ensure_future(drive(1000, body, concurrency=1))
    await asyncio.sleep(0.12)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    seen = len(ran)
    await asyncio.sleep(0.2)
    assert len(ran) <= seen + 1 and len(ran) < 20


async def test_drive__finish_raises__the_error_stops_the_run() -> None:
    def finish(index: int, _: Attempted[int]) -> None:
        if index == 2:
            raise RuntimeError("bug in finish")

    body: TrialBody[int] = TrialBody(
        attempt=lambda i: asyncio.sleep(0, i),
        inspect=lambda _: (None, None, 0.0),
        usage_of=lambda _, __: None,
        finish=finish,
    )
    with pytest.raises(RuntimeError, match="bug in finish"):
        await drive(10, body, concurrency=2)


async def _never_suspends() -> int:
    return 7


async def _suspends() -> int:
    await asyncio.sleep(0)
    return 7


def test_drive_sync__coroutine_that_never_suspends__its_value() -> None:
    assert drive_sync(_never_suspends()) == 7


def test_drive_sync__coroutine_that_suspends__runtime_error() -> None:
    with pytest.raises(RuntimeError, match="suspended"):
        drive_sync(_suspends())


@pytest.mark.parametrize(
    ("overlap", "order"),
    [
        (
            False,
            ["attempt 0", "finish 0 start", "finish 0 end", "attempt 1", "finish 1 start", "finish 1 end"],
        ),
        (
            True,
            ["attempt 0", "attempt 1", "finish 0 start", "finish 0 end", "finish 1 start", "finish 1 end"],
        ),
    ],
    ids=["benchmarks: each trial finished before the next starts", "library: scoring overlaps the next call"],
)
async def test_drive__overlap__when_the_next_trial_starts(overlap: bool, order: list[str]) -> None:
    seen: list[str] = []

    async def attempt(index: int) -> int:
        seen.append(f"attempt {index}")
        return index

    async def finish(index: int, _: Attempted[int]) -> None:
        seen.append(f"finish {index} start")
        await asyncio.sleep(0.01)
        seen.append(f"finish {index} end")

    body: TrialBody[int] = TrialBody(
        attempt=attempt,
        inspect=lambda _: (None, None, 0.0),
        usage_of=lambda _, __: None,
        finish=finish,
        overlap=overlap,
    )
    await drive(2, body, concurrency=1)
    assert seen == order
