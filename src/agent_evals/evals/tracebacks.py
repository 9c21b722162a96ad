"""Error text for eval results: ``Type: message`` and tracebacks trimmed to the user's own frames."""

from __future__ import annotations

import ast
import linecache
from types import TracebackType

# re-exported: the trial executor (core.executor) trims tracebacks in core.faults
from agent_evals.core.faults import describe_fault, safe_text
from agent_evals.core.faults import is_user_frame as is_user_frame
from agent_evals.core.faults import user_traceback as user_traceback


def describe(exc: BaseException) -> str:
    """``Type: message`` (just ``Type`` when the message is empty), capped and always encodable."""
    return describe_fault(exc)


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
