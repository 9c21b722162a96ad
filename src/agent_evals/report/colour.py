"""When to colour terminal output (a TTY; ``NO_COLOR``, ``FORCE_COLOR``, ``TERM=dumb``) and how."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import IO, Any

STYLES: dict[str, str] = {
    "fail": "\x1b[31m",  # red
    "error": "\x1b[35m",  # magenta: an errored trial is not a failure
    "pass": "\x1b[32m",  # green
    "dim": "\x1b[2m",
    "bold": "\x1b[1m",
}
"""Style name -> ANSI start sequence."""

RESET = "\x1b[0m"


def use_colour(stream: IO[Any], env: Mapping[str, str] | None = None) -> bool:
    """Whether to colour ``stream``: ``NO_COLOR`` (any value) wins, then ``FORCE_COLOR`` (not ``0``),
    then ``TERM=dumb`` turns it off, else colour exactly when the stream is a terminal."""
    values = os.environ if env is None else env
    if values.get("NO_COLOR"):
        return False
    force = values.get("FORCE_COLOR")
    if force is not None and force not in ("", "0", "false"):
        return True
    if values.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def paint(text: str, style: str, on: bool = True) -> str:
    """``text`` in ``style`` when ``on``, else unchanged."""
    return f"{STYLES[style]}{text}{RESET}" if on and style in STYLES else text
