"""Error text for eval results: ``Type: message`` and tracebacks trimmed to the user's own frames."""

from __future__ import annotations

import ast
import functools
import linecache
import sysconfig
import traceback
from pathlib import Path
from types import TracebackType

from agent_evals.core.faults import describe_fault, safe_text

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
    """``Type: message`` (just ``Type`` when the message is empty), capped and always encodable."""
    return describe_fault(exc)


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


def innermost_line(tb: TracebackType | None) -> str | None:
    """Source of the statement where a traceback ends: the whole failing ``assert`` (also when it
    spans lines or shares its line with other statements), else that line, when readable."""
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    filename, lineno = tb.tb_frame.f_code.co_filename, tb.tb_lineno
    statement = _assert_source(filename, lineno)
    if statement:
        return statement
    text = linecache.getline(filename, lineno).strip()
    return text or None


def _assert_source(filename: str, lineno: int) -> str | None:
    """The ``assert`` statement covering ``lineno`` of ``filename``, on one line."""
    source = "".join(linecache.getlines(filename))
    if not source:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    spans = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Assert) and node.lineno <= lineno <= (node.end_lineno or node.lineno)
    ]
    if not spans:
        return None
    innermost = min(spans, key=lambda n: (n.end_lineno or n.lineno) - n.lineno)
    segment = ast.get_source_segment(source, innermost)
    return " ".join(segment.split()) if segment else None


def assertion_notes(exc: AssertionError) -> str:
    """An assertion's notes: its message, or the source line of a bare ``assert``."""
    try:
        message = safe_text(str(exc))
    except Exception:  # an AssertionError subclass whose __str__ raises
        message = describe_fault(exc)
    if message:
        return message
    return innermost_line(exc.__traceback__) or "assertion failed"
