"""The one trial executor: sync and async user code, its own faults, our time limit, safe text."""

from __future__ import annotations

import asyncio
import re
import signal
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from agent_evals.core.executor import Deadline, Outcome, await_user, call_now, run_user
from agent_evals.core.signals import forget_signal, note_signal


def _sync(behaviour: Callable[[], Any]) -> Callable[[], Any]:
    return behaviour


def _async(behaviour: Callable[[], Any]) -> Callable[[], Any]:
    async def run() -> Any:
        await asyncio.sleep(0)
        return behaviour()

    return run


def _raise(exc: BaseException) -> Callable[[], Any]:
    def behaviour() -> Any:
        raise exc

    return behaviour


MODES = {
    "sync inline": dict(wrap=_sync, thread=False),
    "sync in a thread": dict(wrap=_sync, thread=True),
    "async": dict(wrap=_async, thread=False),
}

FAULTS: list[tuple[BaseException, str]] = [
    (ValueError("bad input"), "ValueError: bad input"),
    (TimeoutError("the agent's own deadline"), "TimeoutError: the agent's own deadline"),
    (asyncio.TimeoutError(), "TimeoutError"),
    (SystemExit(0), "SystemExit: 0"),
    (RuntimeError("caf\udce9"), "RuntimeError: caf\ufffd"),  # a lone surrogate never breaks a report
]


@pytest.mark.parametrize("mode", sorted(MODES))
async def test_run_user__returns__value_and_ok(mode: str) -> None:
    spec = MODES[mode]
    outcome = await run_user(spec["wrap"](lambda: 42), thread=spec["thread"], timeout=5)
    assert (outcome.ok, outcome.value, outcome.error, outcome.timed_out) == (True, 42, None, False)


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize(("exc", "text"), FAULTS, ids=[type(e).__name__ for e, _ in FAULTS])
async def test_run_user__user_fault__is_its_error_never_our_timeout(
    mode: str, exc: BaseException, text: str
) -> None:
    spec = MODES[mode]
    outcome = await run_user(spec["wrap"](_raise(exc)), thread=spec["thread"], timeout=5)
    assert (outcome.ok, outcome.timed_out, outcome.fault, outcome.error) == (False, False, exc, text)
    outcome.error.encode("utf-8")  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", ["sync in a thread", "async"])
async def test_run_user__over_the_limit__our_timeout_says_the_limit_and_the_time_waited(mode: str) -> None:
    spec = MODES[mode]
    started = time.perf_counter()
    outcome = await run_user(spec["wrap"](lambda: time.sleep(0.5)), thread=spec["thread"], timeout=0.05)
    if mode == "async":
        outcome = await run_user(lambda: asyncio.sleep(5), timeout=0.05)
    assert time.perf_counter() - started < 2
    assert outcome.timed_out and outcome.fault is None and not outcome.ok
    assert re.fullmatch(r"timed out after 0\.05s \(waited 0\.\d\ds\)", outcome.error or "")
    assert outcome.elapsed >= 0.05


async def test_run_user__sync_callable_giving_a_coroutine__awaited_within_the_same_limit() -> None:
    def lazy() -> Any:
        return asyncio.sleep(5)

    # half a second, so that a loaded machine still hands the coroutine back before the limit
    outcome = await run_user(lazy, thread=True, timeout=0.5)
    assert outcome.timed_out and outcome.limit == 0.5


def test_call_now__ctrl_c__never_absorbed() -> None:
    note_signal(signal.SIGINT)  # a real Ctrl-C (raised without a signal, it is the trial's error)
    try:
        with pytest.raises(KeyboardInterrupt):
            call_now(_raise(KeyboardInterrupt()))
    finally:
        forget_signal()


async def test_run_user__cancellation__never_absorbed() -> None:
    with pytest.raises(asyncio.CancelledError):
        await run_user(_raise(asyncio.CancelledError()))
    with pytest.raises(asyncio.CancelledError):
        await run_user(_async(_raise(asyncio.CancelledError())), timeout=5)


def test_call_now__in_a_worker_thread__runs_a_returned_coroutine_to_completion() -> None:
    async def answer() -> int:
        await asyncio.sleep(0)
        return 7

    assert call_now(answer, run_awaitable=True).value == 7
    assert call_now(_raise(SystemExit(3))).error == "SystemExit: 3"


async def test_await_user__no_limit__waits_for_the_result() -> None:
    assert (await await_user(asyncio.sleep(0.01, result="x"))).value == "x"


async def test_run_user__given_executor__runs_the_sync_call_there() -> None:
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="mine") as pool:
        import threading

        outcome = await run_user(lambda: threading.current_thread().name, thread=pool)
    assert outcome.value.startswith("mine")


def test_outcome__traceback__trimmed_to_user_frames() -> None:
    def user_code() -> None:
        raise KeyError("missing")

    outcome = call_now(user_code)
    trace = outcome.traceback or ""
    assert "user_code" in trace and trace.endswith("KeyError: 'missing'")
    assert "agent_evals/core/executor.py" not in trace
    assert Outcome(value=1).traceback is None


def test_outcome__long_message__cut_and_says_how_long_it_was() -> None:
    outcome = call_now(_raise(ValueError("x" * 10_000)))
    assert len(outcome.error or "") < 2_100 and "10,012 characters in all" in (outcome.error or "")


@pytest.mark.skipif(
    sys.version_info < (3, 11), reason="asyncio.TimeoutError is builtin TimeoutError from 3.11"
)
async def test_run_user__agent_timeout_error_inside_our_limit__still_its_own() -> None:
    async def agent() -> None:
        await asyncio.sleep(0.01)
        raise TimeoutError("upstream API timed out")

    outcome = await run_user(agent, timeout=5)
    assert (outcome.timed_out, outcome.error) == (False, "TimeoutError: upstream API timed out")


DEADLINES = {
    "no-limit": (None, 5.0, None),
    "time-left": (2.0, 0.5, 1.5),
    "time-spent": (2.0, 3.0, 0.0),
}


@pytest.mark.parametrize(("limit", "spent", "left"), list(DEADLINES.values()), ids=list(DEADLINES))
def test_deadline_left__time_spent__what_is_left_never_negative(
    limit: float | None, spent: float, left: float | None
) -> None:
    deadline = Deadline(limit, "the body", started=time.perf_counter() - spent)
    got = deadline.left()
    assert got == left if left is None else got == pytest.approx(left, abs=0.05)


def test_deadline_expired__a_part__names_it_and_what_the_limit_covers() -> None:
    text = Deadline(2.0, "the body and its evaluators").expired("evaluator 'judge'")
    assert text == (
        "TimeoutError: timed out after 2s: evaluator 'judge' was still running "
        "(the timeout covers the body and its evaluators)"
    )
