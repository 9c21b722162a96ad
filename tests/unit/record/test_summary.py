"""The one reader: every entry point refuses a bad record with the same located error, and what it
accepts is what the shipped JSON Schema accepts (and what the record models can then load)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_evals.errors import RunRecordError
from agent_evals.record.model import RunRecord
from agent_evals.record.read import check_document, parse_record, read_record, read_summary
from agent_evals.record.summary import summarise
from agent_evals.schemas import load_run_schema
from unit.record.summaries import record, records, shape


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
    lambda d: trial1(d).update(traceback=["frame"]),
    lambda d: d["suites"][0]["cases"][1].update(id="g/c0"),  # a repeated case id
    lambda d: d["suites"][1].update(id="s"),  # a repeated suite id
    lambda d: d["suites"][0].pop("source"),
    lambda d: d["suites"][0]["cases"][1].update(labels=None),
    lambda d: d["suites"][0]["cases"][1].update(labels=["slow", 2]),
    lambda d: trial1(d)["usage"].update(models=5),
    lambda d: trial1(d)["usage"].update(models={"gpt-4o": "12 tokens"}),
    lambda d: trial1(d)["usage"].update(models={"gpt-4o": {"input_tokens": "12"}}),
    lambda d: trial1(d)["usage"].update(models={"gpt-4o": {"input_tokens": None}}),
    lambda d: trial1(d).update(attempts={"error": "HTTP 429"}),
    lambda d: trial1(d).update(attempts=[{"error": "HTTP 429", "duration_s": "1s"}]),
    lambda d: trial1(d).update(attempts=["HTTP 429"]),
    lambda d: trial1(d).update(cache="replay"),
    lambda d: trial1(d)["usage"].update(replayed=3),
    lambda d: trial1(d)["usage"].update(replayed={"calls": "one"}),
    lambda d: trial1(d)["usage"].update(replayed={"input_tokens": None}),
    lambda d: trial1(d).update(attempts=[{"error": "HTTP 429", "usage": "$0.01"}]),
    lambda d: trial1(d).update(attempts=[{"error": "HTTP 429", "usage": {"cost_usd": "0.01"}}]),
    lambda d: trial1(d).update(attempts=[{"usage": {"models": {"gpt-4o": {"calls": 1.5}}}}]),
    lambda d: trial1(d).update(attempts=[{"usage": {"replayed": {"calls": None}}}]),
    lambda d: trial1(d).update(cache={}),
    lambda d: trial1(d).update(cache={"mode": "off"}),
    lambda d: trial1(d).update(cache={"mode": "replay", "missed": 1.5}),
    lambda d: d["run"].update(budget={"limit_usd": 1.0}),
    lambda d: d["run"].update(budget={"limit_usd": "1", "spent_usd": 0}),
    lambda d: d["run"].update(budget=3),
    # usage numbers beyond 1e15: no measurement, and their sums overflowed a float (exit 3 before)
    lambda d: trial1(d)["usage"].update(cost_usd=1e308),
    lambda d: trial1(d)["usage"].update(input_tokens=10**400),
    lambda d: trial1(d)["usage"].update(output_tokens=-(10**16)),
    lambda d: trial1(d)["usage"].update(models={"gpt-4o": {"input_tokens": 10**20}}),
    lambda d: trial1(d)["usage"].update(replayed={"input_tokens": 1, "output_tokens": 1, "calls": 10**18}),
    lambda d: trial1(d).update(attempts=[{"usage": {"cost_usd": -1e300}}]),
    # two problems: the first in record order is reported
    lambda d: (trial1(d).update(passed=None), d["suites"][1].update(kind="x")),
    lambda d: (trial1(d).update(output=1), d["suites"][0]["cases"][0].update(name=2)),
]


def _error(read: Callable[[], Any]) -> str:
    with pytest.raises(RunRecordError) as caught:
        read()
    return str(caught.value)


@pytest.mark.parametrize("mutate", MUTATIONS)
def test_reader__malformed_record__every_entry_point_gives_the_same_located_error(
    tmp_path: Path, mutate: Mutation
) -> None:
    doc = record()
    mutate(doc)
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    source = str(path)
    errors = {
        "read_summary": _error(lambda: read_summary(path)),
        "read_record": _error(lambda: read_record(path)),
        "parse_record": _error(lambda: parse_record(doc, source=source)),
        "check_document": _error(lambda: check_document(doc, source=source)),
    }
    assert len(set(errors.values())) == 1, errors
    assert f"{source}: invalid run record at '" in errors["read_summary"]


@pytest.mark.parametrize("text", ["", "{not json", "[]", '{"schema": "agent-evals/run@9"}'])
def test_reader__not_a_run_record__summary_and_model_readers_agree(tmp_path: Path, text: str) -> None:
    path = tmp_path / "run.json"
    path.write_text(text, encoding="utf-8")
    assert _error(lambda: read_summary(path)) == _error(lambda: read_record(path))


def test_read_summary__valid_record__views_keep_the_checked_cases(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(record()), encoding="utf-8")
    summary = read_summary(path)
    assert shape(summary) == shape(summarise(record()))
    view = summary.suites[0].view
    assert view.cases["g/c0"].raw["name"] == "c0"
    assert (view.cases["g/c0"].key, view.scorers["check"]["g/c1"]) == ((1, 1, 0), (1, 1, 0))
    assert summary.suites[0].trial_counts == [1]


def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(load_run_schema())


def _reader_rules(doc: Any) -> bool:
    """The reader's rules beyond the schema: a schema id it reads, unique suite ids, unique case ids
    within a suite."""
    if isinstance(doc, dict) and doc.get("schema") != "agent-evals/run@1":
        return False
    try:
        suites = doc["suites"]
        sids = [s["id"] for s in suites]
        return len(set(sids)) == len(sids) and all(
            len({c["id"] for c in s["cases"]}) == len(s["cases"]) for s in suites
        )
    except (KeyError, TypeError):
        return True  # the schema refuses it anyway


JSON_VALUES = st.sampled_from(
    [None, True, False, 0, 3, 2.5, 3.0, "", "x", [], ["x"], [1], {}, {"passed": True}, {"k": 1}]
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _paths(value, (*prefix, i))
    return found


@st.composite
def mutated_records(draw: st.DrawFn) -> dict[str, Any]:
    """A valid record with one value replaced, one key removed, or one key added somewhere."""
    doc = copy.deepcopy(draw(records()))
    paths = _paths(doc)
    path = draw(st.sampled_from(paths))
    parent: Any = doc
    for step in path[:-1]:
        parent = parent[step]
    how = draw(st.sampled_from(["replace", "remove", "add"]))
    if how == "replace":
        parent[path[-1]] = draw(JSON_VALUES)
    elif how == "remove" and isinstance(parent, dict):
        del parent[path[-1]]
    elif isinstance(parent, dict):
        parent[draw(st.sampled_from(["scores", "usage", "line", "critical", "extra"]))] = draw(JSON_VALUES)
    return doc


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_records())
def test_reader__accepts_exactly_what_the_json_schema_accepts__and_the_models_load_it(doc: Any) -> None:
    schema_ok = _validator().is_valid(doc) and _reader_rules(doc)
    try:
        summarise(doc)
        reader_ok = True
    except RunRecordError:
        reader_ok = False
    assert reader_ok == schema_ok
    if reader_ok:
        RunRecord.model_validate(doc)  # regrade and the record writer can load whatever is read


@settings(max_examples=100, deadline=None)
@given(records())
def test_reader__random_valid_records__accepted_by_all(doc: dict[str, Any]) -> None:
    assert _validator().is_valid(doc)
    again = summarise(parse_record(doc).model_dump(mode="json", by_alias=True))
    assert _keys(summarise(doc)) == _keys(again)


def _keys(summary: Any) -> list[Any]:
    return [[(v.id, v.key, v.fraction, v.critical) for v in s.view.cases.values()] for s in summary.suites]


# The reader's type tables against the shipped schema: a field added to the schema (and the models)
# but not to the reader would be accepted unchecked, whatever it holds.
_SCHEMA_TYPES: dict[str, frozenset[type]] = {
    "string": frozenset((str,)),
    "integer": frozenset((int,)),
    "number": frozenset((int, float)),
    "boolean": frozenset((bool,)),
    "object": frozenset((dict,)),
    "array": frozenset((list,)),
    "null": frozenset((type(None),)),
}
_TABLES = {
    "RunInfo": "RUN",
    "GitInfo": "GIT",
    "CIInfo": "CI",
    "ShardInfo": "SHARD",
    "ShardSuite": "SHARD_SUITE",
    "BudgetInfo": "BUDGET",
    "AgentInfo": "AGENT",
    "Suite": "SUITE",
    "SuiteModels": "SUITE_MODELS",
    "Case": "CASE",
    "Location": "LOCATION",
    "Trial": "TRIAL",
    "Attempt": "ATTEMPT",
    "TrialCache": "CACHE",
    "Usage": "USAGE",
    "ModelUsage": "MODEL_USAGE",
    "ReplayedUsage": "REPLAYED_USAGE",
    "TrialScore": "SCORE",
}
_CHECKED_BY_HAND = {("Suite", "kind"), ("TrialCache", "mode")}
"""Enums: the walk compares the value itself."""


def _kinds(prop: dict[str, Any]) -> frozenset[type] | None:
    """The classes a schema property allows; None for free-form JSON (no type at all)."""
    if "$ref" in prop:
        return frozenset((dict,))
    if "anyOf" in prop:
        kinds = [_kinds(p) for p in prop["anyOf"]]
        return None if None in kinds else frozenset().union(*(k for k in kinds if k is not None))
    if "type" not in prop:
        return None
    return _SCHEMA_TYPES[prop["type"]]


def test_reader_tables__name_every_schema_field_with_the_schema_types() -> None:
    import agent_evals.record.rules as reader

    defs = load_run_schema()["$defs"]
    assert set(defs) - set(_TABLES) == {"RunRecord"}, "a schema object the reader has no table for"
    for name, table_name in _TABLES.items():
        table = getattr(reader, table_name)
        for field, prop in defs[name]["properties"].items():
            kinds = _kinds(prop)
            if kinds is None or (name, field) in _CHECKED_BY_HAND:
                assert field not in table or kinds is None, (name, field)
                continue
            assert table.get(field) == kinds, f"{name}.{field}: reader {table.get(field)}, schema {kinds}"


@pytest.mark.parametrize(
    "costs", [[float("inf"), float("-inf")], [float("nan"), 1.0]], ids=["inf-and-minus-inf", "nan"]
)
def test_summarise__non_finite_costs__readable_total_is_no_measurement(costs: list[float]) -> None:
    # NaN and infinite costs stay readable (the gate counts them as not measured); an infinite cost of
    # each sign made the suite's total raise
    doc = record()
    for trial, cost in zip((d["trials"][0] for d in doc["suites"][0]["cases"]), costs, strict=False):
        trial.setdefault("usage", {})["cost_usd"] = cost
    total = summarise(doc).suites[0].view.usage.cost_usd
    assert total is not None and total != total  # NaN
