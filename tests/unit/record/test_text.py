"""The record's one text rule (``record/text.py``): lone surrogates as U+FFFD, bytes as UTF-8 text."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_evals.record.model import Case, RunRecord
from agent_evals.record.text import bytes_text, clean_text, clean_value, json_bytes, model_json

SURROGATE, ESCAPED_BYTE = chr(0xD800), chr(0xDCFF)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", "plain"),
        ("a" + SURROGATE + "b", "a\ufffdb"),
        (ESCAPED_BYTE, "\ufffd"),
        (SURROGATE + SURROGATE, "\ufffd\ufffd"),
        ("nul\x00 esc\x1b[31m bidi\u202e", "nul\x00 esc\x1b[31m bidi\u202e"),  # kept: reports neutralise them
        ("emoji \U0001f600", "emoji \U0001f600"),
    ],
    ids=["plain", "lone-surrogate", "surrogateescape-byte", "two-surrogates", "controls-kept", "emoji"],
)
def test_clean_text__each_kind_of_text__only_surrogates_replaced(text: str, expected: str) -> None:
    assert clean_text(text) == expected


@pytest.mark.parametrize(
    ("data", "expected"),
    [(b"ok", "ok"), (b"ok\xff", "ok\\xff"), ("café".encode(), "café"), (bytearray(b"\x00\xfe"), "\x00\\xfe")],
    ids=["ascii", "invalid-byte", "valid-utf8", "bytearray"],
)
def test_bytes_text__bytes__utf8_text_with_invalid_bytes_escaped(data: bytes, expected: str) -> None:
    assert bytes_text(data) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"k" + SURROGATE: [SURROGATE, b"\xff", 1, None]}, {"k\ufffd": ["\ufffd", "\\xff", 1, None]}),
        (("a", b"b"), ["a", "b"]),
        (1.5, 1.5),
    ],
    ids=["nested-keys-and-values", "tuple", "number"],
)
def test_clean_value__json_like_values__every_string_and_bytes_mapped(value: Any, expected: Any) -> None:
    assert clean_value(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [({"a": "x" + SURROGATE}, {"a": "x\ufffd"}), ({"a": "nul\x00"}, {"a": "nul\x00"}), ([1, "b"], [1, "b"])],
    ids=["lone-surrogate", "nul", "plain"],
)
def test_json_bytes__any_text__strict_utf8_json(value: Any, expected: Any) -> None:
    data = json_bytes(value)
    assert json.loads(data.decode("utf-8")) == expected
    assert b" " not in data  # compact


@pytest.mark.parametrize(
    ("case_id", "output", "expected_id", "expected_output"),
    [
        ("c1", "ok", "c1", "ok"),
        ("c" + SURROGATE, "x" + ESCAPED_BYTE, "c\ufffd", "x\ufffd"),
        ("c\x00", "\x1b[31m\u202e", "c\x00", "\x1b[31m\u202e"),
    ],
    ids=["plain", "lone-surrogates", "controls-kept"],
)
def test_model_json__case_with_any_text__written_and_read_back(
    case_id: str, output: str, expected_id: str, expected_output: str
) -> None:
    case = Case.model_validate(
        {"id": case_id, "group": "g", "trials": [{"passed": True, "duration_s": 0.1, "output": output}]}
    )
    doc = json.loads(model_json(case).encode("utf-8"))
    assert (doc["id"], doc["trials"][0]["output"]) == (expected_id, expected_output)
    assert "name" not in doc  # null fields left out, as in the normal path


def test_run_record_to_json__lone_surrogate__strict_utf8() -> None:
    record = RunRecord.model_validate(
        {
            "run": {"tool_version": "0", "started_at": "2026-01-01T00:00:00Z", "complete": True},
            "suites": [{"id": "s" + SURROGATE, "kind": "evals", "source": "s.py", "cases": []}],
        }
    )
    assert json.loads(record.to_json().encode("utf-8"))["suites"][0]["id"] == "s\ufffd"
