"""Number flags: a range that also refuses NaN and infinity (a NaN compares false with every bound)."""

from __future__ import annotations

import math
from typing import Any

import click


class FiniteRange(click.FloatRange):
    """``click.FloatRange`` that refuses ``nan`` and ``inf``: ``--fail-under nan`` was a gate that never failed."""

    name = "float range"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if isinstance(number, float) and not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number; give a plain number such as 0.8", param, ctx)
        return number
