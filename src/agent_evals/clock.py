"""A moment as the ISO 8601 text records and reports write (UTC, to the second, ``Z`` by default)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Literal

TimeSpec = Literal["auto", "seconds"]
"""How much of the time to write: to the second, or with the microseconds when there are any."""


def iso_utc(moment: datetime | None = None, *, zulu: bool = True, timespec: TimeSpec = "seconds") -> str:
    """``moment`` (default: now) in UTC as ISO 8601 text: ``2025-01-31T12:00:00Z``.

    ``zulu=False`` keeps the offset as ``+00:00``; ``timespec="auto"`` keeps the microseconds. A naive
    ``moment`` is taken as local time, as ``datetime.astimezone`` does."""
    text = (
        (datetime.now(timezone.utc) if moment is None else moment)
        .astimezone(timezone.utc)
        .isoformat(timespec=timespec)
    )
    return text.replace("+00:00", "Z") if zulu else text
