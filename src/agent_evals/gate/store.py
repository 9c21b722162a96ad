"""Write run records atomically (temporary file in the same folder, then rename)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from agent_evals.core.record import RunRecord


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
