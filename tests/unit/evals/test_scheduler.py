"""Scheduling trials: sync evals off the loop thread, concurrency for async evals, sync timeouts."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from types import ModuleType

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
