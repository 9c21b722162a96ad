"""Scheduling trials: sync evals off the loop thread, concurrency for async evals, sync timeouts."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from agent_evals.evals.discovery import eval_functions
from agent_evals.evals.result import EvalCaseResult
from agent_evals.evals.scheduler import Job, run_jobs
from agent_evals.evals.spec import EvalCaseSpec


async def _run_all(
    module: ModuleType, *, concurrency: int = 1, timeout: float | None = None
) -> dict[tuple[int, int], EvalCaseResult]:
    specs: list[EvalCaseSpec] = [s for fn in eval_functions(module) for s in fn.specs()]
    jobs = [Job(i, t) for i, spec in enumerate(specs) for t in range(spec.trials)]
    results: dict[tuple[int, int], EvalCaseResult] = {}

    def on_result(i: int, t: int, r: EvalCaseResult) -> None:
        results[(i, t)] = r

    await run_jobs(specs, jobs, on_result=on_result, concurrency=concurrency, timeout=timeout)
    return results


async def test_sync_eval__may_call_asyncio_run_itself(eval_module: Callable[..., ModuleType]) -> None:
    m = eval_module(
        """
        import asyncio
        from agent_evals import eval, EvalContext

        async def agent():
            return "ok"

        @eval
        def check(ctx: EvalContext):
            ctx.output = asyncio.run(agent())
        """
    )
    results = await _run_all(m)
    assert results[(0, 0)].error is None and results[(0, 0)].output == "ok"


async def test_every_trial_of_every_case__is_reported_once(eval_module: Callable[..., ModuleType]) -> None:
    m = eval_module(
        """
        from agent_evals import eval, EvalContext

        @eval(cases=[{"input": i} for i in range(50)], trials=3)
        def check(ctx: EvalContext):
            assert ctx.input % 2 == 0

        @eval
        async def other():
            pass
        """
    )
    results = await _run_all(m, concurrency=3)
    assert len(results) == 151
    assert sum(r.passed for r in results.values()) == 25 * 3 + 1


async def test_concurrency__runs_async_trials_at_once(eval_module: Callable[..., ModuleType]) -> None:
    m = eval_module(
        """
        import asyncio
        from agent_evals import eval

        @eval(cases=[{"input": i} for i in range(6)])
        async def slow():
            await asyncio.sleep(1.0)
        """
    )
    started = time.perf_counter()
    results = await _run_all(m, concurrency=6)
    assert time.perf_counter() - started < 3.0  # sequential would take 6 s
    assert all(r.passed for r in results.values())


async def test_sync_eval_over_its_timeout__is_reported_as_timed_out(
    eval_module: Callable[..., ModuleType],
) -> None:
    m = eval_module(
        """
        import time
        from agent_evals import eval

        @eval
        def slow():
            time.sleep(0.5)
        """
    )
    results = await _run_all(m, timeout=0.05)
    assert re.fullmatch(r"timed out after 0\.05s \(waited 0\.\d\ds\)", results[(0, 0)].error or "")


@pytest.mark.parametrize("concurrency", [1, 4])
async def test_sync_evals_with_a_timeout__a_thousand_trials__at_most_concurrency_threads(
    eval_module: Callable[..., ModuleType], concurrency: int
) -> None:
    m = eval_module(
        """
        import threading
        from agent_evals import eval, EvalContext

        THREADS = []

        @eval(cases=[{"input": i} for i in range(1000)], timeout=30)
        def check(ctx: EvalContext):
            THREADS.append(threading.current_thread())  # kept: a dead thread's object stays distinct
            ctx.output = ctx.input
        """
    )
    results = await _run_all(m, concurrency=concurrency)
    assert len(results) == 1000 and all(r.passed for r in results.values())
    threads = set(m.THREADS)
    assert len(m.THREADS) == 1000
    assert 1 <= len(threads) <= concurrency  # reused workers, not a thread per trial
    assert threading.current_thread() not in threads and all(t.daemon for t in threads)


async def test_sync_eval_stuck_past_its_timeout__later_trials_run_at_once_on_another_worker(
    eval_module: Callable[..., ModuleType],
) -> None:
    m = eval_module(
        """
        import threading, time
        from agent_evals import eval, EvalContext

        GATE = threading.Event()
        STARTS = {}

        @eval(cases=[{"input": i} for i in range(6)], timeout=0.3)
        def check(ctx: EvalContext):
            STARTS[ctx.input] = (time.perf_counter(), threading.current_thread())
            if ctx.input == 1:
                GATE.wait(30)  # stuck: far past the limit
            ctx.output = ctx.input
        """
    )
    started = time.perf_counter()
    try:
        results = await _run_all(m, concurrency=1)
    finally:
        m.GATE.set()  # let the stuck call end now the run is over
    assert time.perf_counter() - started < 0.3 + 2.0  # not 30 s
    assert re.fullmatch(r"timed out after 0\.3s \(waited 0\.\d\ds\)", results[(1, 0)].error or "")
    assert [results[(i, 0)].passed for i in range(6)] == [True, False, True, True, True, True]
    stuck_at, stuck_thread = m.STARTS[1]
    assert m.STARTS[2][0] - stuck_at < 0.3 + 1.0  # the next trial waits for the limit only
    assert {m.STARTS[i][1] for i in range(2, 6)} == {m.STARTS[2][1]} != {stuck_thread}


def _sync_body(ctx: Any) -> None:
    pass


async def _async_body(ctx: Any) -> None:
    pass


async def _async_check(result: Any) -> bool:
    return True


def test_async_flags__specs_of_several_evals_interleaved__each_specs_own_flag() -> None:
    from agent_evals.evals.scheduler import _async_flags
    from agent_evals.evals.spec import EvalCaseSpec

    sync_checks: tuple[Any, ...] = (lambda r: True,)
    async_checks: tuple[Any, ...] = (_async_check,)
    kinds = [
        (_sync_body, None, ()),
        (_async_body, None, ()),
        (_sync_body, None, async_checks),
        (_sync_body, _async_body, ()),  # an async target
        (_sync_body, _sync_body, sync_checks),
    ]
    specs = [
        EvalCaseSpec(func=func, name="e", case_key=str(i), target=target, evaluators=checks)
        for i in range(3)
        for func, target, checks in kinds
    ]
    assert _async_flags(specs) == [s.is_async for s in specs] == [False, True, True, True, False] * 3
