"""The HTML report is one self-contained file: escaped content, inline charts, no network."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest

from agent_evals.report.charts import Bar, flip_counts, outcome_of, pass_rate_bars
from agent_evals.report.html import render_html


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)


def _comparison(build: Any, text: str = "off") -> Any:
    cases = [
        build.case(
            "lights/on", "regressed", name=text, failing_scorers=[build.failing(notes=text, actual=text)]
        ),
        build.case("lights/up", "improved"),
        build.case("doors/x", "stable-pass"),
    ]
    s = build.suite(
        cases=cases,
        verdict="failed",
        outcome="fail",
        reasons=[build.regression_reason()],
        groups=[build.group("lights", 0.9, 0.6, "regressed"), build.group("doors", 1.0, 1.0)],
    )
    return build.comparison([s], verdict="failed", outcome="fail")


def test_render_html__self_contained_with_svg_charts(build: Any) -> None:
    text = render_html(_comparison(build), env={})
    assert text.startswith("<!DOCTYPE html>")
    assert "default-src 'none'" in text
    assert text.count("<svg") == 3  # pass rate by capability, flip matrix, per-case strip
    assert "Pass rate by capability" in text and "Case flips" in text
    parser = _Tags()
    parser.feed(text)
    assert "script" not in parser.tags and "link" not in parser.tags and "img" not in parser.tags


def test_render_html__hostile_text__is_escaped(build: Any) -> None:
    hostile = '<script>alert(1)</script><img src="http://x.example/p.png">'
    text = render_html(_comparison(build, text=hostile), env={})
    assert "<script>" not in text and "<img" not in text
    assert "&lt;script&gt;" in text


def test_render_html__secret__is_redacted(build: Any) -> None:
    text = render_html(_comparison(build, text="tok-998877665"), env={"GH_TOKEN": "tok-998877665"})
    assert "tok-998877665" not in text


def test_pass_rate_bars__labels_are_escaped_and_drops_are_red() -> None:
    svg = pass_rate_bars([Bar("<b>x</b>", 0.9, 0.5)], title="t")
    assert "<b>" not in svg and "&lt;b&gt;" in svg
    assert "#d1453b" in svg


def test_flip_counts__buckets_cases_by_outcome_on_each_side(build: Any) -> None:
    cases = [
        build.case("a", "regressed"),
        build.case("b", "stable-pass"),
        build.case("c", "new"),
        build.case("d", "errored"),
    ]
    counts = flip_counts(cases)
    assert counts[("pass", "fail")] == 1
    assert counts[("pass", "pass")] == 1
    assert counts[("absent", "pass")] == 1
    assert counts[("pass", "errored")] == 1
    assert outcome_of(None) == "absent"


def test_render_html__lone_surrogate_in_untrusted_text__replaced_and_encodable(build: Any) -> None:
    case = build.case("lights/on", "regressed", failing_scorers=[build.failing(notes="err\ud800")])
    html = render_html(build.comparison([build.suite(cases=[case])]), env={})
    assert "\ud800" not in html
    html.encode("utf-8")  # raises UnicodeEncodeError if a surrogate survived
    assert "err\ufffd" in html


@pytest.mark.parametrize(
    "hostile",
    ["\x1b[31mred\x1b[0m", "abc\u202edcba", "bell\x07", "nul\x00", "iso\u2066late\u2069", "c1\x9b"],
    ids=["ansi-escape", "bidi-override", "bell", "nul", "bidi-isolate", "c1-csi"],
)
def test_render_html__control_and_bidi_characters__stripped_as_in_markdown(build: Any, hostile: str) -> None:
    html = render_html(_comparison(build, text=hostile), env={})
    for char in "\x1b\u202e\x07\x00\u2066\u2069\x9b":
        assert char not in html
    visible = "".join(ch for ch in hostile if ch.isprintable() and ch not in "\u202e\u2066\u2069")
    assert visible in html
