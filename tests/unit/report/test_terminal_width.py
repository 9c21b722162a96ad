"""Every line of the terminal comparison fits 80 columns, counted as a terminal draws them."""

from __future__ import annotations

import pytest

from agent_evals.report.terminal import render_terminal
from agent_evals.report.width import display_width, fit, wrap
from golden.synthetic import CaseSpec, SuiteSpec, compare, pair, scenarios


@pytest.mark.parametrize(
    ("text", "width"),
    [
        ("plain", 5),
        ("", 0),
        ("\x1b[31mred\x1b[0m", 3),
        ("漢字", 4),
        ("❌ failed", 9),
        ("⚠️ warn", 7),
        ("e\u0301", 1),  # e + combining acute accent
        ("a\u200bb", 2),  # zero-width space
    ],
)
def test_display_width__counts_columns_as_a_terminal_draws_them(text: str, width: int) -> None:
    assert display_width(text) == width


@pytest.mark.parametrize(
    ("text", "width", "expected"),
    [
        ("short", 10, "short"),
        ("exactly-10", 10, "exactly-10"),
        ("a-longer-text", 8, "a-longe…"),
        ("漢字漢字漢字", 7, "漢字漢…"),
    ],
)
def test_fit__cuts_to_the_width_with_an_ellipsis(text: str, width: int, expected: str) -> None:
    assert fit(text, width) == expected
    assert display_width(fit(text, width)) <= width


@pytest.mark.parametrize(
    "text",
    [
        "word " * 50,
        "x" * 300,
        "漢" * 100 + " tail",
        "short",
        "mixed " + "y" * 90 + " words after a long one",
    ],
)
def test_wrap__lines_fit_and_keep_every_word(text: str) -> None:
    lines = wrap(text, 40, indent="  ", hanging="    ")
    assert all(display_width(line) <= 40 for line in lines)
    assert lines[0].startswith("  ") and all(line.startswith("    ") for line in lines[1:])
    assert "".join("".join(line.split()) for line in lines) == "".join(text.split())


def test_wrap__max_lines__marks_what_was_left_out() -> None:
    lines = wrap("word " * 100, 30, max_lines=2)
    assert len(lines) == 2 and lines[-1].endswith("…") and display_width(lines[-1]) <= 30


def _wide() -> object:
    long_suite = "benchmarks/a-very-long-directory-name/and-a-suite-file-name-that-goes-on.yaml"
    base, cand = pair(30, cand=lambda i: [i >= 12] if i % 2 else ["error"] if i < 4 else [True])
    base.suite_id = cand.suite_id = long_suite
    for side in (base, cand):
        for case in side.cases:
            case.case_id = f"{case.group}/一个很长的用例名称-{case.case_id}-" + "x" * 60
            case.group = "a-capability-with-a-long-name-" + case.group * 3
    cand.cases[1].output = "got " + "漢字" * 80
    cand.cases[1].notes = "expected the kitchen light on; " * 10
    other = SuiteSpec("second-suite", [CaseSpec("c/1", "c", [True])])
    gone = SuiteSpec("removed-suite-" + "z" * 70, [CaseSpec("c/1", "c", [True])])
    return compare([base, other, gone], [cand, other])


@pytest.mark.parametrize("name", [*sorted(set(scenarios()) - {"degrade_20000_cases"}), "wide"])
@pytest.mark.parametrize("color", [False, True])
def test_render_terminal__every_line_fits_80_columns(name: str, color: bool) -> None:
    comparison = _wide() if name == "wide" else scenarios()[name]()
    text = render_terminal(comparison, color=color, env={})  # type: ignore[arg-type]
    too_wide = [line for line in text.splitlines() if display_width(line) > 80]
    assert not too_wide, "\n".join(too_wide)
    assert len(text.splitlines()) > 8


def test_render_terminal__wide_view_still_names_the_regressed_cases_and_the_test() -> None:
    text = render_terminal(_wide(), env={})  # type: ignore[arg-type]
    assert "Regressed cases" in text and "一个很长的用例名称" in text
    assert "Delta (95% CI)" in text and "MDE" in text
    assert "Cases with errored trials" in text
