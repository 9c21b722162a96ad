"""gate.packing: a summary packed, pickled and unpacked says everything it said before."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from agent_evals.gate.breakdown import count_sides
from agent_evals.gate.packing import pack, unpack
from agent_evals.gate.reader import check_document
from agent_evals.gate.summary import NO_RAW, RunSummary, summarise_document
from unit.gate.summaries import record, records, shape


def summary_of(doc: dict[str, Any]) -> RunSummary:
    summary = summarise_document(check_document(json.loads(json.dumps(doc)), source="run.json"))
    for suite in summary.suites:
        count_sides(suite.view)  # as the forked child does before packing
    return summary


def round_trip(summary: RunSummary) -> RunSummary:
    return unpack(pickle.loads(pickle.dumps(pack(summary))), None)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records())
def test_pack__any_summary__same_summary_after_the_pipe(doc: dict[str, Any]) -> None:
    summary = summary_of(doc)
    got = round_trip(summary)
    assert shape(got) == shape(summary)
    assert [s.view.counted for s in got.suites] == [s.view.counted for s in summary.suites]
    assert all(v.raw is NO_RAW for s in got.suites for v in s.view.cases.values())


@pytest.mark.parametrize(
    "ids",
    [
        ["g/a\0b", "g/c"],  # a NUL character inside an id
        ["g/a", "g/a", "g/b"],  # a repeated id: the last case wins, the index lists keep both
        [],
    ],
)
def test_pack__awkward_case_ids__same_summary_after_the_pipe(ids: list[str]) -> None:
    doc = record()
    template = doc["suites"][0]["cases"][0]
    doc["suites"][0]["cases"] = [{**template, "id": cid, "critical": cid == "g/c"} for cid in ids]
    summary = summary_of(doc)
    assert shape(round_trip(summary)) == shape(summary)
