"""The one trial executor: call a trial's user code, sync or async, under a time limit; faults captured.

The library runner, code-first evals and benchmarks all run user code (a task, an eval body, an
agent) through these functions, so a timeout, an exception or a ``SystemExit`` comes out the same
way everywhere: as an :class:`Outcome` holding the value, or the user's own exception, or the fact
that our time limit stopped the wait. Only cancellation and a real signal's Ctrl-C pass through
(``core.faults.absorbed``): any other exception user code raises is its trial's error.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import os
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from agent_evals.calls.scope import TrialScope, close_scope, open_scope
from agent_evals.core.faults import (
    OVERRUN_GRACE_S,
    TrialFault,
    absorbed,
    closing,
    describe_fault,
    in_daemon_thread,
    overran,
    user_traceback,
)
from agent_evals.core.hard_exit import leave
from agent_evals.core.retry import NO_RETRIES, RetryPolicy
from agent_evals.core.tracing import close_trial, open_trial

T = TypeVar("T")


@dataclass(slots=True)
class Outcome:
    """What one call of user code gave."""

    value: Any = None
    """What it returned (None when it raised or timed out)."""
    fault: BaseException | None = None
    """The exception it raised: its own ``TimeoutError`` included, never ours."""
    limit: float | None = None
    """Our time limit, when that limit stopped the wait (the call may still be running in its thread)."""
    elapsed: float = 0.0
    """Seconds from the call to its result, its exception or our giving up."""
    late: bool = False
    """It returned, but after the limit (it blocked the event loop or ignored cancellation): errored."""

    @property
    def timed_out(self) -> bool:
        """Whether our time limit stopped the wait."""
        return self.limit is not None

    @property
    def ok(self) -> bool:
        """Whether it returned in time."""
        return self.fault is None and self.limit is None

    @property
    def error(self) -> str | None:
        """The trial's error text: ``Type: message`` of the fault, or our timeout with its limit and
        the time waited; None when it returned in time. Always encodable, capped in length."""
        if self.limit is not None:
            return overran(self.elapsed, self.limit) if self.late else timeout_text(self.limit, self.elapsed)
        if self.fault is not None:
            return describe_fault(self.fault)
        return None

    @property
    def traceback(self) -> str | None:
        """The fault's traceback trimmed to the user's own frames (None without a fault)."""
        return user_traceback(self.fault) if self.fault is not None else None


def timeout_text(limit: float, elapsed: float) -> str:
    """The error of a trial our time limit stopped: the limit and how long it was waited for."""
    return f"timed out after {limit:g}s (waited {elapsed:.2f}s)"


@dataclass(slots=True)
class Deadline:
    """One trial's time limit, shared by all its parts: an eval's body and its evaluators, a
    benchmark's agent, checkers and scorers. Each part gets what is left; expiry names the part."""

    limit: float | None
    """The trial's timeout in seconds (None: unbounded)."""
    covers: str
    """What the limit covers, for the error text (e.g. ``"the body and its evaluators"``)."""
    started: float = field(default_factory=time.perf_counter)
    """When the trial started (``time.perf_counter``)."""
    part: str = "the body"
    """The part running now (a trial run whole in a thread says this way which part overran)."""
    progress: Any = None
    """What the trial has built so far (an eval's context), read when a trial run whole in a thread
    overran: its scores stored before the limit are kept, as for a trial on the loop."""

    def left(self) -> float | None:
        """Seconds left for the next part (None without a limit; never negative)."""
        if self.limit is None:
            return None
        return max(0.0, self.limit - (time.perf_counter() - self.started))

    def expired(self, part: str) -> str:
        """The error of a trial whose limit passed while ``part`` was running."""
        return (
            f"TimeoutError: timed out after {self.limit or 0:g}s: {part} was still running "
            f"(the timeout covers {self.covers})"
        )


def call_now(fn: Callable[..., Any], *args: Any, run_awaitable: bool = False) -> Outcome:
    """Call ``fn(*args)`` in this thread. With ``run_awaitable`` (a worker thread without an event
    loop), an awaitable it returns is run to completion here on a loop of its own."""
    started, pid = time.perf_counter(), os.getpid()
    try:
        value = fn(*args)
        if run_awaitable:
            value = run_to_end(value)
    except BaseException as exc:
        leave_if_forked(pid)
        if not absorbed(exc):
            raise
        return Outcome(fault=exc, elapsed=time.perf_counter() - started)
    leave_if_forked(pid)
    return Outcome(value=value, elapsed=time.perf_counter() - started)


def leave_if_forked(pid: int) -> None:
    """End this process when it is not ``pid`` (the run's, when user code was called): the code forked
    and its child came back here instead of ending itself. Left going, it ran the run's other trials
    and wrote into its record file (invalid JSON), then hung on the run's threads it no longer has."""
    if os.getpid() != pid:
        leave(0)


def run_to_end(value: Any) -> Any:
    """``value``; when it is an awaitable, what it gives, run to completion in this thread on a loop of
    its own (sync user code in a worker thread that handed back a coroutine)."""
    return asyncio.run(_awaited(value)) if inspect.isawaitable(value) else value


async def await_user(awaitable: Awaitable[Any], timeout: float | None = None) -> Outcome:
    """Await user code for at most ``timeout`` seconds.

    Its own exceptions are wrapped before they reach ``wait_for``, so a ``TimeoutError`` coming out
    of ``wait_for`` is ours and one the code raised is its fault (they are the same class on 3.11+).
    """
    started, pid = time.perf_counter(), os.getpid()
    try:
        if timeout is None:
            value = await _guarded(awaitable)
        else:
            value = await asyncio.wait_for(_guarded(awaitable), timeout)
    except TrialFault as wrapped:
        leave_if_forked(pid)
        return Outcome(fault=wrapped.exc, elapsed=time.perf_counter() - started)
    except asyncio.TimeoutError:
        return Outcome(limit=timeout, elapsed=time.perf_counter() - started)
    leave_if_forked(pid)
    elapsed = time.perf_counter() - started
    if timeout is not None and elapsed > timeout + OVERRUN_GRACE_S:
        return Outcome(limit=timeout, elapsed=elapsed, late=True)  # late is never passed
    return Outcome(value=value, elapsed=elapsed)


async def run_user(
    fn: Callable[..., Any],
    *args: Any,
    timeout: float | None = None,
    thread: Executor | bool = False,
) -> Outcome:
    """Call ``fn(*args)`` from the event loop and wait for its result, at most ``timeout`` seconds.

    ``thread=False``: called on the loop thread (an async function, or sync code that is quick);
    an awaitable it returns is awaited under the time limit. ``thread=True``: a sync call runs in a
    daemon thread, a reused worker of the run's pool inside ``core.trials.drive`` and a fresh thread
    outside it (a call stuck past the limit holds only its thread, which the pool replaces, and
    never keeps the process alive); an executor: in that pool. Either way with the caller's context variables and
    a bounded wait; a thread that overruns cannot be stopped and finishes in the background."""
    started = time.perf_counter()
    if thread is False:
        called = call_now(fn, *args)
        if not (called.ok and inspect.isawaitable(called.value)):
            return called
        rest = None if timeout is None else max(0.0, timeout - called.elapsed)
        outcome = await await_user(called.value, rest)
    else:
        if thread is True:
            future: Awaitable[Outcome] = in_daemon_thread(call_now, fn, *args)
        else:
            loop = asyncio.get_running_loop()
            future = loop.run_in_executor(thread, contextvars.copy_context().run, call_now, fn, *args)
        try:
            outcome = await (future if timeout is None else asyncio.wait_for(future, timeout))
        except asyncio.TimeoutError:
            outcome = Outcome(limit=timeout)
        if outcome.ok and inspect.isawaitable(outcome.value):  # a "sync" callable that gave a coroutine
            spent = time.perf_counter() - started
            outcome = await await_user(outcome.value, None if timeout is None else max(0.0, timeout - spent))
    outcome.elapsed = time.perf_counter() - started
    if outcome.timed_out:
        outcome.limit = timeout  # the caller's limit, not what was left of it for a late awaitable
    return outcome


@dataclass(slots=True)
class Attempted(Generic[T]):
    """The final attempt of a trial, with the earlier ones it replaced."""

    value: T
    """What the final attempt gave (the trial)."""
    attempts: list[dict[str, Any]] = field(default_factory=list)
    """Earlier attempts, oldest first: ``error``, ``duration_s``, ``reason`` (why it was retried), ``waited_s``."""
    scope: TrialScope | None = None
    """The final attempt's response-cache scope (None when no cache is active)."""

    @property
    def cache_error(self) -> str | None:
        """The error a replay miss gives the trial (it overrides whatever the trial did)."""
        return self.scope.miss_error if self.scope is not None else None

    @property
    def cache_summary(self) -> dict[str, Any] | None:
        """The trial's ``cache`` entry in the run record (None without a cache)."""
        return self.scope.summary() if self.scope is not None else None


Inspect = Callable[[T], "tuple[BaseException | None, str | None, float]"]
"""What an attempt gave, as ``(the user fault or None, the error text, seconds)``."""


UsageOf = Callable[[T, "TrialScope | None"], "dict[str, Any] | None"]
"""The usage of a finished attempt in the record's shape, charged to the run's budget (``cost.meter``)."""


async def run_attempts(
    attempt: Callable[[], Awaitable[T]],
    inspect_attempt: Inspect[T],
    policy: RetryPolicy = NO_RETRIES,
    *,
    usage_of: UsageOf[T],
    trial: int = 0,
    blocking: bool = False,
    traced: bool = False,
) -> Attempted[T]:
    """Run one trial: ``attempt()`` again while its fault is an infrastructure error and retries remain.

    Every layer (the library runner, code-first evals, benchmarks) runs a trial through this, so
    retries, their backoff and the response cache's view of the trial are the same everywhere.
    Each attempt runs in a fresh cache scope for trial ``trial``; an attempt that missed the
    replay cache is never retried. ``blocking`` (a worker thread that drives the trial without an
    event loop) waits with the policy's blocking sleep. ``usage_of`` gives (and charges) what a
    retried attempt used: it is kept in that attempt's entry, so a failed attempt's spend counts
    toward ``--budget-usd`` and stays visible; the final attempt's usage is the caller's. With
    ``traced`` (or ``--trace otel`` around the run) each attempt runs under a root span of its own,
    in a fresh trace, whose spans fill what the agent did not return (``core.tracing``).
    """
    history: list[dict[str, Any]] = []
    while True:
        scope, token = open_scope(trial)
        trace = open_trial(traced, trial)
        try:
            value = await attempt()
        finally:
            close_trial(trace)
            close_scope(token)
        if scope is not None and scope.misses:
            return Attempted(value, history, scope)
        fault, error, elapsed = inspect_attempt(value)
        decision = policy.decide(fault, len(history) + 1)
        if decision.wait_s is None:
            return Attempted(value, history, scope)
        entry: dict[str, Any] = {
            "error": error,
            "duration_s": round(elapsed, 6),
            "reason": decision.reason,
            "waited_s": round(decision.wait_s, 3),
        }
        spent = usage_of(value, scope)
        if spent is not None:
            entry["usage"] = spent
        history.append(entry)
        if blocking:
            policy.sleep_blocking(decision.wait_s)
        else:
            await policy.sleep(decision.wait_s)


async def _awaited(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


async def _guarded(awaitable: Awaitable[Any]) -> Any:
    try:
        return await awaitable
    except BaseException as exc:
        if not absorbed(exc) or closing(exc):
            raise
        raise TrialFault(exc) from exc
