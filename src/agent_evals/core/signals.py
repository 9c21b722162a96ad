"""A real SIGINT/SIGTERM as the run sees it: noted by the CLI's handler, so waits wake and threads stop."""

from __future__ import annotations

import threading

_received = threading.Event()
_signums: list[int] = []


class Interrupted(KeyboardInterrupt):
    """Raised where a worker thread wakes from a wait because a signal was noted: its trial is abandoned."""


def note_signal(signum: int) -> None:
    """Record that signal ``signum`` reached the process (the first one counts) and wake every wait."""
    if not _signums:
        _signums.append(signum)
    _received.set()


def signal_received() -> int | None:
    """The first real signal noted by :func:`note_signal` (SIGINT, SIGTERM), else None."""
    return _signums[0] if _signums else None


def pause(seconds: float) -> None:
    """Sleep ``seconds`` (a retry's wait in a worker thread); a noted signal ends it at once with
    :class:`Interrupted`, so the thread starts no new attempt."""
    if _received.wait(max(0.0, seconds)):
        raise Interrupted


def forget_signal() -> None:
    """Clear the noted signal (tests, and a caller that runs again in the same process)."""
    _signums.clear()
    _received.clear()
