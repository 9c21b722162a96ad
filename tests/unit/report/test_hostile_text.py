"""Every report neutralises hostile text (issue 30 item 5): a table of renderers by kinds of text."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

import pytest

from agent_evals.record.model import RunRecord
from agent_evals.report.html import render_html
from agent_evals.report.junit import render_junit
from agent_evals.report.markdown import render_markdown
from agent_evals.report.terminal import render_terminal
from agent_evals.report.terminal_run import render_run_summary

HOSTILE = {
    "lone-surrogate": "\ud800",
    "undecodable-byte": "\udcff",  # what surrogateescape makes of an invalid UTF-8 byte
    "nul": "\x00",
    "ansi-escape": "\x1b[31m",
    "bidi-override": "\u202e",
    "bidi-isolate": "\u2066",
}
RAW = {chr(0xD800), chr(0xDCFF), "\x00", "\x1b", "\u202e", "\u2066"}


def _comparison(build: Any, text: str) -> Any:
    failure = build.failing(name="judge" + text, notes="n" + text, expected="e" + text, actual="a" + text)
    cases = [
        build.case(
            "lights/on" + text,
            "regressed",
            suite_id="home" + text,
            group="lights" + text,
            name="name" + text,
            failing_scorers=[failure],
            output="out" + text,
            expected="exp" + text,
            location="f" + text + ".py:3",
        ),
        build.case(
            "lights/err" + text, "errored", suite_id="home" + text, group="lights" + text, error="err" + text
        ),
    ]
    s = build.suite(
        "home" + text,
        cases=cases,
        verdict="failed",
        outcome="fail",
        reasons=[build.regression_reason("home" + text)],
        groups=[build.group("lights" + text, 0.9, 0.6, "regressed")],
    )
    return build.comparison([s], verdict="failed", outcome="fail")


def _run_record(text: str) -> RunRecord:
    trial = {"passed": False, "duration_s": 0.1, "output": "o" + text, "error": "ValueError: e" + text}
    trial["traceback"] = "Traceback:\n  boom" + text
    noted = {
        "passed": False,
        "duration_s": 0.1,
        "scores": {"s" + text: {"passed": False, "notes": "n" + text}},
    }
    cases = [
        {"id": "c1" + text, "group": "g" + text, "trials": [trial]},
        {"id": "c2" + text, "group": "g" + text, "trials": [noted]},
    ]
    doc = {
        "run": {"tool_version": "0", "started_at": "2026-01-01T00:00:00Z", "complete": True},
        "suites": [{"id": "s" + text, "kind": "evals", "source": "s.py", "cases": cases}],
    }
    return RunRecord.model_validate(doc)


RENDERERS: dict[str, Callable[[Any, str], str]] = {
    "markdown": lambda build, text: render_markdown(_comparison(build, text), env={}),
    "html": lambda build, text: render_html(_comparison(build, text), env={}),
    "junit": lambda build, text: render_junit(_comparison(build, text), env={}),
    "terminal": lambda build, text: render_terminal(_comparison(build, text), env={}),
    "run-summary": lambda build, text: render_run_summary(_run_record(text), verbose=True),
}


@pytest.mark.parametrize("renderer", list(RENDERERS))
@pytest.mark.parametrize("kind", list(HOSTILE))
def test_render__hostile_text_everywhere__none_of_it_raw_and_the_output_encodes(
    build: Any, renderer: str, kind: str
) -> None:
    shown = RENDERERS[renderer](build, HOSTILE[kind])
    assert not RAW & set(shown), f"{renderer} shows {sorted(RAW & set(shown))!r} raw"
    shown.encode("utf-8")  # strict: a surrogate left in would raise
    if renderer == "junit":
        ET.fromstring(shown.encode("utf-8"))  # XML 1.0: no NUL, no C0 control, no surrogate
