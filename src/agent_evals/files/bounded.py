"""Read a user's file whole, refusing one larger than a stated limit."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


def read_bounded(
    path: Path, limit: int, *, called: str, kind: str, fail: Callable[[str], Exception]
) -> bytes:
    """The bytes of ``path``, at most ``limit`` of them.

    A file that cannot be read or is too large raises ``fail(reason)``, the reason naming the file as
    ``called`` (``the cases file``) and its limit as that of ``kind`` (``cases files``)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise fail(f"cannot read {called}: {exc.strerror or exc}") from exc
    if len(raw) > limit:
        raise fail(f"the file is {len(raw)} bytes; {kind} are limited to {limit} bytes")
    return raw
