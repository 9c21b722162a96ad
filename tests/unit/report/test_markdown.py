"""The Markdown report: marker and verdict first, escaped content, user block overrides, size budget."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pytest

from agent_evals.errors import UsageError
from agent_evals.report.markdown import (
    COMMENT_MAX_BYTES,
    COMMENT_MAX_CHARS,
    SUMMARY_MAX_BYTES,
    fits,
    gate_marker,
    render_markdown,
)


def _regressed_comparison(build: Any, n_regressed: int = 1, text: str = "off", **case_fields: Any) -> Any:
    cases = [
        build.case(
            f"lights/case-{i}",
            "regressed",
            failing_scorers=[build.failing(notes=text, expected="on", actual=text)],
            output=text,
            **case_fields,
        )
        for i in range(n_regressed)
    ]
    s = build.suite(
        cases=cases,
        verdict="failed",
        outcome="fail",
        base=0.9,
        cand=0.7,
        delta=build.delta_stat(-0.2, p=0.002),
        reasons=[build.regression_reason()],
        groups=[build.group("lights", 0.9, 0.6, "regressed"), build.group("doors", 1.0, 1.0)],
    )
    return build.comparison([s], verdict="failed", outcome="fail")


def test_render_markdown__first_line_is_marker_then_verdict(build: Any) -> None:
    text = render_markdown(_regressed_comparison(build), gate_id="nightly")
    lines = text.splitlines()
    assert lines[0] == "<!-- agent-evals:gate:nightly -->"
    assert lines[1] == "### ❌ agent-evals: 1 regression in 1 suite · gate failed"


@pytest.mark.parametrize(
    ("verdict", "outcome", "reason_kind", "expected"),
    [
        ("passed", "pass", None, "### ✅ agent-evals: no regression · gate passed"),
        (
            "inconclusive",
            "warn",
            "inconclusive",
            "### ⚠️ agent-evals: no regression (inconclusive drop in 1 suite) · gate passed with warnings",
        ),
        (
            "no-baseline",
            "warn",
            "missing-baseline",
            "### ⚠️ agent-evals: no regression (no baseline for 1 suite) · gate passed with warnings",
        ),
        (
            "failed",
            "fail",
            "error-budget",
            "### ❌ agent-evals: no regression (over the error budget in 1 suite) · gate failed",
        ),
    ],
)
def test_render_markdown__verdict_line_names_reasons(
    build: Any, verdict: str, outcome: str, reason_kind: str | None, expected: str
) -> None:
    reasons = [build.reason(kind=reason_kind, message="why", suite_id="home-v1")] if reason_kind else []
    s = build.suite(verdict=verdict, outcome=outcome, reasons=reasons)
    text = render_markdown(build.comparison([s], verdict=verdict, outcome=outcome))
    assert text.splitlines()[1] == expected


def test_render_markdown__hostile_case_content__stays_inert(build: Any) -> None:
    hostile = (
        "@channel </details> <img src=http://x.example/p.png> a|b `rm` ![i](http://x.example) #12\nline2"
    )
    c = _regressed_comparison(build, text=hostile, name=hostile)
    text = render_markdown(c)
    assert "<img" not in text
    assert "`rm`" not in text
    # GitHub looks for mentions, references and links in the text after decoding entities.
    decoded = html.unescape(text)
    assert "@channel" not in decoded
    assert "http://" not in decoded
    assert "#12" not in decoded
    assert text.count("<details") == text.count("</details>")
    table_rows = [line for line in text.splitlines() if line.startswith("| <code>lights/case-0")]
    assert len(table_rows) == 1
    # Every row of the regressed table has the same number of cell separators as its header.
    assert table_rows[0].count("|") == "| Case | Trials | Failing scorer | Expected | Actual |".count("|")


def test_render_markdown__secret_in_agent_output__is_redacted(build: Any) -> None:
    c = _regressed_comparison(build, text="the key is sk-live-123456789")
    text = render_markdown(c, env={"OPENAI_API_KEY": "sk-live-123456789"})
    assert "sk-live-123456789" not in text
    assert "the key is ***" in html.unescape(text)


def test_render_markdown__invalid_gate_id__is_a_usage_error(build: Any) -> None:
    with pytest.raises(UsageError, match="gate id"):
        render_markdown(_regressed_comparison(build), gate_id="x --> <script>")


def test_gate_marker__default() -> None:
    assert gate_marker() == "<!-- agent-evals:gate:default -->"


def test_render_markdown__unsafe_full_report_url__is_rejected(build: Any) -> None:
    with pytest.raises(UsageError, match="full report URL"):
        render_markdown(_regressed_comparison(build), full_report_url="javascript:alert(1)")


def test_render_markdown__user_template__overrides_a_named_block(build: Any, tmp_path: Path) -> None:
    (tmp_path / "comment.md.j2").write_text(
        '{% extends "builtin/comment.md.j2" %}\n'
        "{% block footer %}\nOwned by the platform team.\n{% endblock %}\n",
        encoding="utf-8",
    )
    text = render_markdown(_regressed_comparison(build), template_dir=tmp_path)
    assert text.splitlines()[0] == "<!-- agent-evals:gate:default -->"
    assert "Owned by the platform team." in text
    assert "Policy applied" not in text
    assert "Regressed cases" in text


def test_render_markdown__misspelt_variable_in_user_template__fails_loudly(
    build: Any, tmp_path: Path
) -> None:
    import jinja2

    (tmp_path / "comment.md.j2").write_text(
        '{% extends "builtin/comment.md.j2" %}{% block footer %}{{ c.verdictt }}{% endblock %}',
        encoding="utf-8",
    )
    with pytest.raises(jinja2.UndefinedError):
        render_markdown(_regressed_comparison(build), template_dir=tmp_path)


def test_render_markdown__missing_template_dir__is_a_usage_error(build: Any, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="template directory"):
        render_markdown(_regressed_comparison(build), template_dir=tmp_path / "nope")


@pytest.mark.parametrize("budget", ["comment", "summary"])
def test_render_markdown__huge_report__degrades_within_budget_keeping_marker_and_verdict(
    build: Any, budget: str
) -> None:
    c = _regressed_comparison(build, n_regressed=6000, text="x" * 5000)
    text = render_markdown(c, budget=budget)  # type: ignore[arg-type]
    assert fits(text, budget)  # type: ignore[arg-type]
    if budget == "comment":
        assert len(text) <= COMMENT_MAX_CHARS and len(text.encode()) <= COMMENT_MAX_BYTES
    else:
        assert len(text.encode()) <= SUMMARY_MAX_BYTES
    lines = text.splitlines()
    assert lines[0] == "<!-- agent-evals:gate:default -->"
    assert lines[1] == "### ❌ agent-evals: 6,000 regressions in 1 suite · gate failed"
    assert "Shortened to fit GitHub's size limit" in text
    assert "more regressed case" in text
    assert text.count("<details") == text.count("</details>")


def test_render_markdown__multibyte_content__respects_the_byte_limit(build: Any) -> None:
    c = _regressed_comparison(build, n_regressed=3000, text="日本語の出力" * 100)
    text = render_markdown(c)
    assert len(text.encode("utf-8")) <= COMMENT_MAX_BYTES


def test_render_markdown__small_report__is_not_shortened(build: Any) -> None:
    assert "Shortened" not in render_markdown(_regressed_comparison(build))


def test_render_markdown__full_report_url__is_linked_when_trimmed(build: Any) -> None:
    c = _regressed_comparison(build, n_regressed=3000, text="y" * 2000)
    text = render_markdown(c, full_report_url="https://github.com/o/r/actions/runs/1")
    assert "[here](https://github.com/o/r/actions/runs/1)" in text


def test_render_markdown__single_run__says_there_is_no_baseline(build: Any) -> None:
    s = build.suite(base=None, cand=0.8, verdict="no-baseline", outcome="pass")
    c = build.comparison([s], mode="single_run", verdict="no-baseline", baseline=build.baseline_info())
    text = render_markdown(c)
    assert text.splitlines()[1].startswith("### ✅ agent-evals: 80.0% pass rate over 10 cases in 1 suite")
    assert "Single run, no baseline." in text


def test_render_markdown__200kb_values__are_truncated_in_every_cell(build: Any) -> None:
    c = _regressed_comparison(build, n_regressed=3, text="z" * 200_000, name="n" * 200_000)
    text = render_markdown(c)
    assert "truncated 199,700 chars" in text  # scorer notes/actual at the full-detail limit of 300
    assert max(len(line) for line in text.splitlines()) < 2_000


@pytest.mark.parametrize(
    ("case_id", "name"),
    [
        ("capability-7/a-rather-long-scenario-name-{i}", "Scenario {i} with a long name"),
        ("c{i}", None),  # short ids: the fixed floor per row
        ("x\n\t\u202e{i}" * 10, "\x00{i}" * 30),  # text escaping may shorten: counted as nothing
    ],
)
@pytest.mark.parametrize("budget", ["comment", "summary"])
def test_render_markdown__levels_skipped_by_size_floor__same_text_as_trying_every_level(
    build: Any, monkeypatch: pytest.MonkeyPatch, case_id: str, name: str | None, budget: Any
) -> None:
    kinds = ("regressed", "flaky", "improved", "removed")
    cases = [
        build.case(case_id.format(i=i), kinds[i % 4], name=name.format(i=i) if name else None)
        for i in range(10_000 if budget == "summary" else 1200)
    ]
    s = build.suite(cases=cases, verdict="failed", outcome="fail", reasons=[build.regression_reason()])
    comparison = build.comparison([s], verdict="failed", outcome="fail")
    got = render_markdown(comparison, budget=budget)
    import agent_evals.report.markdown as markdown

    monkeypatch.setattr(markdown, "_lower_bound", lambda view, floors: 0)  # render every level in turn
    assert got == render_markdown(comparison, budget=budget)
    assert fits(got, budget)
