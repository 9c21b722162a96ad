"""The one trial driver: evals, benchmarks and ``run_eval`` run their trials through it.

A layer hands :func:`drive` a :class:`TrialBody` (how to run one attempt of trial ``i``, and what
to do with the finished trial); the driver owns everything around it, once for all three:

- a cap on concurrent trials (``concurrency`` lanes pull trials in order from one cursor);
- async user code runs on the event loop; sync user code with a time limit hops to a worker
  thread inside the attempt (the executor's rule), under the loop's timer; sync user code without
  a limit runs whole in a worker thread, several trials per hand-off while they are quick (the
  batch grows while a hand-off takes under 5 ms and shrinks back to one when it takes over 50 ms;
  a hand-off that has run 50 ms with finished trials waiting for the loop stops there and hands
  the rest back to its lane, so a slow trial never keeps the quick ones before it unrecorded).
  All of them are the run's one pool of reused daemon workers (``core.workers.DaemonPool``): a
  worker stuck past a limit is written off and another starts in its place, so ``n`` trials start
  about ``concurrency`` threads, not ``n``;
- the run's budget (``cost.budget.may_start``) is asked before every trial: a trial that may not
  start is skipped (it has no result);
- retries of infrastructure errors (``core.retry`` through ``core.executor.run_attempts``);
- a trial's ``finish`` (scoring, bookkeeping) runs after it; with ``overlap`` (the library layer)
  as a separate step, so a lane starts its next trial while the previous one is scored: a lane
  never has more than one ``finish`` pending, and under a budget it waits for it (the spend is
  charged there) before asking the budget again;
- Ctrl-C, cancellation or a bug in ``finish`` stop every lane: the worker threads take no new
  trial and the error propagates. The worker threads are daemons (``core.workers``): one stuck in a
  call that never returns is abandoned, never joined, so an interrupted run still ends; after a real
  signal (``core.signals``) a worker thread finishes no further trial and a retry's wait wakes.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from agent_evals.calls.scope import TrialScope
from agent_evals.core.executor import Attempted, Inspect, Outcome, UsageOf, call_now, run_attempts, run_user
from agent_evals.core.retry import NO_RETRIES, RetryPolicy
from agent_evals.core.signals import signal_received
from agent_evals.core.tracing import fill_result
from agent_evals.core.workers import DaemonPool, forget_pool, use_pool
from agent_evals.cost.budget import active_budget, may_start
from agent_evals.cost.http_usage import metering
from agent_evals.cost.meter import UsageMeter, record_usage, trial_usage

T = TypeVar("T")

MAX_BATCH = 512
"""Most sync trials handed to a worker thread at once."""
GROW_BELOW_S = 0.005
"""A hand-off quicker than this doubles the next batch."""
SHRINK_ABOVE_S = 0.05
"""A hand-off slower than this halves the next batch."""

Finish = Callable[[int, Attempted[T]], "Awaitable[None] | None"]
"""``finish(i, done)``: what the layer does with finished trial ``i`` (on the event loop)."""


def _never(_index: int) -> bool:
    return False


def _first(_index: int) -> int:
    return 0


@dataclass(slots=True)
class TrialBody(Generic[T]):
    """What a layer supplies to :func:`drive`: its attempt, how to read it, and its finish step."""

    attempt: Callable[[int], Awaitable[T]]
    """One attempt of trial ``i``, awaited on the event loop (sync code under a limit hops to a thread itself)."""
    inspect: Inspect[T]
    """``(fault, error text, seconds)`` of an attempt: the retry decision reads it."""
    usage_of: UsageOf[T]
    """What a retried attempt used (kept in its ``attempts`` entry and charged to the budget)."""
    finish: Finish[T]
    """Called with each finished trial, on the loop; sync or async."""
    attempt_in_thread: Callable[[int], T] | None = None
    """One attempt of trial ``i`` run whole in a worker thread (sync user code without a time limit)."""
    finish_in_thread: Callable[[int, Attempted[T]], None] | None = None
    """When set, a threaded trial is finished in its worker thread as soon as it ends, instead of by
    :attr:`finish` on the loop after its batch (a record streamed trial by trial then keeps every
    finished trial even when the process dies in the middle of a batch)."""
    overlap: bool = False
    """Whether a lane starts its next trial while the previous one's :attr:`finish` runs (scoring
    overlaps the next model call); else the lane finishes each trial before starting the next."""
    threaded: Callable[[int], bool] = field(default=_never)
    """Which trials take :attr:`attempt_in_thread` (batched) instead of :attr:`attempt`."""
    number: Callable[[int], int] = field(default=_first)
    """Trial ``i``'s number among its case's trials (the response cache keys replays by it)."""
    traced: Callable[[int], bool] = field(default=_never)
    """Which trials run under a trace of their own (``execution: {trace: otel}``, ``@eval(trace="otel")``)."""


async def drive(count: int, body: TrialBody[T], *, concurrency: int, retry: RetryPolicy = NO_RETRIES) -> None:
    """Run trials ``0 .. count-1`` with at most ``concurrency`` in flight; each finished one goes to
    ``body.finish``. Returns when every trial that the budget let start has finished."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    if count <= 0:
        return
    lanes = min(concurrency, count)
    # one pool of reused daemon workers for the run: batched sync trials, and every timed sync call
    # (``core.faults.in_daemon_thread``: the loop's timer is its watchdog; a stuck worker is replaced)
    pool = DaemonPool(name="agent-evals")
    token = use_pool(pool)  # the lanes (tasks) copy this context as they are created
    run = _Drive(count, body, retry, pool)
    workers = [asyncio.ensure_future(run.lane()) for _ in range(lanes)]
    forget_pool(token)
    try:
        await asyncio.gather(*workers)
    except BaseException:
        # cancelled, interrupted or a bug: leave no lane running behind the caller's back
        for worker in workers:
            worker.cancel()
        await asyncio.wait(workers)
        raise
    finally:
        run.stop.set()  # a worker thread takes no new trial
        pool.shutdown(wait=False, cancel_futures=True)


class _Drive(Generic[T]):
    """The shared cursor of one :func:`drive` call and its lanes."""

    def __init__(self, count: int, body: TrialBody[T], retry: RetryPolicy, pool: DaemonPool) -> None:
        self.count = count
        self.body = body
        self.retry = retry
        self.pool = pool
        self.cursor = 0
        self.stop = threading.Event()

    async def lane(self) -> None:
        pending: asyncio.Future[None] | None = None
        batch = 1
        handed_back: tuple[int, int] | None = None  # trials of a hand-off that ran long, still to run
        loop = asyncio.get_running_loop()
        try:
            while handed_back is not None or self.cursor < self.count:
                index = self.cursor if handed_back is None else handed_back[0]
                if handed_back is not None or (
                    self.body.attempt_in_thread is not None and self.body.threaded(index)
                ):
                    if handed_back is not None:
                        end, handed_back = handed_back[1], None
                    else:
                        end = index + 1
                        while end < self.count and end - index < batch and self.body.threaded(end):
                            end += 1
                        self.cursor = end
                    started = time.perf_counter()
                    # like asyncio.to_thread: the trials see the caller's context variables
                    finished, resume = await loop.run_in_executor(
                        self.pool, contextvars.copy_context().run, self._in_thread, index, end
                    )
                    batch = _next_batch(batch, time.perf_counter() - started)
                    if resume is not None:
                        handed_back = (resume, end)
                    for number, done in finished:
                        pending = await self._finish(pending, number, done)
                    continue
                self.cursor += 1
                if pending is not None and active_budget() is not None:
                    # the previous trial's spend is charged when it finishes: the budget sees it first
                    await pending
                    pending = None
                if not may_start():  # the run's budget is spent: this trial never starts
                    continue
                done = await run_attempts(
                    functools.partial(self.body.attempt, index),
                    self.body.inspect,
                    self.retry,
                    usage_of=self.body.usage_of,
                    trial=self.body.number(index),
                    traced=self.body.traced(index),
                )
                pending = await self._finish(pending, index, done)
            if pending is not None:
                await pending
        finally:
            if pending is not None and not pending.done():
                pending.cancel()
            elif pending is not None and not pending.cancelled():
                pending.exception()  # retrieved here when the lane stops before awaiting it

    async def _finish(
        self, pending: asyncio.Future[None] | None, index: int, done: Attempted[T]
    ) -> asyncio.Future[None] | None:
        """Start trial ``index``'s finish step after the previous one; without overlap, wait for it."""
        step = await _then(pending, self.body.finish(index, done))
        if step is not None and not self.body.overlap:
            await step
            return None
        return step

    def _in_thread(self, start: int, end: int) -> tuple[list[tuple[int, Attempted[T]]], int | None]:
        """Worker-thread side: trials ``start .. end-1``, each through the executor's retries. Returns
        the trials left for the loop to finish, and where the hand-off stopped early (None: it did not):
        once it has lasted :data:`SHRINK_ABOVE_S` with finished trials waiting for the loop (a slow trial
        among quick ones), the rest goes back to the lane, so what finished is recorded without waiting."""
        attempt = self.body.attempt_in_thread
        assert attempt is not None  # only called when the body has one
        out: list[tuple[int, Attempted[T]]] = []
        begun = time.perf_counter()
        for index in range(start, end):
            if self.stop.is_set() or signal_received() is not None:
                break
            if out and time.perf_counter() - begun > SHRINK_ABOVE_S:
                return out, index
            if not may_start():
                continue
            done = drive_sync(
                run_attempts(
                    _ready(attempt, index),
                    self.body.inspect,
                    self.retry,
                    usage_of=self.body.usage_of,
                    trial=self.body.number(index),
                    blocking=True,
                    traced=self.body.traced(index),
                )
            )
            if signal_received() is not None:  # the run is ending: its record is being written
                break
            if self.body.finish_in_thread is not None:
                self.body.finish_in_thread(index, done)
            else:
                out.append((index, done))
        return out, None


def _next_batch(batch: int, elapsed: float) -> int:
    """The next hand-off's size after one of ``batch`` trials took ``elapsed`` seconds."""
    if elapsed < GROW_BELOW_S:
        return min(batch * 2, MAX_BATCH)
    if elapsed > SHRINK_ABOVE_S:
        return max(1, batch // 2)
    return batch


async def _then(
    pending: asyncio.Future[None] | None, step: Awaitable[None] | None
) -> asyncio.Future[None] | None:
    """Wait for the previous finish step, then start ``step`` (None: it already ran, it was sync)."""
    if pending is not None:
        await pending
    if step is None:
        return None
    return asyncio.ensure_future(step)


def _ready(fn: Callable[[int], T], index: int) -> Callable[[], Awaitable[T]]:
    async def now() -> T:
        return fn(index)

    return now


def drive_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never suspends (a trial in a worker thread) to completion without an event loop."""
    try:
        coro.send(None)
    except StopIteration as stop:
        value: T = stop.value
        return value
    coro.close()
    raise RuntimeError("a sync-mode trial suspended; it should have run on the event loop")


@dataclass(slots=True)
class Called:
    """One call of a layer's user code (a task, an agent) with the model calls it made."""

    outcome: Outcome
    """What the call gave (``core.executor``)."""
    meter: UsageMeter | None = None
    """Its model calls; None when no user code ran (a replayed output, no task)."""
    preset_error: str | None = None
    """An error the layer gives the trial without calling anything (e.g. no task to call)."""

    @property
    def error(self) -> str | None:
        """The trial's error text: the preset one, else the executor's."""
        return self.preset_error or self.outcome.error


async def call_metered(
    fn: Callable[..., Any], *args: Any, timeout: float | None = None, thread: bool = False
) -> Called:
    """Call user code through the executor (on the loop, or with ``thread`` in a daemon thread), metered."""
    with metering() as meter:  # its model calls, per attempt (the scorers' judges are not its own)
        outcome = await run_user(fn, *args, timeout=timeout, thread=thread)
    fill_result(outcome.value, meter)  # a traced trial: what its spans tell and its result lacks
    return Called(outcome, meter)


def call_metered_now(fn: Callable[..., Any], *args: Any) -> Called:
    """Call sync user code in this thread (a worker thread of the driver), metered."""
    with metering() as meter:
        outcome = call_now(fn, *args)
    fill_result(outcome.value, meter)
    return Called(outcome, meter)


def inspect_called(called: Called) -> tuple[BaseException | None, str | None, float]:
    """The retry decision's view of a call."""
    return called.outcome.fault, called.error, called.outcome.elapsed


def called_usage(called: Called, scope: TrialScope | None) -> dict[str, Any] | None:
    """What a retried call used, priced and charged (its ``attempts`` entry)."""
    if called.meter is None:
        return None
    return record_usage(trial_usage(None, called.meter, None, scope=scope))
