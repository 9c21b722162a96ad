"""The JSON verdict carries the decision and the figures, with secrets redacted."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_evals.report.verdict_json import VERDICT_SCHEMA, indented_json, render_json


def test_render_json__decision_and_figures(build: Any) -> None:
    cases = [build.case("lights/on", "regressed", failing_scorers=[build.failing()])]
    s = build.suite(
        cases=cases,
        verdict="failed",
        outcome="fail",
        base=0.9,
        cand=0.7,
        delta=build.delta_stat(-0.2, p=0.002),
        reasons=[build.regression_reason()],
    )
    doc = json.loads(render_json(build.comparison([s], verdict="failed", outcome="fail"), env={}))
    assert doc["schema"] == VERDICT_SCHEMA
    assert (doc["verdict"], doc["outcome"], doc["exit_code"]) == ("failed", "fail", 1)
    assert doc["headline"] == "❌ agent-evals: 1 regression in 1 suite · gate failed"
    assert math.isclose(doc["pass_rate"], 0.7) and math.isclose(doc["baseline_pass_rate"], 0.9)
    assert doc["regressions"] == 1 and doc["regressed_suites"] == ["home-v1"]
    assert doc["suites"][0]["comparison"]["p_value"] == 0.002
    assert doc["regressed_cases"][0]["case"] == "lights/on"
    assert doc["regressed_cases"][0]["failing_scorers"] == ["state_match"]
    assert doc["policy"]["alpha"] == 0.05


def test_render_json__non_finite_figures__become_null(build: Any) -> None:
    s = build.suite(delta=build.delta_stat(float("nan"), p=float("inf")))
    doc = json.loads(render_json(build.comparison([s]), env={}))
    assert doc["suites"][0]["comparison"]["delta"] is None
    assert doc["suites"][0]["comparison"]["p_value"] is None


def test_render_json__secrets_anywhere__are_redacted(build: Any) -> None:
    s = build.suite(
        "suite-with-pw-hunter2xyz", reasons=[build.reason(kind="floor", message="saw hunter2xyz")]
    )
    text = render_json(build.comparison([s]), env={"DB_PASSWORD": "hunter2xyz"})
    assert "hunter2xyz" not in text
    assert json.loads(text)["suites"][0]["id"] == "suite-with-pw-***"


def test_render_json__absolute_baseline_path__never_shows_the_runner_layout(build: Any) -> None:
    from agent_evals.gate.model import BaselineInfo

    comparison = build.comparison(
        [build.suite()], baseline=BaselineInfo(source="file", path="/srv/ci/x/b.json")
    )
    doc = json.loads(render_json(comparison, env={}))
    assert doc["baseline"]["source"] == "file"
    assert doc["baseline"]["path"] == "b.json"


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=())),  # lone surrogates too: untrusted text has them
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_indented_json__any_document__exactly_the_standard_librarys_text(document: Any) -> None:
    pytest.importorskip("msgspec")  # without it, indented_json is json.dumps itself
    expected = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)
    assert indented_json(document) == expected


def test_indented_json__lone_surrogate__written_as_the_standard_library_does() -> None:
    document = {"output": "half a pair: \ud800", "n": [1.5, None]}
    assert indented_json(document) == json.dumps(document, indent=2, ensure_ascii=False)
