"""The one run-record reader: read a file, decode it, check and summarise it (``record.summary``)."""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_evals.errors import RunRecordError
from agent_evals.files.long_numbers import too_long, where_too_long
from agent_evals.record.summary import RunSummary, summarise

if TYPE_CHECKING:  # the record models load only where a record is built or edited (not for `compare`)
    from agent_evals.record.model import RunRecord

Document = dict[str, Any]
"""A decoded run record (plain JSON objects), as the comparison consumes it."""


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building millions of acyclic objects (JSON trees,
    comparison rows): its repeated full scans would otherwise dominate the time. Restores the state."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def decode_json(raw: bytes) -> Any:
    """Decode a JSON document into plain objects. A compiled decoder does the work: msgspec when
    installed (the ``speed`` extra), else pydantic-core's (a core dependency); both give the objects
    the standard library gives (tested), which the one walk then checks. pydantic-core shares one
    string object per repeated object key only: a record repeats its field names hundreds of
    thousands of times, while its values (case ids) are mostly unique, and looking each value up
    in the cache costs more than it saves. Whatever they refuse (a
    byte-order mark, a lone surrogate escape, bad JSON) is decoded again by the standard library,
    which decides and words the error."""
    decode, refused = _compiled_decoder()
    try:
        return decode(raw)
    except refused:
        return _standard(raw)


@functools.cache
def _compiled_decoder() -> tuple[Callable[[bytes], Any], tuple[type[Exception], ...]]:
    """The compiled decoder and the errors by which it refuses a document, looked up once per process
    (a failed ``import msgspec`` searches the whole path again each time it is tried)."""
    try:
        import msgspec
    except ImportError:
        from pydantic_core import from_json

        return functools.partial(from_json, cache_strings="keys"), (ValueError,)
    return msgspec.json.decode, (msgspec.DecodeError, UnicodeDecodeError)


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _standard(raw: bytes) -> Any:
    """The standard library's reading of UTF-8 text (a byte-order mark allowed; no guessing of UTF-16),
    which also takes a lone surrogate escape (``"\\ud800"``): that is no text (it cannot be printed
    or written as UTF-8), so a record holding one is refused."""
    text = raw.decode("utf-8-sig")
    value = json.loads(text)
    if _SURROGATE_ESCAPE.search(text):
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(
                "a string holds a lone surrogate escape (such as \\ud800), which is not text"
            ) from exc
    return value


MAX_RECORD_MIB = 256
"""Largest run record ``compare`` and ``report`` read by default (``--max-record-size`` raises it)."""


def check_record_size(path: str | os.PathLike[str], max_mib: float = MAX_RECORD_MIB) -> None:
    """Refuse a record file larger than ``max_mib`` MiB before reading it (RunRecordError, exit 2)."""
    p = Path(path)
    try:
        size = p.stat().st_size
    except OSError:
        return  # the reader names a missing or unreadable file
    if size > max_mib * 1024 * 1024:
        raise RunRecordError(
            f"{p}: the run record is {size / 1024 / 1024:,.0f} MiB, over the {max_mib:g} MiB limit for "
            "reading it whole; raise the limit with --max-record-size MIB if it is really that big"
        )


def read_data(path: str | os.PathLike[str]) -> Any:
    """A file's decoded JSON; an unreadable file or invalid JSON is a RunRecordError naming the file."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise RunRecordError(f"cannot read run record {p}: {exc.strerror or exc}") from exc
    try:
        return decode_json(raw)
    except json.JSONDecodeError as exc:
        raise RunRecordError(f"{p}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from exc
    except UnicodeDecodeError as exc:
        raise RunRecordError(f"{p}: not valid JSON: byte {exc.start} is not UTF-8") from exc
    except RecursionError as exc:
        raise RunRecordError(f"{p}: not a run record: JSON nested too deeply to read") from exc
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        if too_long(exc):
            line, column, why = where_too_long(raw.decode("utf-8", "replace"))
            raise RunRecordError(f"{p}:{line}:{column}: not a run record: {why}") from exc
        raise RunRecordError(f"{p}: not a run record: {exc}") from exc


def read_summary(path: str | os.PathLike[str]) -> RunSummary:
    """Read, check and summarise a run record file (``compare``, ``report``, ``ci``)."""
    with gc_paused():
        return summarise(read_data(path), str(path))


def check_document(data: Any, *, source: str = "<run record>") -> Document:
    """Check a decoded run record the way every command does; return it (a RunRecordError otherwise)."""
    summarise(data, source)
    checked: Document = data
    return checked


def parse_record(data: Any, *, source: str = "<run record>") -> RunRecord:
    """A decoded run record, checked as every command checks it, as the record model (to edit it)."""
    from agent_evals.record.model import RunRecord

    check_document(data, source=source)
    # The check above is the run record schema; the models accept all it accepts (tests hold them to it).
    try:
        return RunRecord.model_validate(data)
    except RecursionError as exc:  # a free-form JSON field (input_json, ...) nested thousands deep
        raise RunRecordError(f"{source}: not a run record: nested too deeply to read") from exc


def read_record(path: str | os.PathLike[str]) -> RunRecord:
    """Read a run record file as the record model (``regrade``); checked as every command checks it."""
    with gc_paused():
        return parse_record(read_data(path), source=str(path))


def record_to_document(record: RunRecord) -> Document:
    """A run record model as the plain document the comparison consumes."""
    doc: Document = record.model_dump(mode="json", by_alias=True)
    return doc
