"""read_summary: the cases are checked while they are summarised, with the reader's errors word for word."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_evals.errors import RunRecordError
from agent_evals.gate.reader import read_document
from agent_evals.gate.summary import read_summary, summarise_document


def record() -> dict[str, Any]:
    def case(i: int) -> dict[str, Any]:
        trial = {
            "passed": True,
            "error": None,
            "scores": {"check": {"value": 1.0, "passed": True}},
            "duration_s": 0.5,
            "usage": {"input_tokens": 10, "output_tokens": 2, "cost_usd": 0.001},
            "output": "ok",
        }
        return {
            "id": f"g/c{i}",
            "group": "g",
            "name": f"c{i}",
            "dimensions": {"tier": "a"},
            "trials": [trial],
        }

    return {
        "schema": "agent-evals/run@1",
        "run": {"tool_version": "0.1.0", "started_at": "2026-01-01T00:00:00Z"},
        "suites": [
            {"id": "s", "kind": "benchmark", "cases": [case(0), case(1)]},
            {"id": "t", "kind": "evals", "cases": [case(2)]},
        ],
    }


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
def test_read_summary__malformed_case__same_error_as_read_document(tmp_path: Path, mutate: Mutation) -> None:
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


def test_read_summary__valid_record__same_summary_as_after_a_full_check(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(record()), encoding="utf-8")
    doc, summary = read_summary(path)
    again = summarise_document(read_document(path))
    assert doc == read_document(path)
    assert [(s.header, s.view, s.trial_counts) for s in summary.suites] == [
        (s.header, s.view, s.trial_counts) for s in again.suites
    ]
    assert summary.run == again.run
