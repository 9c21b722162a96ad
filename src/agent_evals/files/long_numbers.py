"""Numbers too long to read: where a text holds one, said plainly (Python refuses ints over 4,300 digits)."""

from __future__ import annotations

import re
import sys

_LIMIT = sys.get_int_max_str_digits() or 4300
_LONG = re.compile(rf"\d{{{_LIMIT + 1},}}")


def too_long(exc: ValueError) -> bool:
    """Whether ``exc`` is Python refusing to read a number of too many digits."""
    return "digits" in str(exc) and "int" in str(exc)


def where_too_long(text: str) -> tuple[int, int, str]:
    """``(line, column, message)`` of the first number of more digits than Python reads in ``text``
    (1-based; ``(0, 0, message)`` when none is found, as for a number built from parts)."""
    found = _LONG.search(text)
    if found is None:
        return 0, 0, f"a number has more than {_LIMIT:,} digits, more than can be read; write it as text"
    line = text.count("\n", 0, found.start()) + 1
    column = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
    digits = found.end() - found.start()
    return (
        line,
        column,
        f"a number of {digits:,} digits, more than can be read ({_LIMIT:,}); write it as text",
    )
