"""JUnit XML: one testcase per case; regressions fail, errors error, flaky is a property."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest

from agent_evals.report.junit import render_junit


def _comparison(build: Any, mode: str = "compare") -> Any:
    cases = [
        build.case(
            "lights/on",
            "regressed",
            failing_scorers=[build.failing(notes="off", expected="on", actual="off")],
        ),
        build.case("lights/dim", "stable-pass"),
        build.case("doors/lock", "errored", error="Timeout\x00 after 30s\x1b[0m"),
        build.case("media/play", "flaky"),
        build.case("scenes/old", "removed"),
        build.case("scenes/hard", "stable-fail"),
        build.case("scenes/new", "new", cand=build.side(0)),
        build.case("climate/crit", "regressed", critical=True, critical_flip=True),
    ]
    s = build.suite(cases=cases, verdict="failed", outcome="fail", reasons=[build.regression_reason()])
    return build.comparison([s], verdict="failed", outcome="fail", mode=mode)


def _by_name(root: ET.Element) -> dict[str, ET.Element]:
    return {tc.get("name", ""): tc for tc in root.iter("testcase")}


def test_render_junit__one_testcase_per_case_with_totals(build: Any) -> None:
    root = ET.fromstring(render_junit(_comparison(build), env={}))
    assert root.tag == "testsuites"
    assert len(list(root.iter("testcase"))) == 8
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == (
        "8",
        "2",
        "1",
        "3",
    )
    assert root.get("failures") == "2"


def test_render_junit__classifications_map_to_elements(build: Any) -> None:
    cases = _by_name(ET.fromstring(render_junit(_comparison(build), env={})))
    failure = cases["lights/on"].find("failure")
    assert failure is not None and failure.get("type") == "regression"
    assert "expected: on" in (failure.text or "") and "actual: off" in (failure.text or "")
    crit = cases["climate/crit"].find("failure")
    assert crit is not None and crit.get("type") == "critical-regression"
    error = cases["doors/lock"].find("error")
    assert error is not None and error.get("message") == "Timeout after 30s[0m"
    flaky = {p.get("name"): p.get("value") for p in cases["media/play"].iter("property")}
    assert flaky["flaky"] == "true"
    assert cases["media/play"].find("failure") is None
    assert cases["lights/dim"].find("failure") is None and cases["lights/dim"].find("skipped") is None
    for name in ("scenes/old", "scenes/hard", "scenes/new"):
        assert cases[name].find("skipped") is not None, name


def test_render_junit__single_run__failing_cases_are_failures(build: Any) -> None:
    cases = _by_name(ET.fromstring(render_junit(_comparison(build, mode="single_run"), env={})))
    assert cases["scenes/hard"].find("failure") is not None
    assert cases["scenes/new"].find("failure") is not None


def test_render_junit__hostile_and_secret_text__stays_valid_xml_without_the_secret(build: Any) -> None:
    hostile = ']]></failure><testcase name="x"/> & "quotes" \x01\ud800 token-abcdef123'
    c = build.comparison(
        [
            build.suite(
                cases=[
                    build.case(
                        hostile, "regressed", name=hostile, failing_scorers=[build.failing(notes=hostile)]
                    )
                ],
                verdict="failed",
                outcome="fail",
            )
        ],
        verdict="failed",
        outcome="fail",
    )
    text = render_junit(c, env={"API_TOKEN": "token-abcdef123"})
    root = ET.fromstring(text)
    assert "token-abcdef123" not in text
    (case,) = list(root.iter("testcase"))
    assert case.get("name", "").startswith(']]></failure><testcase name="x"/>')


@pytest.mark.parametrize(
    "text",
    ["tab\there", "new\nline\r\nend", 'a "quoted" <tag> & amp', "&amp; already escaped", "plain"],
)
def test_render_junit__attribute_and_body_text_read_back_exactly(build: Any, text: str) -> None:
    case = build.case(text, "regressed", name=text, failing_scorers=[build.failing(notes=text)])
    c = build.comparison([build.suite(cases=[case], verdict="failed", outcome="fail")], verdict="failed")
    (testcase,) = ET.fromstring(render_junit(c, env={})).iter("testcase")
    props = {p.get("name"): p.get("value") for p in testcase.iter("property")}
    assert testcase.get("name") == text and props["name"] == text
    failure = testcase.find("failure")
    # in element text XML reads a line break as \n, whichever way it was written (attributes keep \r)
    assert failure is not None and f"notes: {text.replace(chr(13) + chr(10), chr(10))}" in (
        failure.text or ""
    )
