"""Schedule eval trials: async ones on the event loop, sync ones in worker threads in chunks.

Handing every sync trial to a thread costs tens of microseconds each; running a chunk of them per
hand-off keeps 10,000 trivial evals well under a second while user code never runs on the loop
thread (so a sync eval may call ``asyncio.run`` itself).
"""

from __future__ import annotations

import asyncio
import math
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from agent_evals.core.executor import Outcome, run_attempts, run_user
from agent_evals.core.retry import NO_RETRIES, RetryPolicy
from agent_evals.cost.budget import may_start
from agent_evals.evals.execution import (
    Attempt,
    attempt_usage,
    drive_sync,
    final_result,
    inspect_attempt,
    run_attempt,
    run_trial,
)
from agent_evals.evals.result import EvalCaseResult
from agent_evals.evals.spec import EvalCaseSpec

OnResult = Callable[[int, int, EvalCaseResult], None]
"""Called as ``on_result(spec_index, trial_index, result)``; may be called from a worker thread."""


@dataclass(frozen=True, slots=True)
class Job:
    """One trial of one case."""

    spec_index: int
    """Position of the case in the spec list."""
    trial: int
    """0-based trial number."""


def _limit(spec: EvalCaseSpec, timeout: float | None) -> float | None:
    return timeout if timeout is not None else spec.timeout


def _plan(
    specs: Sequence[EvalCaseSpec], jobs: Sequence[Job], timeout: float | None, concurrency: int
) -> list[tuple[str, list[Job]]]:
    """Group jobs into units: ``async`` (one job), ``sync-timed`` (one job), ``sync`` (a chunk)."""
    kinds = []
    is_async = [spec.is_async for spec in specs]
    for job in jobs:
        spec = specs[job.spec_index]
        if is_async[job.spec_index]:
            kinds.append("async")
        elif _limit(spec, timeout) is not None:
            kinds.append("sync-timed")
        else:
            kinds.append("sync")
    n_sync = kinds.count("sync")
    # Enough chunks to keep every worker busy, few enough that hand-offs stay cheap.
    chunk = max(1, min(2000, math.ceil(n_sync / (concurrency * 8)))) if n_sync else 1
    units: list[tuple[str, list[Job]]] = []
    for job, kind in zip(jobs, kinds, strict=True):
        if kind == "sync" and units and units[-1][0] == "sync" and len(units[-1][1]) < chunk:
            units[-1][1].append(job)
        else:
            units.append((kind, [job]))
    return units


def _sync_attempt(spec: EvalCaseSpec) -> Attempt:
    return drive_sync(run_attempt(spec, sync_mode=True))


def _timed_out(spec: EvalCaseSpec, outcome: Outcome) -> Attempt:
    """A sync trial's attempt as its result: our limit stopped the wait for its thread, or it returned."""
    if outcome.fault is not None:  # run_attempt absorbs user faults: this is a bug of ours
        raise outcome.fault
    if outcome.timed_out:
        result = EvalCaseResult(
            input=spec.input,
            reference=spec.reference,
            metadata=dict(spec.metadata),
            error=outcome.error,
            duration=outcome.elapsed,
        )
        return result, None
    attempt: Attempt = outcome.value
    return attempt


def _run_chunk(
    specs: Sequence[EvalCaseSpec],
    jobs: list[Job],
    on_result: OnResult,
    stop: threading.Event,
    retry: RetryPolicy,
) -> None:
    for job in jobs:
        if stop.is_set() or not may_start():
            return
        result = drive_sync(run_trial(specs[job.spec_index], sync_mode=True, trial=job.trial, retry=retry))
        on_result(job.spec_index, job.trial, result)


async def run_jobs(
    specs: Sequence[EvalCaseSpec],
    jobs: Sequence[Job],
    *,
    on_result: OnResult,
    concurrency: int = 1,
    timeout: float | None = None,
    retry: RetryPolicy = NO_RETRIES,
) -> None:
    """Run every job with at most ``concurrency`` trials in flight; results go to ``on_result``.

    ``timeout`` overrides the per-eval timeout. Sync trials with a timeout run one per thread
    hand-off; a sync trial that overruns is reported as timed out (its thread cannot be interrupted).
    ``retry`` re-runs a trial that errored with an infrastructure error (each attempt under the limit).
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    units = deque(_plan(specs, jobs, timeout, concurrency))
    stop = threading.Event()
    loop = asyncio.get_running_loop()
    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="agent-evals")

    async def run_unit(kind: str, unit_jobs: list[Job]) -> None:
        if kind == "sync":
            await loop.run_in_executor(pool, _run_chunk, specs, unit_jobs, on_result, stop, retry)
            return
        job = unit_jobs[0]
        spec = specs[job.spec_index]
        if kind == "async":
            result = await run_trial(spec, timeout=timeout, trial=job.trial, retry=retry)
        else:
            limit = _limit(spec, timeout)

            async def attempt() -> Attempt:
                # the trial executor, in its own daemon thread: one stuck past the limit takes no
                # worker and never keeps the process alive
                return _timed_out(spec, await run_user(_sync_attempt, spec, timeout=limit, thread=True))

            done = await run_attempts(
                attempt, inspect_attempt, retry, usage_of=attempt_usage, trial=job.trial
            )
            result = final_result(done)
        on_result(job.spec_index, job.trial, result)

    async def worker() -> None:
        while units:
            kind, unit_jobs = units.popleft()
            if kind != "sync" and not may_start():  # the run's budget is spent (a sync chunk checks per job)
                continue
            await run_unit(kind, unit_jobs)

    try:
        await asyncio.gather(*(worker() for _ in range(min(concurrency, len(units)) or 1)))
    finally:
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
