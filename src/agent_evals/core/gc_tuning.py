"""Relaxed cyclic-GC thresholds while a run builds many long-lived objects, restored afterwards."""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

RELAXED_THRESHOLDS = (10_000, 50, 100)
"""Generation thresholds used during a run (never lower than the process's own settings)."""

_lock = threading.Lock()
_depth = 0  # runs currently inside relaxed_gc(), across threads and event loops
_saved: tuple[int, int, int] | None = None  # the thresholds to restore when the last run ends
_applied: tuple[int, int, int] | None = None  # what relaxed_gc() set, to notice a change by the user


@contextlib.contextmanager
def relaxed_gc() -> Iterator[None]:
    """Collect young garbage less often and old generations rarely while the block runs.

    A run keeps every example's result alive until it ends, so frequent collections rescan a
    growing heap and find nothing to free; they cost more than the harness itself. Inside the
    block the thresholds are raised to at least ``RELAXED_THRESHOLDS``; when the last of any
    overlapping blocks ends they are restored, unless someone changed them meanwhile. Automatic
    collection that is switched off (``gc.disable()`` or a zero threshold) is left alone.
    """
    global _depth, _saved, _applied
    with _lock:
        if _depth == 0:
            current = gc.get_threshold()
            if current[0] > 0:
                _saved = current
                _applied = (
                    max(current[0], RELAXED_THRESHOLDS[0]),
                    max(current[1], RELAXED_THRESHOLDS[1]),
                    max(current[2], RELAXED_THRESHOLDS[2]),
                )
                gc.set_threshold(*_applied)
            else:
                _saved = _applied = None
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                if _saved is not None and gc.get_threshold() == _applied:
                    gc.set_threshold(*_saved)
                _saved = _applied = None
