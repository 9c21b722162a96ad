"""The terminal streams back after user code closed them (``sys.stdout.close()`` in an eval)."""

from __future__ import annotations

import io
import os
import sys
from typing import TextIO


def reopen_streams() -> None:
    """Put back ``sys.stdout`` / ``sys.stderr`` on file descriptors 1 and 2 when the code under test
    closed or removed them: the run's summary and its errors must still be printed (the descriptors
    themselves stay open: closing ``sys.stdout`` does not close them)."""
    for name, fd in (("stdout", 1), ("stderr", 2)):
        stream = getattr(sys, name)
        if stream is not None and not stream.closed:
            continue
        try:
            os.fstat(fd)
        except OSError:  # closed at the descriptor too: nothing to print to
            continue
        encoding = getattr(stream, "encoding", None) or "utf-8"  # a closed stream still says which
        reopened: TextIO = io.TextIOWrapper(
            io.FileIO(fd, "w", closefd=False),
            encoding=encoding,
            errors="backslashreplace",
            line_buffering=True,
        )
        setattr(sys, name, reopened)
