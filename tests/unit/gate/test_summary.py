"""read_summary: the cases are checked while they are summarised, with the reader's errors word for word,
whether the record is decoded into typed structs (msgspec, the ``speed`` extra) or read the standard way."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_evals.errors import RunRecordError
from agent_evals.gate.reader import read_document
from agent_evals.gate.summary import native_available, read_summary, summarise_document
from unit.gate.summaries import record, shape

READERS = ["native", "standard"]


@pytest.fixture(params=READERS)
def reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test with msgspec's typed decoding (``gate.native``) and with the standard reader."""
    if request.param == "native":
        pytest.importorskip("msgspec")
    else:
        monkeypatch.setenv("AGENT_EVALS_NATIVE", "0")
    assert native_available() == (request.param == "native")
    return str(request.param)


def trial1(d: dict[str, Any]) -> dict[str, Any]:
    trial: dict[str, Any] = d["suites"][0]["cases"][1]["trials"][0]
    return trial


Mutation = Callable[[dict[str, Any]], Any]

MUTATIONS: list[Mutation] = [
    lambda d: d["suites"][0]["cases"].__setitem__(1, "case"),
    lambda d: d["suites"][0]["cases"][1].update(id=7),
    lambda d: d["suites"][0]["cases"][1].update(group=None),
    lambda d: d["suites"][0]["cases"][1].update(name=3),
    lambda d: d["suites"][0]["cases"][1].update(expected=["x"]),
    lambda d: d["suites"][0]["cases"][1].update(critical="yes"),
    lambda d: d["suites"][0]["cases"][1].update(dimensions={"tier": 1}),
    lambda d: d["suites"][0]["cases"][1].update(location="run.yaml:3"),
    lambda d: d["suites"][0]["cases"][1].update(trials={"0": {}}),
    lambda d: d["suites"][0]["cases"][1]["trials"].append(None),
    lambda d: trial1(d).pop("passed"),
    lambda d: trial1(d).update(passed=1),
    lambda d: trial1(d).update(error=500),
    lambda d: trial1(d).update(scores=[]),
    lambda d: trial1(d).update(scores={"check": 1.0}),
    lambda d: trial1(d).update(usage=[]),
    lambda d: trial1(d)["usage"].update(input_tokens="10"),
    lambda d: trial1(d)["usage"].update(output_tokens=True),
    lambda d: trial1(d)["usage"].update(cost_usd="0.1"),
    lambda d: trial1(d).update(output=42),
    lambda d: trial1(d).update(duration_s=None),
    lambda d: trial1(d).update(duration_s=False),
    # two problems: the first in record order is reported, as the reader does
    lambda d: (trial1(d).update(passed=None), d["suites"][1].update(kind="x")),
    lambda d: (trial1(d).update(output=1), d["suites"][0]["cases"][0].update(name=2)),
]


@pytest.mark.parametrize("mutate", MUTATIONS)
def test_read_summary__malformed_case__same_error_as_read_document(
    tmp_path: Path, mutate: Mutation, reader: str
) -> None:
    doc = record()
    mutate(doc)
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(RunRecordError) as expected:
        read_document(path)
    with pytest.raises(RunRecordError) as got:
        read_summary(path)
    assert str(got.value) == str(expected.value)
    assert "invalid run record at 'suites." in str(got.value)


def test_read_summary__valid_record__same_summary_as_after_a_full_check(tmp_path: Path, reader: str) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(record()), encoding="utf-8")
    summary = read_summary(path)
    again = summarise_document(read_document(path))
    assert shape(summary) == shape(again)
    raw = summary.suites[0].view.cases["g/c0"].raw
    assert isinstance(raw, dict) == (reader == "standard")  # else msgspec's typed struct of the case


@pytest.mark.parametrize("text", ["", "{not json", "[]", '{"schema": "agent-evals/run@9"}'])
def test_read_summary__not_a_run_record__same_error_as_read_document(
    tmp_path: Path, text: str, reader: str
) -> None:
    path = tmp_path / "run.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RunRecordError) as expected:
        read_document(path)
    with pytest.raises(RunRecordError) as got:
        read_summary(path)
    assert str(got.value) == str(expected.value)


def test_read_summary__missing_file__same_error_as_read_document(tmp_path: Path, reader: str) -> None:
    with pytest.raises(RunRecordError) as expected:
        read_document(tmp_path / "nope.json")
    with pytest.raises(RunRecordError) as got:
        read_summary(tmp_path / "nope.json")
    assert str(got.value) == str(expected.value)
