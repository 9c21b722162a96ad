"""Safe reading of a downloaded artifact zip: no traversal, no links, bounded size, one run record."""

from __future__ import annotations

import io
import json
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import PurePosixPath

from agent_evals.errors import RunRecordError, UnsafeArchiveError
from agent_evals.record.model import RunRecord

MAX_ENTRIES = 1_000
MAX_TOTAL_BYTES = 200 * 1024 * 1024
MAX_RATIO = 100.0
RATIO_EXEMPT_BYTES = 64 * 1024
"""Entries smaller than this cannot be a bomb; their ratio is not checked (tiny files compress well)."""


@dataclass(frozen=True)
class ArchiveLimits:
    """Bounds a downloaded archive must stay within."""

    max_entries: int = MAX_ENTRIES
    """Most entries allowed."""
    max_total_bytes: int = MAX_TOTAL_BYTES
    """Most uncompressed bytes allowed over all entries."""
    max_ratio: float = MAX_RATIO
    """Highest compression ratio allowed for an entry larger than ``RATIO_EXEMPT_BYTES``."""


def check_archive(zf: zipfile.ZipFile, *, source: str, limits: ArchiveLimits = ArchiveLimits()) -> None:
    """Raise UnsafeArchiveError when any entry is unsafe or the archive exceeds a limit."""
    infos = zf.infolist()
    if len(infos) > limits.max_entries:
        raise UnsafeArchiveError(
            f"{source}: {len(infos)} entries, more than the limit of {limits.max_entries}; "
            "the baseline artifact should hold the run record only"
        )
    total = 0
    for info in infos:
        name = info.filename
        _check_name(name, source)
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise UnsafeArchiveError(f"{source}: entry {name!r} is a symbolic link; links are not allowed")
        total += info.file_size
        if total > limits.max_total_bytes:
            raise UnsafeArchiveError(
                f"{source}: expands to more than {limits.max_total_bytes // (1024 * 1024)} MB; refusing to extract"
            )
        if info.file_size > RATIO_EXEMPT_BYTES:
            ratio = info.file_size / max(info.compress_size, 1)
            if ratio > limits.max_ratio:
                raise UnsafeArchiveError(
                    f"{source}: entry {name!r} has a compression ratio of {ratio:.0f}x "
                    f"(limit {limits.max_ratio:.0f}x); it looks like a zip bomb"
                )


def _check_name(name: str, source: str) -> None:
    if "\\" in name or "\x00" in name:
        raise UnsafeArchiveError(f"{source}: entry {name!r} has a backslash or NUL in its name")
    path = PurePosixPath(name)
    if path.is_absolute() or (len(name) > 1 and name[1] == ":"):
        raise UnsafeArchiveError(f"{source}: entry {name!r} has an absolute path")
    if ".." in path.parts:
        raise UnsafeArchiveError(f"{source}: entry {name!r} climbs out of the folder with '..'")


def read_run_record(data: bytes, *, source: str, limits: ArchiveLimits = ArchiveLimits()) -> RunRecord:
    """Check a zip's safety, then parse its only root-level ``*.json`` file as a run record."""
    from agent_evals.record.read import parse_record

    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise UnsafeArchiveError(f"{source}: not a valid zip archive ({exc})") from exc
    with zf:
        check_archive(zf, source=source, limits=limits)
        root_json = [
            info for info in zf.infolist() if "/" not in info.filename and info.filename.endswith(".json")
        ]
        if len(root_json) != 1:
            found = ", ".join(i.filename for i in root_json) or "none"
            raise RunRecordError(
                f"{source}: the artifact must hold exactly one JSON file (the run record) at its root; "
                f"found {found}. Upload only the file `agent-evals ci` wrote."
            )
        member = root_json[0]
        try:
            raw = zf.read(member)
        except (zipfile.BadZipFile, OSError, RuntimeError, EOFError, ValueError, zlib.error) as exc:
            # a corrupt deflate stream is zlib.error; a truncated one EOFError
            raise UnsafeArchiveError(f"{source}: cannot read {member.filename!r}: {exc}") from exc
    where = f"{source}!{member.filename}"
    try:
        document = json.loads(raw.decode("utf-8"))
        return parse_record(document, source=where)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RunRecordError(f"{where}: not valid UTF-8 JSON: {exc}") from exc
    except RecursionError as exc:
        raise RunRecordError(f"{where}: not a run record: nested too deeply to read") from exc
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise RunRecordError(f"{where}: not a run record: {exc}") from exc
