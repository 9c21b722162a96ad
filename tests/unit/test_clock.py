"""clock.iso_utc: a moment as the ISO 8601 text records and reports write."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest

from agent_evals.clock import TimeSpec, iso_utc

PLUS_TWO = timezone(timedelta(hours=2))


@pytest.mark.parametrize(
    ("moment", "zulu", "timespec", "text"),
    [
        (datetime(2025, 1, 31, 12, 0, 0, 500, tzinfo=timezone.utc), True, "seconds", "2025-01-31T12:00:00Z"),
        (datetime(2025, 1, 31, 14, 0, 0, tzinfo=PLUS_TWO), True, "seconds", "2025-01-31T12:00:00Z"),
        (datetime(2025, 1, 31, 12, 0, 0, tzinfo=timezone.utc), False, "seconds", "2025-01-31T12:00:00+00:00"),
        (
            datetime(2025, 1, 31, 12, 0, 0, 500, tzinfo=timezone.utc),
            False,
            "auto",
            "2025-01-31T12:00:00.000500+00:00",
        ),
    ],
    ids=["zulu", "other-zone", "offset", "microseconds"],
)
def test_iso_utc__moment_and_form__text(moment: datetime, zulu: bool, timespec: TimeSpec, text: str) -> None:
    assert iso_utc(moment, zulu=zulu, timespec=timespec) == text


def test_iso_utc__no_moment__now_to_the_second() -> None:
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", iso_utc())
