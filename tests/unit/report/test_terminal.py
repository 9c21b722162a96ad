"""The terminal rendering is readable plain text; colours only on request; agent text cannot drive the terminal."""

from __future__ import annotations

from typing import Any

from agent_evals.report.terminal import LIST_LIMIT, render_terminal


def _comparison(build: Any, n: int = 1, text: str = "off") -> Any:
    cases = [
        build.case(f"lights/c{i}", "regressed", failing_scorers=[build.failing(notes=text, actual=text)])
        for i in range(n)
    ]
    s = build.suite(
        cases=cases,
        verdict="failed",
        outcome="fail",
        base=0.9,
        cand=0.7,
        delta=build.delta_stat(-0.2, p=0.002),
        reasons=[build.regression_reason()],
        groups=[build.group("lights", 0.9, 0.6, "regressed")],
    )
    return build.comparison([s], verdict="failed", outcome="fail")


def test_render_terminal__plain_by_default_with_verdict_table_and_cases(build: Any) -> None:
    text = render_terminal(_comparison(build), env={})
    lines = text.splitlines()
    assert lines[0] == "❌ agent-evals: 1 regression in 1 suite · gate failed"
    assert "\x1b[" not in text
    assert any(line.startswith("home-v1") and "-20.0 pp" in line and "failed" in line for line in lines)
    assert any(line.startswith("  lights") and "regressed" in line for line in lines)
    assert "Regressed cases (1):" in text
    assert "policy: alpha 0.05" in text


def test_render_terminal__color__adds_ansi_sequences(build: Any) -> None:
    text = render_terminal(_comparison(build), color=True, env={})
    assert text.startswith("\x1b[31m❌ agent-evals")


def test_render_terminal__escape_sequences_and_newlines_in_agent_text__are_neutralised(build: Any) -> None:
    text = render_terminal(_comparison(build, text="\x1b]0;pwned\x07\x1b[2Jline1\nline2"), env={})
    assert "\x1b" not in text and "\x07" not in text
    assert "line1 ⏎ line2" in text


def test_render_terminal__long_lists__are_cut_with_a_count(build: Any) -> None:
    text = render_terminal(_comparison(build, n=LIST_LIMIT + 5), env={})
    assert "...and 5 more" in text


def test_render_terminal__secret__is_redacted(build: Any) -> None:
    text = render_terminal(_comparison(build, text="key sk-123456789"), env={"X_KEY": "sk-123456789"})
    assert "sk-123456789" not in text and "key ***" in text
