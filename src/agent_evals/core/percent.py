"""Percentages and percentage points, formatted one way for every command and report."""

from __future__ import annotations

import math

NONE_MARK = "–"
"""Shown where a figure is missing (no baseline, no valid trial)."""

_EXACT = 1e-9  # a rate this close to 0 or 1 is that bound (float sums of fractions)


def _finite(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def percent(value: object, digits: int = 1) -> str:
    """A rate in [0, 1] as a percentage with ``digits`` decimals: ``0.853`` -> ``85.3%``.

    Rounding never shows an outcome that did not happen: a rate below 1 that would round to 100% is
    ``>99.9%``, a rate above 0 that would round to 0% is ``<0.1%``. None, NaN and infinities are ``–``.
    """
    if not _finite(value):
        return NONE_MARK
    rate = float(value)  # type: ignore[arg-type]
    if abs(rate - 1.0) < _EXACT:
        rate = 1.0
    elif abs(rate) < _EXACT:
        rate = 0.0
    text = f"{rate * 100:.{digits}f}"
    step = f"{10.0**-digits:.{digits}f}"
    if 0.0 < rate < 1.0 and float(text) >= 100.0:
        return f">{100 - float(step):.{digits}f}%"
    if rate > 0.0 and float(text) == 0.0:
        return f"<{step}%"
    return f"{text}%"


def signed_number(value: object, digits: int = 1) -> str:
    """A difference of rates as signed points without a unit: ``-0.091`` -> ``-9.1``.

    Only an exact zero is ``±0.0``; a tiny nonzero change keeps its sign (``-0.0``). None is ``–``.
    """
    if not _finite(value):
        return NONE_MARK
    diff = float(value)  # type: ignore[arg-type]
    if abs(diff) < _EXACT:
        return f"±{0:.{digits}f}"
    text = f"{abs(diff) * 100:.{digits}f}"
    return ("-" if diff < 0 else "+") + text


def points(value: object, digits: int = 1, *, unit: str = "pp", signed: bool = False) -> str:
    """A difference of rates in percentage points: ``0.041`` -> ``4.1 pp`` (``signed``: ``+4.1 pp``);
    ``unit`` is the word after the figure (``points`` in sentences). None is ``–``."""
    if not _finite(value):
        return NONE_MARK
    figure = signed_number(value, digits) if signed else f"{abs(float(value)) * 100:.{digits}f}"  # type: ignore[arg-type]
    return f"{figure} {unit}"


def interval_text(low: object, high: object, digits: int = 1, *, points: bool = False) -> str:
    """An interval of rates as ``[71.2%, 88.9%]``, or of differences in points as ``[-9.1, -2.3]``;
    ``""`` when a bound is missing.

    A rate lies in [0, 1] and a difference of rates in [-1, 1]: a t interval on very few cases can
    reach past that, which is never a possible value, so the bounds shown are clipped to the range.
    """
    if not (_finite(low) and _finite(high)):
        return ""
    lo, hi = float(low), float(high)  # type: ignore[arg-type]
    if points:
        lo, hi = max(lo, -1.0), min(hi, 1.0)
        return f"[{lo * 100:+.{digits}f}, {hi * 100:+.{digits}f}]"
    lo, hi = max(lo, 0.0), min(hi, 1.0)
    return f"[{lo * 100:.{digits}f}%, {hi * 100:.{digits}f}%]"
