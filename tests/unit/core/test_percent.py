"""One formatter for percentages: the same figure reads the same in run, compare, report, Markdown and HTML."""

from __future__ import annotations

import pytest

from agent_evals.core.percent import interval_text, percent, points


@pytest.mark.parametrize(
    ("value", "digits", "expected"),
    [
        (0.853, 1, "85.3%"),
        (0.0, 1, "0.0%"),
        (1.0, 1, "100.0%"),
        (1, 1, "100.0%"),
        (1 / 3, 1, "33.3%"),
        (2 / 3, 1, "66.7%"),
        (35 / 41, 1, "85.4%"),
        (0.0285, 1, "2.9%"),
        (0.5, 0, "50%"),
        (0.75, 0, "75%"),
        # rounding never shows an outcome that did not happen
        (0.9995, 1, ">99.9%"),
        (0.99949, 1, "99.9%"),
        (4999 / 5000 + 0.00005, 1, ">99.9%"),
        (0.0004, 1, "<0.1%"),
        (0.0005, 1, "0.1%"),
        (0.996, 0, ">99%"),
        (0.004, 0, "<1%"),
        (1 / 1000, 0, "<1%"),
        (999 / 1000, 0, ">99%"),
        # float sums of fractions that are exactly 0 or 1
        (0.9999999999999999, 1, "100.0%"),
        (1e-17, 1, "0.0%"),
        (None, 1, "–"),
        (float("nan"), 1, "–"),
        (float("inf"), 1, "–"),
        (True, 1, "–"),
        ("0.5", 1, "–"),
    ],
)
def test_percent__formats_a_rate(value: object, digits: int, expected: str) -> None:
    assert percent(value, digits) == expected


@pytest.mark.parametrize(
    ("value", "signed", "unit", "expected"),
    [
        (-0.08, True, "pp", "-8.0 pp"),
        (0.0123, True, "pp", "+1.2 pp"),
        (0.0, True, "pp", "±0.0 pp"),
        (-0.0001, True, "pp", "-0.0 pp"),  # a tiny drop keeps its sign: never shown as no change
        (1e-12, True, "pp", "±0.0 pp"),
        (0.041, False, "pp", "4.1 pp"),
        (-0.146, False, "points", "14.6 points"),
        (None, True, "pp", "–"),
    ],
)
def test_points__formats_a_difference_of_rates(value: object, signed: bool, unit: str, expected: str) -> None:
    assert points(value, signed=signed, unit=unit) == expected


@pytest.mark.parametrize(
    ("low", "high", "as_points", "expected"),
    [
        (0.712, 0.889, False, "[71.2%, 88.9%]"),
        (-0.2, 1.3, False, "[0.0%, 100.0%]"),
        (-0.091, -0.023, True, "[-9.1, -2.3]"),
        (-1.066, -0.077, True, "[-100.0, -7.7]"),  # a t interval past the possible range is clipped
        (None, 0.5, False, ""),
    ],
)
def test_interval_text__clipped_to_the_range_of_rates(
    low: object, high: object, as_points: bool, expected: str
) -> None:
    assert interval_text(low, high, points=as_points) == expected
