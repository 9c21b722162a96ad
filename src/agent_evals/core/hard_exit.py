"""``os._exit`` from user code in the run's own process: its trial's error, never a run that ends at once."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

_REAL_EXIT = os._exit
"""The interpreter's own ``os._exit``, which our code calls through :func:`leave`."""
_PLATFORM = sys.modules[os.name]
"""``posix`` (``nt``): where ``os`` takes ``_exit`` from, reachable under that name too."""


class ExitRefused(SystemExit):
    """User code called ``os._exit`` in the run's process while the run held it. Raised in its place,
    a trial records it as its error. A ``SystemExit`` so that ``except Exception`` in user code does
    not swallow it; should it reach the top of the process, its message makes the exit code 1."""


def leave(code: int) -> NoReturn:
    """End this process now with ``code``, without cleanup (our own ends: past the guard below)."""
    _REAL_EXIT(code)


@contextmanager
def exits_refused() -> Iterator[None]:
    """While the run's user code runs, ``os._exit`` called in this process raises :class:`ExitRefused`.

    Left as is, an agent, eval or library calling ``os._exit(0)`` ended the run at once with exit 0
    and no finished record: a ``--fail-under`` gate passed on a run that never finished. A forked
    child (another process id) still ends as it asked. Code that means to end the process can still
    (``os.execv``, libc's ``_exit``, an ``atexit`` hook): ``run --fail-under`` is no boundary against
    that, ``ci`` is (it reads the record the child leaves and never passes without a finished one)."""
    pid = os.getpid()

    def guarded(status: int) -> NoReturn:
        if os.getpid() != pid:
            _REAL_EXIT(status)
        raise ExitRefused(
            f"os._exit({status!r}) was called in the run's own process; it would have ended the run at once "
            "without its record, so it is this trial's error instead (a forked child may call it)"
        )

    os._exit = guarded
    setattr(_PLATFORM, "_exit", guarded)  # noqa: B010 (the module's type does not list it)
    try:
        yield
    finally:
        os._exit = _REAL_EXIT
        setattr(_PLATFORM, "_exit", _REAL_EXIT)  # noqa: B010
