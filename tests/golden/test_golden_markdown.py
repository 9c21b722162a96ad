"""Golden Markdown reports rendered from comparisons that compare_runs builds from synthetic run records.

Set UPDATE_GOLDEN=1 to rewrite the files after an intended change, then review the diff.
"""

from __future__ import annotations

import html
import os
from functools import cache
from pathlib import Path

import pytest

from agent_evals.gate.model import Comparison
from agent_evals.report.markdown import (
    COMMENT_MAX_BYTES,
    COMMENT_MAX_CHARS,
    SUMMARY_MAX_BYTES,
    render_markdown,
)
from golden.synthetic import scenarios

GOLDEN_DIR = Path(__file__).resolve().parent / "markdown"
MARKER = "<!-- agent-evals:gate:default -->"


@cache
def _comparison(name: str) -> Comparison:
    return scenarios()[name]()


@pytest.mark.parametrize("name", sorted(scenarios()))
def test_golden_markdown__scenario__matches_the_golden_file(name: str) -> None:
    text = render_markdown(_comparison(name), env={})
    path = GOLDEN_DIR / f"{name}.md"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing: run UPDATE_GOLDEN=1 pytest {__file__}"
    assert text == path.read_text(encoding="utf-8"), (
        f"{name} differs from {path}; UPDATE_GOLDEN=1 rewrites it"
    )


@pytest.mark.parametrize("name", sorted(scenarios()))
def test_golden_markdown__every_scenario__starts_with_marker_and_verdict_and_fits(name: str) -> None:
    text = render_markdown(_comparison(name), env={})
    lines = text.splitlines()
    assert lines[0] == MARKER
    assert lines[1].startswith("### ") and "agent-evals:" in lines[1]
    assert len(text) <= COMMENT_MAX_CHARS and len(text.encode("utf-8")) <= COMMENT_MAX_BYTES
    assert text.count("<details") == text.count("</details>")


@pytest.mark.parametrize(
    ("name", "verdict_line"),
    [
        ("no_regression", "### ✅ agent-evals: 2 cases regressed; within the tolerated drop · gate passed"),
        ("one_significant_regression", "### ❌ agent-evals: 30 regressions in 1 suite · gate failed"),
        (
            "inconclusive_drop",
            "### ⚠️ agent-evals: 4 cases regressed; not enough evidence at alpha 0.05 (inconclusive drop in 1 suite)"
            " · gate passed with warnings",
        ),
        (
            "missing_baseline",
            "### ⚠️ agent-evals: no regression (no baseline for 1 suite) · gate passed with warnings",
        ),
        (
            "new_and_removed",
            "### ⚠️ agent-evals: no regression (1 suite removed: legacy-v0; 1 case removed: home-v1: "
            "lights/retired-scenario; runs not alike in 1 suite) · gate passed with warnings",
        ),
        (
            "errors_over_budget",
            "### ❌ agent-evals: no regression (over the error budget in 1 suite) · gate failed",
        ),
        ("hostile", "### ❌ agent-evals: 6 regressions in 1 suite · gate failed"),
    ],
)
def test_golden_markdown__verdict_line(name: str, verdict_line: str) -> None:
    assert render_markdown(_comparison(name), env={}).splitlines()[1] == verdict_line


def test_golden_markdown__hostile_outputs__cannot_mention_link_or_break_out() -> None:
    text = render_markdown(_comparison("hostile"), env={})
    decoded = html.unescape(text)  # what GitHub's mention/reference/autolink filters see
    for forbidden in (
        "@channel",
        "@here",
        "@acme/security-team",
        "#1 ",
        "GH-2",
        "acme/repo#3",
        "http://",
        "https://",
    ):
        assert forbidden not in decoded, forbidden
    for forbidden in ("<img", "<script", "</details><details open>", "```", "![img]"):
        assert forbidden not in text, forbidden
    # The 200 KB outputs are cut with a visible marker.
    assert "truncated" in decoded
    assert max(len(line) for line in text.splitlines()) < 10_000


def test_golden_markdown__20000_cases__degrade_to_the_comment_budget() -> None:
    comparison = _comparison("degrade_20000_cases")
    assert sum(len(s.cases) for s in comparison.suites) == 20_000
    text = render_markdown(comparison, env={})
    assert len(text) <= COMMENT_MAX_CHARS
    assert len(text.encode("utf-8")) <= COMMENT_MAX_BYTES
    lines = text.splitlines()
    assert lines[0] == MARKER
    assert lines[1].startswith("### ") and "agent-evals:" in lines[1]
    assert "Shortened to fit GitHub's size limit" in text
    assert "more regressed case" in text


def test_golden_markdown__20000_cases__fit_the_job_summary_budget_with_more_detail() -> None:
    comparison = _comparison("degrade_20000_cases")
    comment = render_markdown(comparison, env={})
    summary = render_markdown(comparison, budget="summary", env={})
    assert len(summary.encode("utf-8")) <= SUMMARY_MAX_BYTES
    assert summary.splitlines()[:2] == comment.splitlines()[:2]
    assert len(summary) > len(comment)
