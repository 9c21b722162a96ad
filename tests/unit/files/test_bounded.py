"""read_bounded: a user's file read whole, or refused with a reason that names it and its limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_evals.files.bounded import read_bounded


class Refused(Exception):
    """The error the caller asks for."""


@pytest.mark.parametrize(
    ("content", "limit", "expected"),
    [
        (b"abc", 3, b"abc"),
        (b"", 0, b""),
        (b"abcd", 3, "the file is 4 bytes; cases files are limited to 3 bytes"),
        (None, 3, "cannot read the cases file: "),
    ],
    ids=["at-the-limit", "empty", "over-the-limit", "missing"],
)
def test_read_bounded__file_and_limit__bytes_or_reason(
    tmp_path: Path, content: bytes | None, limit: int, expected: bytes | str
) -> None:
    path = tmp_path / "cases.csv"
    if content is not None:
        path.write_bytes(content)
    if isinstance(expected, bytes):
        assert (
            read_bounded(path, limit, called="the cases file", kind="cases files", fail=Refused) == expected
        )
        return
    with pytest.raises(Refused) as caught:
        read_bounded(path, limit, called="the cases file", kind="cases files", fail=Refused)
    assert str(caught.value).startswith(expected)
