"""The `run` command's pieces that are not covered end to end: the progress line."""

from __future__ import annotations

import io

from agent_evals.cli.progress import ProgressLine


def test_progress_line__silent_during_the_first_second() -> None:
    stream = io.StringIO()
    progress = ProgressLine(stream, delay=60)
    progress(1, 10)
    progress.clear()
    assert stream.getvalue() == ""


def test_progress_line__draws_in_place_then_clears() -> None:
    stream = io.StringIO()
    progress = ProgressLine(stream, delay=0, interval=0)
    progress(3, 10)
    progress(10, 10)
    progress.clear()
    out = stream.getvalue()
    assert "\r\x1b[Krunning: 3/10 trials 30%" in out and "running: 10/10 trials 100%" in out
    assert out.endswith("\r\x1b[K")
