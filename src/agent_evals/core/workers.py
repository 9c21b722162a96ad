"""Worker threads that never hold an interrupted run open: the trial driver's daemon pool, the loop's pool.

``concurrent.futures.ThreadPoolExecutor`` joins its threads when the interpreter exits, so one sync
call that never returns would keep an interrupted run alive after its record is written. These
threads are daemons: a call that cannot be stopped is abandoned with its thread, never joined.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any, TypeVar

from agent_evals.core.signals import signal_received

T = TypeVar("T")

_Work = tuple["Future[Any]", Callable[..., Any], tuple[Any, ...], dict[str, Any]]


class DaemonPool(Executor):
    """At most ``workers`` daemon threads (started as work arrives) taking calls in order from one queue."""

    def __init__(self, workers: int, name: str = "agent-evals") -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self._workers = workers
        self._name = name
        self._queue: queue.SimpleQueue[_Work | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        """Queue ``fn(*args, **kwargs)``; a thread is started when fewer than ``workers`` run."""
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot schedule new work after the pool was shut down")
            future: Future[T] = Future()
            self._queue.put((future, fn, args, kwargs))
            if len(self._threads) < self._workers:
                thread = threading.Thread(
                    target=self._work, name=f"{self._name}_{len(self._threads)}", daemon=True
                )
                self._threads.append(thread)
                thread.start()
            return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Take no more work; with ``cancel_futures`` drop what has not started; with ``wait`` join
        the threads (the driver never waits: a stuck call is abandoned)."""
        with self._lock:
            self._closed = True
            if cancel_futures:
                while True:
                    try:
                        work = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if work is not None:
                        work[0].cancel()
            for _ in self._threads:
                self._queue.put(None)
            threads = list(self._threads)
        if wait:
            for thread in threads:
                thread.join()

    def _work(self) -> None:
        while True:
            work = self._queue.get()
            if work is None:
                return
            future, fn, args, kwargs = work
            if not future.set_running_or_notify_cancel():
                continue
            try:
                value = fn(*args, **kwargs)
            except BaseException as exc:  # handed to whoever waits for the future, as the stdlib pool does
                future.set_exception(exc)
            else:
                future.set_result(value)


class LoopPool(ThreadPoolExecutor):
    """An event loop's default executor (``asyncio.to_thread``) whose shutdown, after a real signal
    (``core.signals``), drops queued calls and does not wait for running ones: ``asyncio.run`` waits
    for it on the way out, and a scorer's call that never returns would hold the interrupted run."""

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        stopping = signal_received() is not None
        super().shutdown(wait=wait and not stopping, cancel_futures=cancel_futures or stopping)
