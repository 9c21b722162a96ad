"""The run-record reader: schema ids, structural errors with the JSON path, duplicate ids, decoding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_core import from_json

from agent_evals.errors import RunRecordError
from agent_evals.record.read import check_document, decode_json, read_data, read_summary


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
        (lambda d: d.pop("run"), r"at 'run': expected an object, found nothing"),
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
        (
            lambda d: d["suites"][0]["cases"][0].update(dimensions={"a": 1}),
            r"cases.0.dimensions.a': expected a string, found int",
        ),
        (lambda d: d["suites"][0]["cases"][0]["trials"][0].update(scores=[]), r"trials.0.scores'"),
        (
            lambda d: d["suites"][0]["cases"][0]["trials"][0].update(usage={"cost_usd": "1$"}),
            r"usage.cost_usd'",
        ),
        (lambda d: d["suites"][0]["cases"][0]["trials"][0].update(output=["x"]), r"trials.0.output'"),
        (lambda d: d["suites"][0]["cases"][0].update(name=7), r"cases.0.name': expected a string or null"),
        (lambda d: d["suites"][0].pop("source"), r".suites.0.source.: expected a string, found nothing"),
        (lambda d: d["suites"][0].update(agent=None), r"'suites.0.agent': expected an object, found null"),
        (lambda d: d["run"].update(git={"sha": 1}), r"'run.git.sha': expected a string or null"),
        (lambda d: d["run"].update(ci={"pr": "12"}), r"'run.ci.pr': expected an integer or null"),
        (lambda d: d["run"].update(complete="no"), r"'run.complete': expected a boolean, found str"),
        (
            lambda d: d["run"].update(shard={"index": 1, "count": 2, "suites": {"s": {"cases": "all"}}}),
            r"'run.shard.suites.s.cases': expected an integer, found str",
        ),
        (
            lambda d: d["run"].update(shard={"index": 1, "count": 2, "suites": {"s": {"cases": 3}}}),
            r"'run.shard.suites.s.case_ids': expected a string, found nothing",
        ),
        (
            lambda d: d["run"].update(shard={"index": 1, "count": 2, "suites": {"s": []}}),
            r"'run.shard.suites.s': expected an object, found list",
        ),
        (
            lambda d: d["suites"][0]["cases"][0]["trials"][0].update(scores=None),
            r"'suites.0.cases.0.trials.0.scores': expected an object, found null",
        ),
        (
            lambda d: d["suites"][0]["cases"][0]["trials"][0].update(usage={"input_tokens": 1.5}),
            r"trials.0.usage.input_tokens': expected an integer or null, found float",
        ),
        (
            lambda d: d["suites"][0]["cases"][0]["trials"][0].update(graded="no"),
            r"trials.0.graded': expected a boolean",
        ),
        (
            lambda d: d["suites"][0]["cases"][0]["trials"][0].update(scores={"x": {"notes": 3}}),
            r"trials.0.scores.x.notes': expected a string or null, found int",
        ),
        (
            lambda d: d["suites"][0]["cases"][0].update(location={"file": "f", "line": "3"}),
            r"cases.0.location.line': expected an integer or null, found str",
        ),
        (
            lambda d: d["suites"][0]["cases"][0].update(labels=["a", 1]),
            r"cases.0.labels.1': expected a string",
        ),
        (
            lambda d: d["suites"][0]["cases"].append(dict(d["suites"][0]["cases"][0])),
            r"'suites.0.cases.1.id': expected a case id not used before in this suite, found str 'g/c'",
        ),
        (
            lambda d: d["suites"].append(dict(d["suites"][0])),
            r"'suites.1.id': expected a suite id not used before \(suites.0\), found str 's'",
        ),
    ],
)
def test_check_document__malformed__error_names_json_path(mutate: Any, message: str) -> None:
    doc = minimal()
    mutate(doc)
    with pytest.raises(RunRecordError, match=message):
        check_document(doc, source="base.json")


def test_check_document__integral_float_in_an_integer_field__accepted_as_json_reads_it() -> None:
    doc = minimal()
    doc["suites"][0]["cases"][0]["trials"][0]["usage"] = {"input_tokens": 3.0}
    assert check_document(doc) is doc


def test_read_summary__not_json__file_line_column(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"schema": \n oops}', encoding="utf-8")
    with pytest.raises(RunRecordError, match=r"r.json:2:2: not valid JSON"):
        read_summary(path)


def test_read_summary__number_of_too_many_digits__file_line_column(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"schema": "agent-evals/run@1",\n "x": ' + "9" * 5001 + "}", encoding="utf-8")
    with pytest.raises(RunRecordError, match=r"r.json:2:7: not a run record: a number of 5,001 digits"):
        read_summary(path)


def test_read_summary__missing_file__names_it(tmp_path: Path) -> None:
    with pytest.raises(RunRecordError, match=r"cannot read run record .*nope\.json"):
        read_summary(tmp_path / "nope.json")


def test_read_data__round_trip(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(minimal()), encoding="utf-8")
    assert read_data(path) == minimal()


def test_read_data__nan_and_infinity__read_as_the_standard_library_reads_them(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    doc = minimal()
    doc["suites"][0]["cases"][0]["trials"][0]["duration_s"] = float("inf")
    doc["suites"][0]["cases"][0]["trials"][0]["scores"] = {"s": {"value": float("nan")}}
    path.write_text(json.dumps(doc), encoding="utf-8")
    trial = check_document(read_data(path))["suites"][0]["cases"][0]["trials"][0]
    assert trial["duration_s"] == float("inf")
    assert trial["scores"]["s"]["value"] != trial["scores"]["s"]["value"]  # NaN


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_decode_json__compiled_decoders_give_what_the_standard_library_gives(value: Any) -> None:
    raw = json.dumps(value).encode()
    expected = json.loads(raw)
    assert decode_json(raw) == expected
    assert from_json(raw, cache_strings="keys") == expected


@pytest.mark.parametrize("raw", [b"\xef\xbb\xbf{}", b'"\\ud83d\\ude00"', b"NaN", b"1E400"])
def test_decode_json__what_a_compiled_decoder_refuses__read_by_the_standard_library(raw: bytes) -> None:
    expected = json.loads(raw)
    got = decode_json(raw)
    assert got == expected or (got != got and expected != expected)  # NaN


def test_read_summary__a_lone_surrogate_escape__refused_as_no_text(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"schema": "\\ud800"}', encoding="utf-8")
    with pytest.raises(RunRecordError, match=r"r.json: not a run record: a string holds a lone surrogate"):
        read_summary(path)
