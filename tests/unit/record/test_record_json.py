"""The run record's file form: compact, unset fields left out, read back to the same record."""

from __future__ import annotations

import json
from pathlib import Path

from agent_evals.record.model import RunRecord
from agent_evals.record.read import read_record, read_summary
from agent_evals.record.store import write_record

RECORD = {
    "schema": "agent-evals/run@1",
    "run": {"tool_version": "0.1.0", "started_at": "2026-01-01T00:00:00Z"},
    "suites": [
        {
            "id": "s",
            "kind": "evals",
            "source": "evals/e.py",
            "cases": [
                {
                    "id": "e.py::t[0]",
                    "group": "d",
                    "input_json": {"kept": None, "list": [None, 1]},
                    "trials": [{"passed": False, "error": "boom", "output_json": None}],
                }
            ],
        }
    ],
}


def test_to_json__compact_and_unset_fields_left_out() -> None:
    text = RunRecord.model_validate(RECORD).to_json()
    assert "\n" not in text and ", " not in text and '": ' not in text
    trial = json.loads(text)["suites"][0]["cases"][0]["trials"][0]
    assert "output" not in trial and "traceback" not in trial and trial["error"] == "boom"


def test_to_json__nulls_inside_json_values_are_kept() -> None:
    case = json.loads(RunRecord.model_validate(RECORD).to_json())["suites"][0]["cases"][0]
    assert case["input_json"] == {"kept": None, "list": [None, 1]}


def test_write_record__read_back__same_record_by_both_readers(tmp_path: Path) -> None:
    record = RunRecord.model_validate(RECORD)
    path = write_record(tmp_path / "run.json", record)
    assert read_record(path) == record
    assert read_summary(path).suites[0].view.cases["e.py::t[0]"].key == (1, 0, 1)


def test_read_record__indented_file_from_an_older_writer__still_read(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    path.write_text(json.dumps(RECORD, indent=2), encoding="utf-8")
    assert read_record(path) == RunRecord.model_validate(RECORD)
    assert read_summary(path).suites[0].header["id"] == "s"
