"""gate.native: typed decoding gives the standard reader's summary, comparison and raw cases, or steps aside."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_evals.gate.compare import compare_documents
from agent_evals.gate.picks import warm_candidate
from agent_evals.gate.policy import resolve_policy
from agent_evals.gate.reader import check_document
from agent_evals.gate.summary import RunSummary, details_of, read_summary, summarise_document

pytest.importorskip("msgspec")

from agent_evals.gate.native import read_native
from unit.gate.summaries import record, records, shape


def native(doc: dict[str, Any]) -> RunSummary:
    summary = read_native(json.dumps(doc).encode(), "run.json")
    assert summary is not None, "typed decoding refused a record it should read"
    return summary


def standard(doc: dict[str, Any]) -> RunSummary:
    return summarise_document(check_document(json.loads(json.dumps(doc)), source="run.json"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records())
def test_read_native__any_valid_record__same_summary_as_standard_reader(doc: dict[str, Any]) -> None:
    assert shape(native(doc)) == shape(standard(doc))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records("base"), records("cand"), st.sampled_from(["all", "listed"]))
def test_compare__native_summaries__same_comparison_as_documents(
    base: dict[str, Any], cand: dict[str, Any], case_detail: Any
) -> None:
    policy = resolve_policy(repo_config=None, suite_blocks={}, overrides={"critical_cases": ("x/c1",)})
    try:
        expected = compare_documents(standard(base), standard(cand), policy, case_detail=case_detail)
    except Exception as exc:  # e.g. no case in common: both ways must refuse alike
        with pytest.raises(type(exc), match=None) as raised:
            compare_documents(native(base), native(cand), policy, case_detail=case_detail)
        assert str(raised.value) == str(exc)
        return
    got = compare_documents(native(base), native(cand), policy, case_detail=case_detail)
    assert got.model_dump() == expected.model_dump()
    warmed = native(cand)
    warm_candidate(warmed)  # what `compare` does while a forked child reads the baseline
    assert compare_documents(standard(base), warmed, policy, case_detail=case_detail) == expected


def test_native_case__read_like_the_document__where_the_gate_reads_it() -> None:
    doc = record()
    raw = native(doc).suites[0].view.cases["g/c1"].raw
    plain = doc["suites"][0]["cases"][1]
    for key in ("id", "group", "name", "dimensions", "input", "expected", "location"):
        assert raw.get(key) == plain.get(key), key
    assert [t.get("output") for t in raw.get("trials")] == ["ok"]
    # usage sums (input, output, cost, duration, trials, recorded) and the first output, as from the dict
    assert details_of(raw) == details_of(plain) == (10, 2, 0.001, 0.5, 1, True, "ok")
    with pytest.raises(AttributeError):
        raw.get("labels")  # not a field: a new reader must add it rather than silently read None


def edit(change: Any) -> dict[str, Any]:
    doc = record()
    change(doc["suites"][0]["cases"][1]["trials"][0])
    return doc


@pytest.mark.parametrize(
    ("why", "doc"),
    [
        ("NaN cost", edit(lambda t: t["usage"].update(cost_usd=math.nan))),
        ("infinite duration", edit(lambda t: t.update(duration_s=math.inf))),
        ("a text value in usage beside the numbers", edit(lambda t: t["usage"].update(model="gpt"))),
        ("a lone surrogate in an output", edit(lambda t: t.update(output="\ud800"))),
    ],
)
def test_read_native__record_only_the_standard_reader_reads__steps_aside(
    why: str, doc: dict[str, Any], tmp_path: Any
) -> None:
    text = json.dumps(doc)  # allow_nan: json writes NaN and Infinity, which it reads back
    assert read_native(text.encode(), "run.json") is None, why
    path = tmp_path / "run.json"
    path.write_text(text, encoding="utf-8")
    got = read_summary(path)  # read the standard way, with the same result
    assert isinstance(got.suites[0].view.cases["g/c1"].raw, dict)
    assert repr(shape(got)) == repr(shape(standard(doc)))  # repr: NaN is not equal to itself


def test_suite_struct__declares_exactly_the_header_fields_plus_cases() -> None:
    from agent_evals.gate.native import _Suite
    from agent_evals.gate.summary import HEADER_FIELDS

    assert _Suite.__struct_fields__ == (*HEADER_FIELDS, "cases")
