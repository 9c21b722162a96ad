"""The gate's run-record reader: schema ids, structural errors with the JSON path, and the fast path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_evals.errors import RunRecordError
from agent_evals.gate.reader import check_document, read_document


def minimal(**suite: Any) -> dict[str, Any]:
    case = {"id": "g/c", "group": "g", "trials": [{"passed": True}]}
    return {
        "schema": "agent-evals/run@1",
        "run": {"tool_version": "0.1.0", "started_at": "2026-01-01T00:00:00Z"},
        "suites": [{"id": "s", "kind": "benchmark", "source": "s.yaml", "cases": [case], **suite}],
    }


def test_check_document__minimal_v1_record_accepted() -> None:
    assert check_document(minimal())["suites"][0]["id"] == "s"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda d: d.update(schema="agent-evals/run@9"),
            r"'schema' is 'agent-evals/run@9'.*reads agent-evals/run@1",
        ),
        (lambda d: d.pop("run"), r"at 'run': expected an object, found null"),
        (lambda d: d["suites"][0].update(kind="bench"), r"'suites.0.kind': expected 'benchmark' or 'evals'"),
        (
            lambda d: d["suites"][0]["cases"][0].update(id=3),
            r"'suites.0.cases.0.id': expected a string, found int",
        ),
        (
            lambda d: d["suites"][0]["cases"][0]["trials"][0].update(passed="yes"),
            r"'suites.0.cases.0.trials.0.passed'",
        ),
        (
            lambda d: d["suites"][0]["cases"][0]["trials"][0].update(error=1),
            r"trials.0.error': expected a string or null",
        ),
        (lambda d: d["suites"][0]["cases"][0].update(dimensions={"a": 1}), r"cases.0.dimensions'"),
        (lambda d: d["suites"][0]["cases"][0]["trials"][0].update(scores=[]), r"trials.0.scores'"),
        (
            lambda d: d["suites"][0]["cases"][0]["trials"][0].update(usage={"cost_usd": "1$"}),
            r"usage.cost_usd'",
        ),
        (lambda d: d["suites"][0]["cases"][0]["trials"][0].update(output=["x"]), r"trials.0.output'"),
        (lambda d: d["suites"][0]["cases"][0].update(name=7), r"cases.0.name': expected a string or null"),
    ],
)
def test_check_document__malformed__error_names_json_path(mutate: Any, message: str) -> None:
    doc = minimal()
    mutate(doc)
    with pytest.raises(RunRecordError, match=message):
        check_document(doc, source="base.json")


def test_read_document__not_json__file_line_column(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"schema": \n oops}', encoding="utf-8")
    with pytest.raises(RunRecordError, match=r"r.json:2:2: not valid JSON"):
        read_document(path)


def test_read_document__missing_file__names_it(tmp_path: Path) -> None:
    with pytest.raises(RunRecordError, match=r"cannot read run record .*nope\.json"):
        read_document(tmp_path / "nope.json")


def test_read_document__round_trip(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(minimal()), encoding="utf-8")
    assert read_document(path) == minimal()


def test_read_document__nan_and_infinity__read_as_the_standard_library_reads_them(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    doc = minimal()
    doc["suites"][0]["cases"][0]["trials"][0]["duration_s"] = float("inf")
    doc["suites"][0]["cases"][0]["trials"][0]["scores"] = {"s": {"value": float("nan")}}
    path.write_text(json.dumps(doc), encoding="utf-8")
    trial = read_document(path)["suites"][0]["cases"][0]["trials"][0]
    assert trial["duration_s"] == float("inf")
    assert trial["scores"]["s"]["value"] != trial["scores"]["s"]["value"]  # NaN
