"""A failing score as one terminal line: the scorer, its notes, what was expected and what the agent gave."""

from __future__ import annotations

import re
from collections.abc import Callable

AUTOMATIC_KEY = "pass"
"""The score key a code-first eval's assertion (or a bare ``True``/``False``) is recorded under: the
record keeps it (it is public), but a line reading ``pass: assert ...`` looks like a pass."""


def scorer_label(name: str) -> str:
    """How a failing score is named in a failure line: ``output``, or ``failed`` for :data:`AUTOMATIC_KEY`
    (``failed: assert ctx.output == ctx.reference``, never ``pass: ...``)."""
    return "failed" if name == AUTOMATIC_KEY else name


def evidence(
    name: str,
    notes: str | None,
    expected: str | None,
    actual: str | None,
    show: Callable[[str], str],
    show_value: Callable[[str], str] | None = None,
) -> str:
    """``name: notes (expected E, got A)``: ``expected`` and ``actual`` are the score's own, else the
    case's reference and the trial's output (the caller falls back); a part that is None is left out,
    an empty value shows as ``""``. Notes that already say what was expected and what came (a state
    check's ``lamp: expected "on", got "off"``) are not followed by the values again. ``show`` makes
    the untrusted notes printable, ``show_value`` (else ``show``) the expected and actual values."""
    label = scorer_label(name)
    said = show(notes) if notes else ""
    text = f"{label}: {said}" if said else label if label == "failed" else f"{label}: failed"
    if _SAYS_BOTH.search(said):
        return text
    parts = []
    value = show if show_value is None else show_value
    if expected is not None:
        parts.append(f"expected {_value(expected, value)}")
    if actual is not None:
        parts.append(f"got {_value(actual, value)}")
    return f"{text} ({', '.join(parts)})" if parts else text


_SAYS_BOTH = re.compile(r"\bexpected\b.*\bgot\b", re.DOTALL)
"""Notes worded as ``... expected X, got Y``: the comparison is already in them."""


def _value(value: str, show: Callable[[str], str]) -> str:
    shown = show(value)
    return shown if shown.strip() else '""'
