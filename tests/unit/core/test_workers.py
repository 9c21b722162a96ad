"""core/workers.py: the driver's daemon pool runs calls in order, abandons stuck ones, and the loop's
pool does not wait for a stuck call after a signal."""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from concurrent.futures import CancelledError

import pytest

from agent_evals.core.signals import forget_signal, note_signal
from agent_evals.core.workers import DaemonPool, LoopPool


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    forget_signal()
    yield
    forget_signal()


@pytest.mark.parametrize(
    ("workers", "calls"), [(1, 5), (3, 7), (8, 2)], ids=["one", "three", "more-than-calls"]
)
def test_daemon_pool__calls__results_in_daemon_threads_never_more_than_workers(
    workers: int, calls: int
) -> None:
    pool = DaemonPool(workers, "test")
    seen: set[str] = set()

    def work(n: int) -> int:
        assert threading.current_thread().daemon
        seen.add(threading.current_thread().name)
        return n * n

    futures = [pool.submit(work, n) for n in range(calls)]
    assert [f.result(timeout=5) for f in futures] == [n * n for n in range(calls)]
    pool.shutdown(wait=True)
    assert 1 <= len(seen) <= min(workers, calls)


@pytest.mark.parametrize(
    ("fault", "kind"),
    [(ValueError("v"), ValueError), (KeyboardInterrupt(), KeyboardInterrupt)],
    ids=["error", "base"],
)
def test_daemon_pool__call_raises__the_future_holds_it(
    fault: BaseException, kind: type[BaseException]
) -> None:
    pool = DaemonPool(1)

    def boom() -> None:
        raise fault

    with pytest.raises(kind):
        pool.submit(boom).result(timeout=5)
    pool.shutdown()


def test_daemon_pool__shutdown_cancelling__queued_calls_cancelled_new_ones_refused() -> None:
    pool = DaemonPool(1)
    gate = threading.Event()
    first = pool.submit(gate.wait, 5)
    queued = pool.submit(int, "1")
    pool.shutdown(wait=False, cancel_futures=True)
    gate.set()
    assert first.result(timeout=5) is True
    with pytest.raises(CancelledError):
        queued.result(timeout=5)
    with pytest.raises(RuntimeError, match="shut down"):
        pool.submit(int, "2")


def test_daemon_pool__zero_workers__value_error() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        DaemonPool(0)


@pytest.mark.parametrize(
    ("pool", "exits"),
    [("DaemonPool(1)", True), ("ThreadPoolExecutor(1)", False)],
    ids=["daemon-pool", "stdlib-pool-is-joined-at-exit"],
)
def test_pool__call_never_returns__interpreter_exit_waits_only_for_the_stdlib_pool(
    pool: str, exits: bool
) -> None:
    script = textwrap.dedent(
        f"""
        import threading
        from concurrent.futures import ThreadPoolExecutor
        from agent_evals.core.workers import DaemonPool
        pool = {pool}
        pool.submit(threading.Event().wait)
        pool.shutdown(wait=False)
        """
    )
    try:
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=3)
    except subprocess.TimeoutExpired:
        assert not exits, "the interpreter waited for a daemon thread at exit"
        return
    assert exits, "the stdlib pool is expected to hold the exit (the reason DaemonPool exists)"
    assert proc.returncode == 0, proc.stderr


def test_loop_pool__shutdown_waiting_after_a_signal__returns_with_a_call_stuck() -> None:
    pool = LoopPool(max_workers=1)
    gate = threading.Event()
    pool.submit(gate.wait, 30)
    note_signal(signal.SIGTERM)
    started = time.monotonic()
    pool.shutdown(wait=True)
    assert time.monotonic() - started < 1
    gate.set()


def test_daemon_pool__uncapped_calls_one_after_another__one_worker_reused() -> None:
    pool = DaemonPool(name="test")
    threads: list[threading.Thread] = []

    def work(n: int) -> int:
        threads.append(threading.current_thread())
        return n

    for n in range(200):  # each call is submitted as soon as the previous result is in
        assert pool.submit(work, n).result(timeout=5) == n
    pool.shutdown(wait=True)
    assert pool.started == 1
    assert len(set(threads)) == 1


def test_daemon_pool__run__then_is_called_with_the_value_or_the_exception() -> None:
    pool = DaemonPool()
    got: queue.SimpleQueue[tuple[object, str | None]] = queue.SimpleQueue()

    def then(value: object, exc: BaseException | None) -> None:
        got.put((value, type(exc).__name__ if exc is not None else None))

    assert pool.run(lambda: 7, then)
    assert got.get(timeout=5) == (7, None)
    assert pool.run(lambda: 1 / 0, then)
    assert got.get(timeout=5) == (None, "ZeroDivisionError")
    pool.shutdown(wait=True)
    assert pool.started == 1
    assert not pool.run(lambda: 1, then)  # shut down: refused, nothing queued


@pytest.mark.parametrize("stuck", [1, 3], ids=["one-stuck", "three-stuck"])
def test_daemon_pool__uncapped_workers_stuck__a_new_worker_takes_the_next_calls(stuck: int) -> None:
    pool = DaemonPool(name="test")
    gate = threading.Event()
    stuck_calls = [pool.submit(gate.wait, 30) for _ in range(stuck)]
    started = time.monotonic()
    later = [pool.submit(int, str(n)).result(timeout=5) for n in range(20)]
    assert time.monotonic() - started < 2
    assert later == list(range(20))
    assert pool.started == stuck + 1  # each stuck worker replaced once; the replacement is reused
    gate.set()
    assert all(f.result(timeout=5) is True for f in stuck_calls)
    pool.shutdown(wait=True)
