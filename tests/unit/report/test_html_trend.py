"""The HTML report draws a suite's pass rate over the earlier baselines when the gate has them."""

from __future__ import annotations

import re

import pytest

from agent_evals.gate.compare import compare_runs
from agent_evals.gate.policy import Policy
from agent_evals.report.charts import trend_chart
from agent_evals.report.html import render_html
from golden.synthetic import pair, record

TREND = 'aria-label="Pass rate over the baselines"'


def _runs(passing: list[int], n: int = 20):  # type: ignore[no-untyped-def]
    """One record per entry of ``passing`` (cases passing out of ``n``), a day apart, oldest first."""
    out = []
    for day, good in enumerate(passing):
        suite, _ = pair(n, base=lambda i, good=good: [i < good])
        out.append(
            record(
                [suite],
                sha=f"{day + 1:x}" * 40,
                run_id=str(100 + day),
                started_at=f"2026-11-{day + 10}T08:00:00Z",
            )
        )
    return out


def test_compare_with_history__trend_lists_the_runs_oldest_first_then_baseline_and_candidate() -> None:
    h1, h2, h3, base, cand = _runs([20, 19, 18, 20, 15])
    result = compare_runs(base, cand, Policy(), history=[h3, h1, h2])  # any order: sorted by start time
    trend = result.suites[0].trend
    assert [p.role for p in trend] == ["history"] * 3 + ["baseline", "candidate"]
    assert [p.rate for p in trend] == [1.0, 0.95, 0.9, 1.0, 0.75]
    assert [p.run_id for p in trend] == ["100", "101", "102", "103", "104"]


def test_html_with_history__draws_the_trend_with_every_rate_and_run() -> None:
    h1, h2, base, cand = _runs([20, 19, 20, 15])
    text = render_html(compare_runs(base, cand, Policy(), history=[h1, h2]), env={})
    svg = re.search(rf"<svg[^>]*{TREND}.*?</svg>", text, re.S)
    assert svg is not None
    chart = svg.group(0)
    assert chart.count("<circle") == 4
    assert "75.0%" in chart and "100.0%" in chart and "95.0%" in chart
    assert "1111111" in chart and "candidate" in chart
    assert "#d1453b" in chart  # the candidate is below the baseline: its dot is red


@pytest.mark.parametrize("history", [False, True])
def test_html_without_history__has_no_trend_chart(history: bool) -> None:
    runs = _runs([20, 18, 15])
    earlier = runs[:1] if history else []
    text = render_html(compare_runs(runs[1], runs[2], Policy(), history=earlier), env={})
    assert (TREND in text) is history


def test_history_without_the_suite__no_trend() -> None:
    (base, cand), (other,) = _runs([20, 15]), _runs([20], n=5)
    other.suites[0].id = "another-suite"
    result = compare_runs(base, cand, Policy(), history=[other])
    assert result.suites[0].trend == []


def test_trend_chart__labels_and_tooltips_are_escaped() -> None:
    from agent_evals.gate.model import TrendPoint

    hostile = '<script>alert(1)</script>"&'
    points = [
        TrendPoint(role="history", rate=0.5, sha=hostile, date=hostile, run_id=hostile),
        TrendPoint(role="baseline", rate=None, sha=None, date=hostile),
        TrendPoint(role="candidate", rate=0.9),
    ]
    svg = trend_chart(points, title=hostile)
    assert "<script" not in svg and "&lt;script&gt;" in svg
    assert svg.count("<circle") == 2  # a run with no graded case has no dot


def test_trend_chart__many_runs__latest_drawn_candidate_kept_labels_thinned() -> None:
    from agent_evals.gate.model import TrendPoint

    points = [TrendPoint(role="history", rate=i / 200, sha=f"{i:07d}") for i in range(150)]
    points += [TrendPoint(role="baseline", rate=0.9, sha="b" * 7), TrendPoint(role="candidate", rate=0.8)]
    svg = trend_chart(points, title="t")
    assert svg.count("<circle") == 60
    assert "candidate" in svg and "0000000" not in svg
    assert len(re.findall(r'text-anchor="middle" fill="#52606d"', svg)) <= 13
