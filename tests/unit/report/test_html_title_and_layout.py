"""The HTML report: a title naming suites, PR and commit; a heading over every table; full width."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_evals.cli.main import cli


def _record(codes: str, *, ref: str, sha: str) -> dict[str, Any]:
    return {
        "schema": "agent-evals/run@1",
        "run": {
            "tool_version": "0.1.0",
            "started_at": "2026-01-01T00:00:00Z",
            "git": {"sha": sha, "ref": ref},
        },
        "suites": [
            {
                "id": "home",
                "kind": "benchmark",
                "source": "home.yaml",
                "cases": [
                    {
                        "id": f"doors/c{i}",
                        "group": "doors",
                        "dimensions": {"phrasing": "direct"},
                        "trials": [{"passed": c == "P", "scores": {"state": {"passed": c == "P"}}}],
                    }
                    for i, c in enumerate(codes)
                ],
            }
        ],
    }


class _Outline(HTMLParser):
    """Records the title and, for every table, whether a heading came since the previous table."""

    def __init__(self) -> None:
        super().__init__()
        self.title = ""
        self.in_title = False
        self.heading_seen = False
        self.tables: list[bool] = []
        self.body_style = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title" and not self.title:  # the page's; SVG charts have titles of their own
            self.in_title = True
        if tag in ("h1", "h2", "h3", "summary"):
            self.heading_seen = True
        if tag == "table":
            self.tables.append(self.heading_seen)
            self.heading_seen = False

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title += data


@pytest.fixture
def html(tmp_path: Path) -> str:
    base = _record("P" * 30, ref="main", sha="1111111aaaa")
    cand = _record("F" * 10 + "P" * 20, ref="refs/pull/17/merge", sha="abcdef0123456789")
    for name, doc in (("b.json", base), ("c.json", cand)):
        (tmp_path / name).write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "report.html"
    done = CliRunner().invoke(
        cli, ["compare", str(tmp_path / "b.json"), str(tmp_path / "c.json"), "--html", str(out)]
    )
    assert done.exit_code == 1, done.output
    return out.read_text(encoding="utf-8")


def test_html__title_names_the_suites_the_pull_request_and_the_commit(html: str) -> None:
    outline = _Outline()
    outline.feed(html)
    assert outline.title == "agent-evals: home · PR #17 · abcdef0"
    assert "<h1>agent-evals: home · PR #17 · abcdef0</h1>" in html


def test_html__every_table_has_a_heading_and_the_page_uses_the_full_width(html: str) -> None:
    outline = _Outline()
    outline.feed(html)
    assert len(outline.tables) >= 3
    assert all(outline.tables), outline.tables
    body_rule = html.split("body {", 1)[1].split("}", 1)[0]
    assert "max-width" not in body_rule
