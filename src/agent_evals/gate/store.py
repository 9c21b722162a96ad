"""Read and write run records: schema-checked on the way in, atomic on the way out."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent_evals.core.record import READABLE_SCHEMAS, RunRecord
from agent_evals.errors import RunRecordError


def parse_record(data: Any, *, source: str = "<run record>") -> RunRecord:
    """Validate a decoded JSON document as a run record of a schema version this reader knows."""
    if not isinstance(data, dict):
        raise RunRecordError(
            f"{source}: expected a JSON object at the top level, found {type(data).__name__}"
        )
    schema = data.get("schema")
    if schema not in READABLE_SCHEMAS:
        from agent_evals.core.foreign import not_a_run_record

        raise RunRecordError(not_a_run_record(data, source))
    try:
        return RunRecord.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        path = ".".join(str(p) for p in first["loc"])
        raise RunRecordError(
            f"{source}: invalid run record at '{path}': {first['msg']} ({exc.error_count()} problem(s) in all)"
        ) from exc


def read_record(path: str | os.PathLike[str]) -> RunRecord:
    """Load a run record from disk; any problem is a RunRecordError naming the file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise RunRecordError(f"cannot read run record {p}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise RunRecordError(f"{p}: not valid JSON: byte {exc.start} is not UTF-8") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RunRecordError(f"{p}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from exc
    except RecursionError as exc:
        raise RunRecordError(f"{p}: not a run record: JSON nested too deeply to read") from exc
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise RunRecordError(f"{p}: not a run record: {exc}") from exc
    try:
        return parse_record(data, source=str(p))
    except RecursionError as exc:
        raise RunRecordError(f"{p}: not a run record: nested too deeply to read") from exc


def write_record(path: str | os.PathLike[str], record: RunRecord) -> Path:
    """Write a run record atomically (temporary file in the same folder, then rename)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(record.to_json())
            fh.write("\n")
        Path(tmp).replace(target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
