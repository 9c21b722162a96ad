"""core/signals.py: a noted signal is remembered once and wakes a retry's wait at once."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator

import pytest

from agent_evals.core.retry import RetryPolicy
from agent_evals.core.signals import Interrupted, forget_signal, note_signal, pause, signal_received


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    forget_signal()
    yield
    forget_signal()


@pytest.mark.parametrize(
    ("noted", "expected"),
    [
        ((), None),
        ((signal.SIGINT,), signal.SIGINT),
        ((signal.SIGTERM,), signal.SIGTERM),
        ((signal.SIGINT, signal.SIGTERM), signal.SIGINT),
    ],
    ids=["none", "sigint", "sigterm", "first-one-counts"],
)
def test_signal_received__after_notes__the_first_signal_or_none(
    noted: tuple[int, ...], expected: int | None
) -> None:
    for signum in noted:
        note_signal(signum)
    assert signal_received() == expected


def test_pause__no_signal__sleeps_its_time() -> None:
    started = time.monotonic()
    pause(0.05)
    assert time.monotonic() - started >= 0.05


@pytest.mark.parametrize("when", ["before", "during"])
def test_pause__signal_noted__raises_interrupted_at_once(when: str) -> None:
    if when == "before":
        note_signal(signal.SIGTERM)
    else:
        threading.Timer(0.1, note_signal, args=(signal.SIGINT,)).start()
    started = time.monotonic()
    with pytest.raises(Interrupted):
        pause(60)
    assert time.monotonic() - started < 5


def test_retry_policy__default_blocking_wait__is_the_signal_aware_pause() -> None:
    assert RetryPolicy(1).sleep_blocking is pause
