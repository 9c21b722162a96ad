"""Which exceptions a trial absorbs (issue 30: only a real signal or our cancellation stops a run)."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable

import pytest

from agent_evals.core.executor import await_user
from agent_evals.core.faults import absorbed, closing
from agent_evals.core.signals import forget_signal, note_signal, signal_received


class Fatal(BaseException):
    pass


ABSORBED = {
    "exception": (ValueError("x"), False, True),
    "system-exit": (SystemExit(0), False, True),
    "generator-exit": (GeneratorExit(), False, True),
    "stop-iteration": (StopIteration(), False, True),
    "base-exception-subclass": (Fatal(), False, True),
    "keyboard-interrupt-no-signal": (KeyboardInterrupt(), False, True),
    "keyboard-interrupt-after-a-signal": (KeyboardInterrupt(), True, False),
    "cancelled": (asyncio.CancelledError(), False, False),
    "system-exit-after-a-signal": (SystemExit(0), True, True),
}


@pytest.mark.parametrize(("exc", "signalled", "expected"), list(ABSORBED.values()), ids=list(ABSORBED))
def test_absorbed__each_exception__trial_error_unless_a_real_signal_or_cancellation(
    exc: BaseException, signalled: bool, expected: bool
) -> None:
    if signalled:
        note_signal(signal.SIGINT)
    try:
        assert absorbed(exc) is expected
    finally:
        forget_signal()


def test_note_signal__two_signals__the_first_is_kept_until_forgotten() -> None:
    try:
        note_signal(signal.SIGTERM)
        note_signal(signal.SIGINT)
        assert signal_received() == signal.SIGTERM
    finally:
        forget_signal()
    assert signal_received() is None


def _raised_here() -> GeneratorExit:
    try:
        raise GeneratorExit("mine")
    except GeneratorExit as exc:
        return exc


CLOSING = {
    "raised-by-user-code": (_raised_here, False),
    "no-user-frame": (GeneratorExit, True),
    "not-a-generator-exit": (lambda: ValueError("x"), False),
}


@pytest.mark.parametrize(("make", "expected"), list(CLOSING.values()), ids=list(CLOSING))
def test_closing__generator_exit__only_the_one_close_throws_in_passes_through(
    make: Callable[[], BaseException], expected: bool
) -> None:
    assert closing(make()) is expected


def test_await_user__coroutine_closed_while_awaiting_user_code__closes_cleanly() -> None:
    coro = await_user(asyncio.sleep(0))
    coro.send(None)
    coro.close()  # a GeneratorExit absorbed here would make close() raise RuntimeError


async def test_await_user__user_code_raises_generator_exit__its_trial_fault() -> None:
    async def user() -> None:
        raise GeneratorExit("mine")

    outcome = await await_user(user())
    assert isinstance(outcome.fault, GeneratorExit) and str(outcome.fault) == "mine"
