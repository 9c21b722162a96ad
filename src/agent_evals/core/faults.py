"""Faults raised by user code (agents, scorers, evaluators): which a trial absorbs, and their safe text."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import sysconfig
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from agent_evals.core.signals import signal_received
from agent_evals.core.workers import in_new_thread, run_pool
from agent_evals.record.text import clean_text

T = TypeVar("T")

MAX_MESSAGE_CHARS = 2000
"""An error message longer than this is cut, and the cut says how long the whole was."""


OVERRUN_GRACE_S = 0.0
"""A trial that returns this much past its timeout is errored, not passed: within the limit it would
have been cancelled, so it blocked the loop or swallowed its cancellation."""


def overran(elapsed: float, limit: float) -> str:
    """The error of a trial that came back after its timeout had passed."""
    return (
        f"TimeoutError: timed out after {limit:g}s (it returned after {elapsed:.1f}s: an async agent "
        "that blocks the event loop or ignores cancellation cannot be stopped at the limit)"
    )


class TrialFault(Exception):
    """Carries a user ``BaseException`` (e.g. ``SystemExit``) as a plain Exception.

    asyncio lets ``SystemExit`` escape a task and stop the event loop; wrapping it before it reaches a
    task boundary keeps it inside the trial that raised it.
    """

    def __init__(self, exc: BaseException) -> None:
        super().__init__(type(exc).__name__)
        self.exc = exc


def absorbed(exc: BaseException) -> bool:
    """Whether a trial records ``exc`` as its error: whatever user code raises, it is that trial's fault.

    Only our own stops pass through: cancellation of the trial's task, and a ``KeyboardInterrupt``
    once a real signal has been noted (``core.signals.note_signal``). ``SystemExit`` (``sys.exit(0)``),
    ``GeneratorExit``, ``StopIteration`` and a ``KeyboardInterrupt`` raised with no signal received
    are errors of the trial that raised them, not the end of the run.
    """
    if isinstance(exc, asyncio.CancelledError):
        return False
    if isinstance(exc, KeyboardInterrupt):
        return signal_received() is None
    return True


def closing(exc: BaseException) -> bool:
    """Whether ``exc`` is the ``GeneratorExit`` Python throws into a suspended coroutine to close it.

    That one is not absorbed (a coroutine must let it through); a ``GeneratorExit`` that user code
    raises itself comes from a user frame and is its trial's fault.
    """
    if not isinstance(exc, GeneratorExit):
        return False
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is None or not is_user_frame(tb.tb_frame.f_code.co_filename)


def unwrap(exc: BaseException) -> BaseException:
    """The user exception behind a :class:`TrialFault` (else ``exc`` itself)."""
    return exc.exc if isinstance(exc, TrialFault) else exc


def safe_text(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` that always encodes as UTF-8 (lone surrogates become U+FFFD), cut at ``limit`` chars."""
    text = clean_text(text)
    if len(text) > limit:
        text = f"{text[:limit]}... [cut: {len(text):,} characters in all]"
    return text


def describe_fault(exc: BaseException, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``Type: message`` of a user exception, never raising (a ``__str__`` that raises is named)."""
    exc = unwrap(exc)
    name = _type_name(exc)
    try:
        message = str(exc)
    except BaseException as inner:  # a user __str__ may raise anything
        if not absorbed(inner):
            raise
        message = f"<the message could not be read: its __str__ raised {_type_name(inner)}>"
    return safe_text(f"{name}: {message}" if message else name, limit)


def _type_name(exc: BaseException) -> str:
    try:
        return type(exc).__name__
    except Exception:  # pragma: no cover - a metaclass could make even this raise
        return "BaseException"


async def in_daemon_thread(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Call sync ``fn`` in a daemon thread (with the caller's context variables) and await it.

    Inside a run the thread is a worker of the run's pool (``core.workers.run_pool``), reused from
    call to call; outside one, a fresh thread. A call stuck past its timeout holds only its own
    worker (the next call starts another in its place), its late result is dropped, and it never
    keeps the process alive once the run is over.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()

    def settle(value: T | None, exc: BaseException | None) -> None:
        if future.done():  # cancelled: our limit stopped the wait, the late result is dropped
            return
        if exc is not None:
            # StopIteration cannot be set on a future (asyncio refuses it): wrapped like a BaseException
            plain = isinstance(exc, Exception) and not isinstance(exc, StopIteration)
            future.set_exception(exc if plain else TrialFault(exc))
        else:
            future.set_result(value)  # type: ignore[arg-type]

    def call() -> T:
        return context.run(fn, *args, **kwargs)

    def then(value: T | None, exc: BaseException | None) -> None:
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits for this call any more
            loop.call_soon_threadsafe(settle, value, exc)

    pool = run_pool()
    if pool is None or not pool.run(call, then):
        in_new_thread(call, then)
    return await future


_PACKAGE_DIR = str(Path(__file__).resolve().parent.parent)


@functools.lru_cache(maxsize=1)
def _library_dirs() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    dirs = {paths.get(name, "") for name in ("stdlib", "platstdlib", "purelib", "platlib")}
    return (_PACKAGE_DIR, *sorted(d for d in dirs if d))


def is_user_frame(filename: str) -> bool:
    """False for frames of agent-evals itself, the standard library and installed packages."""
    if filename.startswith("<"):
        return False
    try:
        resolved = str(Path(filename).resolve())
    except OSError:
        resolved = filename
    return not any(resolved.startswith(d) for d in _library_dirs())


def user_traceback(exc: BaseException) -> str:
    """The traceback of ``exc`` keeping only user frames (all frames when none is a user frame)."""
    frames = traceback.extract_tb(exc.__traceback__)
    kept = [f for f in frames if is_user_frame(f.filename)]
    if not kept and isinstance(exc, SyntaxError):  # its own text names the file, line and column
        return "".join(traceback.format_exception_only(type(exc), exc)).rstrip("\n")
    kept = kept or list(frames)[-1:]
    lines = ["Traceback (user frames only):\n", *traceback.format_list(kept)]
    lines.append(describe_fault(exc) + "\n")
    return safe_text("".join(lines).rstrip("\n"), limit=20_000)
