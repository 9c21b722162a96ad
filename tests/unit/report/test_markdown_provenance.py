"""The report footer's provenance: unknown facts are left out, paths never show the runner's layout."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from agent_evals.gate.model import BaselineInfo, RunInfoView
from agent_evals.report.filters import display_path, timestamp
from agent_evals.report.html import render_html
from agent_evals.report.markdown import render_markdown


def _footer(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("<sub>Baseline"))


def _compare(build: Any, baseline: BaselineInfo, candidate: RunInfoView) -> Any:
    s = build.suite(base=0.9, cand=0.9)
    return build.comparison([s], baseline=baseline).model_copy(update={"candidate": candidate})


@pytest.mark.parametrize(
    ("baseline", "candidate", "expected"),
    [
        (
            BaselineInfo(source="file", path="out/baseline.json", date="2026-11-30T04:28:10+00:00"),
            RunInfoView(date="2026-11-30T04:47:50+00:00"),
            "Baseline: file out/baseline.json (2026-11-30 04:28 UTC). Candidate: run (2026-11-30 04:47 UTC).",
        ),
        (
            BaselineInfo(source="file", path="out/baseline.json"),
            RunInfoView(),
            "Baseline: file out/baseline.json. agent-evals",
        ),
        (
            BaselineInfo(
                source="artifact", run_id="42", sha="a" * 40, ref="main", date="2026-11-29T10:00:00Z"
            ),
            RunInfoView(sha="b" * 40, ref="feature", complete=False),
            "Baseline: CI run 42 at aaaaaaa on main (2026-11-29 10:00 UTC). "
            "Candidate: run at bbbbbbb on feature, incomplete.",
        ),
        (
            BaselineInfo(source="artifact"),
            RunInfoView(sha="c" * 40),
            "Baseline: a CI run. Candidate: run at ccccccc.",
        ),
    ],
)
def test_footer__unknown_facts__are_left_out_not_dashed(
    build: Any, baseline: BaselineInfo, candidate: RunInfoView, expected: str
) -> None:
    footer = _footer(render_markdown(_compare(build, baseline, candidate)))
    assert expected in footer
    assert "–" not in footer
    assert " on ." not in footer and "?" not in footer


def test_footer__absolute_baseline_path_below_cwd__is_shown_relative(
    build: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    info = BaselineInfo(source="file", path=str(tmp_path / "out" / "baseline.json"))
    c = _compare(build, info, RunInfoView())
    assert "Baseline: file out/baseline.json." in _footer(render_markdown(c))
    html = render_html(c)
    assert "Baseline: file out/baseline.json." in html
    assert str(tmp_path) not in html


@pytest.mark.parametrize(
    ("path", "cwd", "expected"),
    [
        ("/runner/work/repo/out/b.json", "/runner/work/repo", "out/b.json"),
        ("/elsewhere/secret/layout/b.json", "/runner/work/repo", "b.json"),
        ("out/b.json", "/runner/work/repo", "out/b.json"),
        ("/runner/work/repo", "/runner/work/repo", "repo"),
    ],
)
def test_display_path__never_shows_an_absolute_layout(path: str, cwd: str, expected: str) -> None:
    if os.name == "nt":
        pytest.skip("POSIX paths")
    assert display_path(path, cwd) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-11-30T04:28:10+00:00", "2026-11-30 04:28 UTC"),
        ("2026-11-30T04:28:10Z", "2026-11-30 04:28 UTC"),
        ("2026-11-30T05:28:10+01:00", "2026-11-30 04:28 UTC"),
        ("2026-11-30T04:28:10", "2026-11-30 04:28"),
        ("yesterday", "yesterday"),
    ],
)
def test_timestamp__iso_times__read_as_utc_minutes(value: str, expected: str) -> None:
    assert timestamp(value) == expected


def test_footer__selected_baseline__says_how_it_was_chosen(build: Any) -> None:
    info = BaselineInfo(
        source="artifact",
        run_id="42",
        sha="a" * 40,
        ref="main",
        selection="the newest successful run older than the merge base abc1234, since no run exists at the merge base",
    )
    c = _compare(build, info, RunInfoView())
    expected = (
        "Baseline: CI run 42 at aaaaaaa on main: the newest successful run older than the merge base abc1234, "
        "since no run exists at the merge base."
    )
    assert expected in _footer(render_markdown(c))
    assert expected in render_html(c)


@pytest.mark.parametrize(
    ("baseline", "expected"),
    [
        (
            BaselineInfo(source="file", path="out/baseline.json"),
            "Candidate vs baseline (file out/baseline.json)",
        ),
        (
            BaselineInfo(source="artifact", run_id="42", sha="a" * 40),
            "Candidate ccccccc vs baseline aaaaaaa (CI run 42)",
        ),
    ],
)
def test_render_terminal__unknown_shas__are_left_out(
    build: Any, baseline: BaselineInfo, expected: str
) -> None:
    from agent_evals.report.terminal import render_terminal

    sha = "c" * 40 if baseline.sha else None
    text = render_terminal(_compare(build, baseline, RunInfoView(sha=sha)), color=False)
    assert expected in text.splitlines()[1]


@pytest.mark.parametrize(
    ("baseline", "candidate", "expected"),
    [
        (BaselineInfo(source="file", path="b.json"), RunInfoView(), None),
        (
            BaselineInfo(source="artifact", sha="a" * 40, ref="main"),
            RunInfoView(sha="b" * 40),
            "Candidate bbbbbbb vs baseline aaaaaaa (main).",
        ),
        (
            BaselineInfo(source="file", path="b.json"),
            RunInfoView(ref="topic"),
            "Candidate (topic) vs baseline.",
        ),
    ],
)
def test_summary_line__commits__shown_only_when_known(
    build: Any, baseline: BaselineInfo, candidate: RunInfoView, expected: str | None
) -> None:
    lines = render_markdown(_compare(build, baseline, candidate)).splitlines()
    summary = [line for line in lines if line.startswith("Candidate")]
    assert summary == ([expected] if expected else [])
