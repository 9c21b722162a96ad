"""Report filters format figures the same way everywhere."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.gate.model import Interval
from agent_evals.report import filters


@pytest.mark.parametrize(
    ("func", "args", "expected"),
    [
        (filters.pct, (0.853,), "85.3%"),
        (filters.pct, (1.0, 0), "100%"),
        (filters.pct, (None,), "–"),
        (filters.pct, (float("nan"),), "–"),
        (filters.delta, (-0.08,), "-8.0 pp"),
        (filters.delta, (0.0123,), "+1.2 pp"),
        (filters.delta, (0.0,), "±0.0 pp"),
        (filters.delta, (-0.0001,), "-0.0 pp"),
        (filters.delta, (None,), "–"),
        (filters.points, (0.041,), "4.1 pp"),
        (filters.pvalue, (0.03123,), "0.031"),
        (filters.pvalue, (0.0004,), "<0.001"),
        (filters.pvalue, (None,), "–"),
        (filters.pluralize, (1, "regression"), "1 regression"),
        (filters.pluralize, (3, "regression"), "3 regressions"),
        (filters.pluralize, (0, "case"), "0 cases"),
        (filters.pluralize, (2, "entry", "entries"), "2 entries"),
        (filters.pluralize, (20000, "case"), "20,000 cases"),
        (filters.number, (20000,), "20,000"),
        (filters.number, (None,), "–"),
        (filters.usd, (0.01234,), "$0.0123"),
        (filters.usd, (12.5,), "$12.50"),
        (filters.usd, (-0.01,), "-$0.0100"),
        (filters.seconds, (0.42,), "420 ms"),
        (filters.seconds, (3.21,), "3.2 s"),
        (filters.seconds, (125,), "2m 05s"),
        (filters.signed, (1200,), "+1,200"),
        (filters.signed, (-0.01, "usd"), "-$0.0100"),
        (filters.signed, (None,), "–"),
        (filters.short_sha, ("0123456789abcdef",), "0123456"),
        (filters.short_sha, (None,), "–"),
        (filters.verdict_icon, ("failed",), "❌"),
        (filters.outcome_icon, ("warn",), "⚠️"),
        (filters.status_label, ("regressed",), "❌ regressed"),
    ],
)
def test_filter__formats_value(func: Any, args: tuple[Any, ...], expected: str) -> None:
    assert func(*args) == expected


def test_interval__rate_and_points_forms() -> None:
    iv = Interval(low=0.712, high=0.889, method="wilson")
    assert filters.interval(iv) == "[71.2%, 88.9%]"
    d = Interval(low=-0.091, high=-0.023, method="paired-t")
    assert filters.interval(d, points=True) == "[-9.1, -2.3]"
    assert filters.interval(None) == ""


def test_interval__impossible_bounds__are_clipped_to_the_range_of_rates() -> None:
    wide = Interval(low=-6.85, high=5.85, method="paired-t")
    assert filters.interval(wide, points=True) == "[-100.0, +100.0]"
    assert filters.interval(Interval(low=-0.2, high=1.3, method="wilson")) == "[0.0%, 100.0%]"


def test_untrusted_filter__redacts_before_truncating() -> None:
    from agent_evals.core.redact import Redactor

    md = filters.make_untrusted_filter(Redactor(["supersecretvalue"]), markdown=True)
    html = filters.make_untrusted_filter(Redactor(["supersecretvalue"]), markdown=False)
    # The secret straddles the truncation point: redaction must happen first so no prefix leaks.
    assert "supersec" not in md("abc supersecretvalue", 10)
    assert html("<b>supersecretvalue</b>", None) == "<b>***</b>"
