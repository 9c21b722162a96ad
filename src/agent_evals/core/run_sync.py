"""Run a coroutine to its value from sync code (``asyncio.run``, without its costly goodbye and with a
bounded wait for the tasks it cancels)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Generic, TypeVar

T = TypeVar("T")

STOP_GRACE_S = 2.0
"""How long the tasks left at the end (all of them, after a signal) may take to end once cancelled.
``asyncio.run`` waits for them without a limit: a task that swallows its cancellation (a retry loop
catching ``BaseException``) kept the process alive after SIGTERM until SIGKILL."""


_ABANDONED: list[asyncio.Task[Any]] = []
"""Tasks that did not end within :data:`STOP_GRACE_S` of their cancellation: held here for good, since
finalizing one whose code swallows ``GeneratorExit`` too can loop forever (``asyncio.sleep`` raising
"no running event loop" into an ``except BaseException`` retry loop)."""


def abandoned() -> int:
    """How many tasks :func:`run_sync` left running; the CLI then ends the process without the
    interpreter's teardown (``os._exit``), which would finalize them."""
    return len(_ABANDONED)


class _Held(Generic[T]):
    """A value as the main task's result: its text is the class name only."""

    __slots__ = ("value",)

    value: T


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)``, with two differences. The value is handed back in a holder: on its way
    out, asyncio (3.11) writes the finished main task as text twice, its result included, and the text
    of a large result (a run record, an eval result of 10,000 examples) costs a tenth of a second each
    time. And the tasks still running at the end, the main one too when a signal (a
    ``KeyboardInterrupt``) stopped the loop, get :data:`STOP_GRACE_S` to end once cancelled; one that
    has not by then is left behind, so the caller can write its record and exit."""

    async def main() -> _Held[T]:
        held: _Held[T] = _Held()
        held.value = await coro
        return held

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        return loop.run_until_complete(main()).value
    finally:
        try:
            _cancel_left(loop)
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            asyncio.set_event_loop(None)
            loop.close()


def _cancel_left(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel the loop's tasks and give them :data:`STOP_GRACE_S` to end; report what they raised."""
    left = asyncio.all_tasks(loop)
    if not left:
        return
    for task in left:
        task.cancel()
    loop.run_until_complete(asyncio.wait(left, timeout=STOP_GRACE_S))
    for task in left:
        if not task.done():
            _ABANDONED.append(task)
        elif not task.cancelled() and task.exception() is not None:
            loop.call_exception_handler(
                {
                    "message": "unhandled exception during shutdown",
                    "exception": task.exception(),
                    "task": task,
                }
            )
