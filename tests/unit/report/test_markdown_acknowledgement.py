"""A label-accepted regression: the note is rendered under the verdict and counted in the size budget."""

from __future__ import annotations

from typing import Any

from agent_evals.report.markdown import COMMENT_MAX_BYTES, COMMENT_MAX_CHARS, render_markdown

LABEL = "agent-evals:accept-regression"


def _failed(build: Any, n_cases: int, notes: list[str]) -> Any:
    cases = [
        build.case(f"lights/case-{i}", "regressed", failing_scorers=[build.failing(notes="x" * 250)])
        for i in range(n_cases)
    ]
    s = build.suite(
        cases=cases,
        verdict="failed",
        outcome="fail",
        base=0.9,
        cand=0.7,
        delta=build.delta_stat(-0.2, p=0.002),
        reasons=[build.regression_reason()],
    )
    return build.comparison([s], verdict="failed", outcome="fail", notes=notes)


def _just_under_the_limit(build: Any) -> Any:
    """A comparison whose full report is within a few characters of the comment limit."""
    notes: list[str] = []
    c = _failed(build, 60, notes)
    while True:
        gap = COMMENT_MAX_CHARS - len(render_markdown(c))
        if 0 <= gap <= 30:
            return c
        if gap > 0:
            notes.append("n" * min(300, gap - 10))
        else:
            notes[-1] = notes[-1][: len(notes[-1]) + gap - 5]
        c = _failed(build, 60, notes)


def test_render_markdown__accepted_label__note_follows_marker_and_verdict(build: Any) -> None:
    text = render_markdown(_failed(build, 1, []), accepted_label=LABEL)
    lines = text.splitlines()
    assert lines[0] == "<!-- agent-evals:gate:default -->"
    assert lines[1].startswith("### ❌")
    assert lines[3] == "> [!IMPORTANT]"
    assert f"**Regression accepted** with the <code>{LABEL}</code> label" in lines[4]


def test_render_markdown__accepted_label_on_a_report_at_the_limit__still_fits(build: Any) -> None:
    c = _just_under_the_limit(build)
    plain = render_markdown(c)
    # The full report fits by a hair: a note appended after rendering would push it over the limit.
    assert "Shortened" not in plain and len(plain) + 100 > COMMENT_MAX_CHARS
    text = render_markdown(c, accepted_label=LABEL)
    assert len(text) <= COMMENT_MAX_CHARS and len(text.encode("utf-8")) <= COMMENT_MAX_BYTES
    assert text.splitlines()[0] == "<!-- agent-evals:gate:default -->"
    assert "Regression accepted" in text


def test_render_markdown__accepted_label__hostile_label_is_escaped(build: Any) -> None:
    text = render_markdown(_failed(build, 1, []), accepted_label="@team <img src=x>")
    assert "@team" not in text.replace("&#64;team", "").replace("@\u2060team", "")
    assert "<img" not in text
