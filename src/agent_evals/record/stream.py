"""The streaming run-record writer: each finished case goes to disk as it finishes, the file valid throughout.

While a run executes, ``<output>.partial`` holds a run record of every case written so far with
``run.complete: false``: the ``run`` block is the last member of the top-level object, and each new
case is written over the closing bytes (``]}],"run":{...}}``) followed by a fresh copy of them, in one
write, so after every append the file is a whole, valid record. A run killed at any point (``os._exit``,
SIGKILL, the OOM killer) leaves that file behind. When the run ends, the final record is written once
to a temporary file next to the output (cases in plan order, copied from the partial file, the suites'
end-only fields such as the fingerprint added) and renamed over the output; the partial file goes.
The final record is the only one ever written with ``complete: true``. A run that fails instead
(:meth:`RecordWriter.abandon`) keeps the partial file only when it holds a case.

Nothing here keeps a case once written: per case, three integers (where its bytes are and its place
in the plan).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from array import array
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from agent_evals.record.schema_ids import SCHEMA_ID
from agent_evals.record.text import json_bytes

ReadBack = Callable[[int, list[int], bytes], None]
"""Called as ``read_back(suite, plan positions, their cases' JSON texts joined by commas)`` with the
cases of the final record."""

READ_BACK_BATCH = 256
"""Cases copied (and handed to a :data:`ReadBack`) at once: read as one JSON array, they cost less per case."""

PARTIAL_SUFFIX = ".partial"
"""What the in-progress record's name adds to the output's: ``run.json`` streams into ``run.json.partial``."""

_HEAD = b'{"schema":' + json.dumps(SCHEMA_ID).encode() + b',"suites":['


def partial_path(output: str | os.PathLike[str]) -> Path:
    """Where a run writing ``output`` streams its record while it runs (and a killed run leaves it)."""
    target = Path(output)
    return target.with_name(target.name + PARTIAL_SUFFIX)


def _read(src: IO[bytes], size: int) -> bytes:
    chunks = []
    while size > 0:
        chunk = src.read(size)
        if not chunk:
            raise OSError("the partial record is shorter than what was written to it")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


class _Window:
    """Reads cases back from the partial file through one window of :data:`WINDOW` bytes: cases
    written one after another (the usual order) cost one read per window, not two system calls each."""

    def __init__(self, src: IO[bytes]) -> None:
        self._src = src
        self._start = 0
        self._data = b""

    def read(self, offset: int, length: int) -> bytes:
        """The ``length`` bytes at ``offset``."""
        at = offset - self._start
        if at < 0 or at + length > len(self._data):
            self._src.seek(offset)
            size = max(length, WINDOW)
            self._data = _read(self._src, length) + self._src.read(size - length)
            self._start, at = offset, 0
        return self._data[at : at + length]


WINDOW = 1 << 20
"""Bytes of the partial file read at once while the final record is written."""


def _opening(header: Mapping[str, Any]) -> bytes:
    """``{"id":...,...,"cases":[``: a suite's fields (but its cases and end-only fields), left open."""
    fields = {k: v for k, v in header.items() if v is not None}
    return (json_bytes(fields)[:-1] + b',"cases":[') if fields else b'{"cases":['


@dataclass
class _Suite:
    header: dict[str, Any]
    offsets: array[int] = field(default_factory=lambda: array("q"))
    lengths: array[int] = field(default_factory=lambda: array("q"))
    positions: array[int] = field(default_factory=lambda: array("q"))
    """Each written case's place in the suite's plan (the final record lists cases in this order)."""
    opened: bool = False
    closed: bool = False


class RecordWriter:
    """Streams one run record to ``<output>.partial`` (``output`` None: nothing is written to disk).

    Not thread-safe: the caller serialises calls (the run builder holds a lock).
    """

    def __init__(self, output: str | os.PathLike[str] | None, run_block: Mapping[str, Any]) -> None:
        """Start the partial record (an empty run, ``run_block`` with ``complete: false``)."""
        self.output = Path(output) if output is not None else None
        self.partial = partial_path(output) if output is not None else None
        self._suites: list[_Suite] = []
        self._current: int | None = None
        self._fh: IO[bytes] | None = None
        self._end = 0
        """Where the closing bytes start: the next case is written here."""
        self._size = 0
        self._block: Mapping[str, Any] | None = None
        self._block_bytes = b""
        self._tail = b""
        """The closing bytes in the file now (put back when a write fails half-way)."""
        if self.output is not None and self.partial is not None:
            self.output.parent.mkdir(parents=True, exist_ok=True)
            # a record left by an earlier run must never stand in for this one's
            self.output.unlink(missing_ok=True)
            self._fh = self.partial.open("w+b", buffering=0)  # closed in finish or close
            try:
                self._fh.write(_HEAD)
                self._end = len(_HEAD)
                self._write_tail(run_block)
            except OSError:  # no valid record could be written at all: leave none
                self.close()
                self.partial.unlink(missing_ok=True)
                raise

    def add_suite(self, header: Mapping[str, Any]) -> int:
        """Register a suite (its fields but the cases); returns its index. It reaches the file with its
        first case; suites are written in the order of their first case and must not interleave."""
        self._suites.append(_Suite(dict(header)))
        return len(self._suites) - 1

    def add_case(self, suite: int, position: int, case: bytes, run_block: Mapping[str, Any]) -> None:
        """Append one case (its JSON) to ``suite`` at plan ``position``; the file stays a valid record."""
        slot = self._suites[suite]
        if slot.closed:
            raise RuntimeError(f"suite {slot.header.get('id')!r} was closed: its cases must come together")
        prefix = b""
        previous = self._current
        if previous != suite:
            if previous is not None:
                prefix = b"]},"
            elif any(s.opened for s in self._suites):
                prefix = b","
            prefix += _opening(slot.header)
        elif slot.offsets:
            prefix = b","
        offset = self._end + len(prefix)
        if self._fh is not None:
            self._current = suite  # the closing bytes close this suite's case list
            try:
                self._write_tail(run_block, prefix + case)
            except OSError:  # not written: the file and this writer stay as they were
                self._current = previous
                raise
        if previous != suite:
            if previous is not None:
                self._suites[previous].closed = True
            slot.opened = True
            self._current = suite
        slot.offsets.append(offset)
        slot.lengths.append(len(case))
        slot.positions.append(position)

    def _closing(self, run_block: Mapping[str, Any]) -> bytes:
        if run_block is not self._block:  # the same block object as last time: its bytes are known
            self._block, self._block_bytes = run_block, json_bytes(run_block)
        suite_open = b"]}" if self._current is not None else b""
        return suite_open + b'],"run":' + self._block_bytes + b"}\n"

    def _write_tail(self, run_block: Mapping[str, Any], before: bytes = b"") -> None:
        """Write ``before`` (the new case) over the closing bytes, then fresh closing bytes, in one write."""
        assert self._fh is not None
        tail = self._closing(run_block)
        data = memoryview(before + tail)
        try:
            self._fh.seek(self._end)
            # unbuffered: each write is a system call, so the bytes are in the file when it returns
            while data:
                data = data[self._fh.write(data) or 0 :]
        except OSError:  # a full disk cut the write short: put the last whole record back, then say so
            with contextlib.suppress(OSError):
                self._fh.seek(self._end)
                self._fh.write(self._tail)
                self._fh.truncate(self._end + len(self._tail))
            raise
        self._tail = tail
        self._end += len(before)
        if self._end + len(tail) < self._size:  # closing bytes shorter than before: cut what is left
            self._fh.truncate(self._end + len(tail))
        self._size = self._end + len(tail)

    def written(self, suite: int) -> list[int]:
        """The plan positions of ``suite``'s written cases, in the order the final record lists them."""
        return sorted(self._suites[suite].positions)

    def finish(
        self,
        run_block: Mapping[str, Any],
        *,
        suites: list[int],
        extra: Mapping[int, Mapping[str, Any]],
        read_back: ReadBack | None = None,
    ) -> Path | None:
        """Write the final record (the given ``suites`` in that order, each one's cases in plan order,
        ``extra`` fields per suite such as its fingerprint) and rename it over the output.
        ``read_back`` is handed each suite's cases as they are copied, :data:`READ_BACK_BATCH` at a
        time in plan order (:data:`ReadBack`).

        Returns the output path (None when writing to no file). The partial file is removed."""
        if self._fh is None or self.output is None or self.partial is None:
            return None
        src = self._fh
        window = _Window(src)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.output.name}.", suffix=".tmp", dir=self.output.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(b'{"schema":' + json_bytes(SCHEMA_ID) + b',"run":' + json_bytes(run_block))
                out.write(b',"suites":[')
                for n, index in enumerate(suites):
                    slot = self._suites[index]
                    header = {**slot.header, **extra.get(index, {})}
                    out.write((b"," if n else b"") + _opening(header))
                    order = sorted(range(len(slot.positions)), key=slot.positions.__getitem__)
                    for start in range(0, len(order), READ_BACK_BATCH):
                        batch = order[start : start + READ_BACK_BATCH]
                        cases = b",".join(window.read(slot.offsets[at], slot.lengths[at]) for at in batch)
                        out.write((b"," if start else b"") + cases)
                        if read_back is not None:
                            read_back(index, [slot.positions[at] for at in batch], cases)
                    out.write(b"]}")
                out.write(b"]}\n")
            Path(tmp).replace(self.output)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        src.close()
        self._fh = None
        self.partial.unlink(missing_ok=True)
        return self.output

    @property
    def has_cases(self) -> bool:
        """Whether any case was written (the partial record holds something a run finished)."""
        return any(slot.offsets for slot in self._suites)

    def close(self) -> None:
        """Close the partial file without finishing (it stays, a valid ``complete: false`` record)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def abandon(self) -> Path | None:
        """Stop without a final record (the run failed): the partial file stays when it holds a case
        (what finished, ``complete: false``) and goes when it holds none. Returns the file kept, if any."""
        if self._fh is None or self.partial is None:
            return None
        self.close()
        if self.has_cases:
            return self.partial
        self.partial.unlink(missing_ok=True)
        return None
