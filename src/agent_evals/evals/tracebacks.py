"""Error text for eval results: ``Type: message`` and tracebacks trimmed to the user's own frames."""

from __future__ import annotations

import functools
import linecache
import sysconfig
import traceback
from pathlib import Path
from types import TracebackType

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


def describe(exc: BaseException) -> str:
    """``Type: message`` (just ``Type`` when the message is empty)."""
    message = str(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def user_traceback(exc: BaseException) -> str:
    """The traceback of ``exc`` keeping only user frames (all frames when none is a user frame)."""
    frames = traceback.extract_tb(exc.__traceback__)
    kept = [f for f in frames if is_user_frame(f.filename)] or list(frames)[-1:]
    lines = ["Traceback (user frames only):\n", *traceback.format_list(kept)]
    lines.extend(traceback.format_exception_only(type(exc), exc))
    return "".join(lines).rstrip("\n")


def innermost_line(tb: TracebackType | None) -> str | None:
    """Source text of the line where a traceback ends (the failing ``assert``), when readable."""
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    text = linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno).strip()
    return text or None


def assertion_notes(exc: AssertionError) -> str:
    """An assertion's notes: its message, or the source line of a bare ``assert``."""
    message = str(exc)
    if message:
        return message
    return innermost_line(exc.__traceback__) or "assertion failed"
