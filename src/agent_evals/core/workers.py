"""Worker threads that never hold an interrupted run open: the trial driver's daemon pool, the loop's pool.

``concurrent.futures.ThreadPoolExecutor`` joins its threads when the interpreter exits, so one sync
call that never returns would keep an interrupted run alive after its record is written. These
threads are daemons: a call that cannot be stopped is abandoned with its thread, never joined.
"""

from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any, TypeVar

from agent_evals.core.signals import signal_received

T = TypeVar("T")

Then = Callable[[Any, "BaseException | None"], None]
"""``then(value, exc)``: what a worker does with a call's result (or the exception it raised)."""

_Job = tuple[Callable[[], Any], Then, "Future[Any] | None"]

_SKIPPED = object()
"""What a submitted call gives when its future was cancelled before a worker took it."""


class DaemonPool(Executor):
    """Daemon worker threads taking calls from one queue, reused from call to call.

    An idle worker takes the next call; a new one starts only when none is idle (and, with
    ``workers``, while fewer than that many run). Without a cap a worker stuck in a call that never
    returns is simply not idle: the next call starts a new worker in its place, so stuck calls never
    starve later ones, and a run of ``n`` calls at most ``c`` at a time starts about ``c`` threads
    (plus one per stuck call) instead of ``n``.
    """

    def __init__(self, workers: int | None = None, name: str = "agent-evals") -> None:
        if workers is not None and workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self._workers = workers
        self._name = name
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._idle = 0  # workers done with a call that no queued call has claimed (under the lock)
        self._lock = threading.Lock()
        self._closed = False
        self._threads: list[threading.Thread] = []
        self.started = 0
        """How many worker threads this pool has started."""

    def run(self, call: Callable[[], Any], then: Then) -> bool:
        """Call ``call()`` in a worker, then ``then(value, exc)`` there once the worker counts as idle
        (so the caller's next call reuses it). False when the pool is shut down: nothing was queued."""
        return self._put((call, then, None))

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        """Queue ``fn(*args, **kwargs)``; its future settles when a worker has run it."""
        future: Future[T] = Future()

        def call() -> Any:
            if not future.set_running_or_notify_cancel():
                return _SKIPPED
            return fn(*args, **kwargs)

        def then(value: Any, exc: BaseException | None) -> None:
            if exc is not None:  # handed to whoever waits for the future, as the stdlib pool does
                future.set_exception(exc)
            elif value is not _SKIPPED:
                future.set_result(value)

        if not self._put((call, then, future)):
            raise RuntimeError("cannot schedule new work after the pool was shut down")
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Take no more work; with ``cancel_futures`` cancel submitted calls that have not started; with
        ``wait`` join the threads (the driver never waits: a stuck call is abandoned)."""
        with self._lock:
            self._closed = True
            if cancel_futures:
                kept: list[_Job] = []
                while True:
                    try:
                        job = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if job is not None and job[2] is not None:
                        job[2].cancel()
                    elif job is not None:
                        kept.append(job)  # a run() call: someone awaits it, it still runs
                for job in kept:
                    self._queue.put(job)
            for _ in range(self.started):
                self._queue.put(None)
            threads = list(self._threads) if wait else []
        for thread in threads:
            thread.join()

    def _put(self, job: _Job) -> bool:
        with self._lock:
            if self._closed:
                return False
            self._queue.put(job)
            if self._idle:
                self._idle -= 1
                return True  # an idle worker takes it
            if self._workers is not None and self.started >= self._workers:
                return True  # it waits for a worker
            thread = threading.Thread(target=self._work, name=f"{self._name}_{self.started}", daemon=True)
            self.started += 1
            self._threads.append(thread)
            thread.start()
            return True

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            call, then, _future = job
            del job
            value: Any = None
            fault: BaseException | None = None
            try:
                value = call()
            except BaseException as exc:  # handed on, whatever it is
                fault = exc
            with self._lock:  # idle before the result is handed on: the caller's next call finds it free
                self._idle += 1
            then(value, fault)
            del call, then, _future, value, fault


_RUN_POOL: contextvars.ContextVar[DaemonPool | None] = contextvars.ContextVar(
    "agent_evals_run_pool", default=None
)


def run_pool() -> DaemonPool | None:
    """The pool of the trial driver running this code (``core.trials.drive``), None outside a run."""
    return _RUN_POOL.get()


def use_pool(pool: DaemonPool | None) -> contextvars.Token[DaemonPool | None]:
    """Make ``pool`` the one :func:`run_pool` gives in this context (undo with :func:`forget_pool`)."""
    return _RUN_POOL.set(pool)


def forget_pool(token: contextvars.Token[DaemonPool | None]) -> None:
    """Undo a :func:`use_pool`."""
    _RUN_POOL.reset(token)


def in_new_thread(call: Callable[[], Any], then: Then, name: str = "agent-evals-trial") -> None:
    """Call ``call()`` in a fresh daemon thread, then ``then(value, exc)`` there (outside a run)."""

    def work() -> None:
        try:
            value = call()
        except BaseException as exc:  # handed on, whatever it is
            then(None, exc)
        else:
            then(value, None)

    threading.Thread(target=work, name=name, daemon=True).start()


class LoopPool(ThreadPoolExecutor):
    """An event loop's default executor (``asyncio.to_thread``) whose shutdown, after a real signal
    (``core.signals``), drops queued calls and does not wait for running ones: ``asyncio.run`` waits
    for it on the way out, and a scorer's call that never returns would hold the interrupted run."""

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        stopping = signal_received() is not None
        super().shutdown(wait=wait and not stopping, cancel_futures=cancel_futures or stopping)
