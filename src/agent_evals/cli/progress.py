"""The one-line progress display of ``agent-evals run`` on a terminal."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import IO

Tally = Callable[[], tuple[int, int, int]]
"""Finished trials so far as (passed, failed, errored)."""


class ProgressLine:
    """A one-line progress display on a terminal, shown once a run has lasted a second.

    ``running: 40/120 33% | 35 passed, 3 failed, 2 errored | 12s, about 24s left``
    """

    def __init__(
        self,
        stream: IO[str],
        *,
        delay: float = 1.0,
        interval: float = 0.1,
        tally: Tally | None = None,
        color: bool = False,
    ) -> None:
        """Draw on ``stream`` (a TTY), starting ``delay`` seconds after creation."""
        self.stream = stream
        self.delay = delay
        self.interval = interval
        self.tally = tally
        self.color = color
        self.started = time.monotonic()
        self._last = 0.0
        self._drawn = False
        self._lock = threading.Lock()

    def __call__(self, done: int, total: int) -> None:
        """Report progress (safe to call from worker threads)."""
        now = time.monotonic()
        if now - self.started < self.delay or (now - self._last < self.interval and done < total):
            return
        with self._lock:
            self._last = now
            self.stream.write("\r\x1b[K" + self.line(done, total, now - self.started))
            self.stream.flush()
            self._drawn = True

    def line(self, done: int, total: int, elapsed: float) -> str:
        """The progress text (trials done of total, outcomes so far, elapsed time and an estimate left)."""
        from agent_evals.core.percent import percent
        from agent_evals.report.colour import paint

        pct = f" {percent(done / total, 0)}" if total else ""
        parts = [f"running: {done}/{total} trials{pct}"]
        if self.tally is not None:
            passed, failed, errored = self.tally()
            failed_text = paint(f"{failed} failed", "fail", self.color and failed > 0)
            errored_text = paint(f"{errored} errored", "error", self.color and errored > 0)
            parts.append(f"{passed} passed, {failed_text}, {errored_text}")
        timing = f"{elapsed:.0f}s"
        if 0 < done < total:
            timing += f", about {elapsed / done * (total - done):.0f}s left"
        parts.append(timing)
        return " | ".join(parts)

    def clear(self) -> None:
        """Erase the line, if it was drawn."""
        with self._lock:
            if self._drawn:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
                self._drawn = False
