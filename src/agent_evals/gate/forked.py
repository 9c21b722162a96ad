"""Read and summarise a (baseline) run record in a forked child process while this one does other work."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from agent_evals.errors import RunRecordError
from agent_evals.gate.breakdown import count_sides
from agent_evals.gate.packing import pack, unpack
from agent_evals.gate.summary import CaseAnswer, CaseRequest, RunSummary, local_fetch, read_summary

FORK_MIN_BYTES = 5_000_000
"""Records smaller than this are read in this process: a child would cost more than it saves."""


def can_fork() -> bool:
    """Forking is used on Linux only, and only from a single-threaded process (fork copies no threads)."""
    return (
        sys.platform.startswith("linux")
        and "fork" in multiprocessing.get_all_start_methods()
        and threading.active_count() == 1
    )


def _serve(conn: Connection, path: str) -> None:
    """The child: send the packed summary (or the error message), then raw cases on request; never returns."""
    try:
        try:
            summary = read_summary(path)
            for suite in summary.suites:
                count_sides(suite.view)  # here rather than in the parent, which counts its own side
            conn.send(("ok", pack(summary)))
        except RunRecordError as exc:
            conn.send(("error", str(exc)))
            return
        fetch = local_fetch(summary)
        while True:
            requests = conn.recv()
            if requests is None:
                return
            conn.send(fetch(requests)())
    except (EOFError, BrokenPipeError):
        return  # the parent went away (e.g. it stopped on an error of its own)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            conn.send(("crash", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()
        # Skip freeing the document object by object and any exit handler inherited from the parent.
        os._exit(0)


class SummaryReader:
    """A run record being read and summarised, in a forked child when the file is large (see
    :func:`can_fork`), else in this process when :meth:`result` is called. Close it when done."""

    def __init__(self, path: str | os.PathLike[str], *, min_bytes: int = FORK_MIN_BYTES) -> None:
        self.path = Path(path)
        self._conn: Connection | None = None
        self._process: Any = None
        self._answered = False
        try:
            large = self.path.stat().st_size >= min_bytes
        except OSError:
            large = False  # read_document reports the problem when the result is asked for
        if large and can_fork():
            context = multiprocessing.get_context("fork")
            parent_end, child_end = context.Pipe()
            self._process = context.Process(target=_serve, args=(child_end, str(self.path)), daemon=True)
            self._process.start()
            child_end.close()
            self._conn = parent_end

    @property
    def forked(self) -> bool:
        """Whether a child process does the reading."""
        return self._conn is not None

    def result(self) -> RunSummary:
        """The summary; a RunRecordError (as reading in this process would raise it) on a bad record."""
        if self._conn is None:
            return read_summary(self.path)
        try:
            status, payload = self._conn.recv()
            self._answered = True
        except EOFError as exc:
            self.close()
            raise RunRecordError(
                f"{self.path}: the process reading this run record ended unexpectedly"
            ) from exc
        if status == "error":
            self.close()
            raise RunRecordError(payload)
        if status != "ok":
            self.close()
            raise RunRecordError(f"{self.path}: reading this run record failed: {payload}")
        return unpack(payload, self._fetch)

    def _fetch(self, requests: list[CaseRequest]) -> Callable[[], list[CaseAnswer]]:
        """Send the requests now; the child works on them while this process goes on."""
        conn = self._conn
        if conn is None:
            raise RuntimeError("the reader is closed")
        conn.send(requests)

        def answers() -> list[CaseAnswer]:
            got: list[CaseAnswer] | tuple[str, str] = conn.recv()
            if isinstance(got, tuple):  # ("crash", message): the child failed while answering
                raise RunRecordError(f"{self.path}: reading this run record failed: {got[1]}")
            return got

        return answers

    def close(self) -> None:
        """Let the child end (it needs nothing more) and reap it; a child still reading (this process
        stopped early, e.g. on a bad candidate) is ended at once rather than waited for."""
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.send(None)
            self._conn.close()
            self._conn = None
        if self._process is not None:
            if not self._answered:
                self._process.kill()
            self._process.join(timeout=5)
            self._process = None
