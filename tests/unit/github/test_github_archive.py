"""Safe reading of baseline artifact zips: traversal, links, bombs and the one-record rule."""

from __future__ import annotations

import json

import pytest

from agent_evals.errors import RunRecordError, UnsafeArchiveError
from agent_evals.github.archive import ArchiveLimits, read_run_record
from servers.github_server import make_zip, record_document, record_zip

RECORD = json.dumps(record_document())


def _bomb() -> bytes:
    return make_zip({"run.json": RECORD, "pad.bin": b"\0" * (2 * 1024 * 1024)})


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (make_zip({"run.json": RECORD, "../escape.txt": "x"}), "climbs out"),
        (make_zip({"run.json": RECORD, "a/../../escape.txt": "x"}), "climbs out"),
        (make_zip({"run.json": RECORD, "/etc/passwd": "x"}), "absolute path"),
        (make_zip({"run.json": RECORD, "C:/x.txt": "x"}), "absolute path"),
        (make_zip({"run.json": RECORD, "a\\..\\b": "x"}), "backslash"),
        (make_zip({"run.json": RECORD, "link": "/etc/passwd"}, symlinks=("link",)), "symbolic link"),
        (_bomb(), "zip bomb"),
        (make_zip({"run.json": RECORD, **{f"f{i}.txt": "x" for i in range(1001)}}), "1002 entries"),
        (b"this is not a zip", "not a valid zip"),
    ],
    ids=[
        "dotdot",
        "nested-dotdot",
        "absolute",
        "drive",
        "backslash",
        "symlink",
        "bomb",
        "too-many",
        "garbage",
    ],
)
def test_read_run_record__unsafe_archive__rejected(data: bytes, message: str) -> None:
    with pytest.raises(UnsafeArchiveError, match=message):
        read_run_record(data, source="artifact x")


def test_read_run_record__uncompressed_total_over_limit__rejected() -> None:
    data = make_zip({"run.json": RECORD, "a.txt": "y" * 5000})
    with pytest.raises(UnsafeArchiveError, match="expands to more than"):
        read_run_record(data, source="artifact x", limits=ArchiveLimits(max_total_bytes=4000))


@pytest.mark.parametrize(
    ("files", "found"),
    [({"notes.txt": "x"}, "found none"), ({"a.json": RECORD, "b.json": RECORD}, "found a.json, b.json")],
)
def test_read_run_record__not_exactly_one_root_json__names_what_was_found(
    files: dict[str, str], found: str
) -> None:
    with pytest.raises(RunRecordError, match=found):
        read_run_record(make_zip(files), source="artifact x")


def test_read_run_record__any_root_name_and_nested_json_allowed__parses_record() -> None:
    data = make_zip({"baseline-main.json": RECORD, "extra/other.json": "{}", "report.md": "# hi"})
    record = read_run_record(data, source="artifact x")
    assert [s.id for s in record.suites] == ["demo"]


def test_read_run_record__schema_invalid__run_record_error_names_artifact_member() -> None:
    data = record_zip({"schema": "agent-evals/run@1", "run": {}}, name="r.json")
    with pytest.raises(RunRecordError, match=r"artifact x!r\.json"):
        read_run_record(data, source="artifact x")


def _corrupt_deflate() -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("run.json", RECORD * 20)
    data = bytearray(buffer.getvalue())
    start = data.index(b"run.json") + len(b"run.json")  # the local header's name, then the stream
    for i in range(start + 10, start + 60):
        data[i] ^= 0x5A
    return bytes(data)


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (_corrupt_deflate(), (UnsafeArchiveError, RunRecordError)),
        (
            make_zip({"run.json": '{"schema": "agent-evals/run@1", "x": ' + "[" * 1000 + "]" * 1000 + "}"}),
            RunRecordError,
        ),
        (make_zip({"run.json": '{"schema": "agent-evals/run@1", "x": ' + "9" * 5000 + "}"}), RunRecordError),
    ],
    ids=["corrupt-deflate", "1000-deep", "5000-digit-integer"],
)
def test_read_run_record__corrupt_or_hostile_member__an_agent_evals_error_never_a_crash(
    data: bytes, error: type[Exception] | tuple[type[Exception], ...]
) -> None:
    # find_baseline turns these into a missing baseline (on_missing_baseline), never exit 3
    with pytest.raises(error):
        read_run_record(data, source="artifact")
