"""Write run records atomically (temporary file in the same folder, then rename)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from agent_evals.record.model import RunRecord
from agent_evals.record.text import json_bytes


def write_record(path: str | os.PathLike[str], record: RunRecord | dict[str, Any]) -> Path:
    """Write a run record atomically (temporary file in the same folder, then rename): a record model,
    or a checked record document (plain JSON objects as read, e.g. ``ci`` editing its child's record),
    both compact."""
    data = _encode(record) if isinstance(record, dict) else record.to_json().encode("utf-8")
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.write(b"\n")
        Path(tmp).replace(target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def _encode(document: dict[str, Any]) -> bytes:
    """Compact UTF-8 JSON of a document: msgspec when installed (the ``speed`` extra), else the standard library."""
    try:
        import msgspec
    except ImportError:
        return json_bytes(document)
    try:
        return msgspec.json.encode(document)
    except UnicodeEncodeError:  # a lone surrogate: written as U+FFFD (record.text)
        return json_bytes(document)
