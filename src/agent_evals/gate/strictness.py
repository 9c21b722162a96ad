"""Each gate knob's order of strictness, and the stricter of two values (the base policy is a floor)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

OrderKind = Literal["larger", "smaller", "rank", "union"]


@dataclass(frozen=True)
class Order:
    """How one knob's values rank from loosest to strictest."""

    kind: OrderKind
    """``larger``/``smaller``: the larger/smaller number is stricter (None, no limit, is the loosest);
    ``rank``: ``ranks`` from loosest to strictest; ``union``: globs, the stricter side holds every glob."""
    ranks: tuple[Any, ...] = ()
    """For ``rank``: the values, loosest first."""


_ACTION = Order("rank", ("pass", "warn", "fail"))
_CHANGE = Order("rank", ("warn", "fail"))

STRICTNESS: dict[str, Order] = {
    "min_pass_rate": Order("larger"),  # a higher floor fails more runs; none (no floor) is the loosest
    "max_drop": Order("smaller"),
    # a larger alpha calls a drop significant sooner; lowering it lets more drops pass as "not significant"
    "alpha": Order("larger"),
    "max_error_rate": Order("smaller"),
    "on_missing_baseline": _ACTION,
    "on_inconclusive": _ACTION,
    "critical": Order("rank", ("ignore", "warn", "fail")),
    "critical_cases": Order("union"),
    "mid_p": Order("rank", (False, True)),  # the mid-p test calls a drop significant sooner
    "test": Order("rank", ("per_case", "stratified")),
    "on_mismatch": _CHANGE,
    # usage limits: off (None) is the loosest
    "max_tokens_increase": Order("smaller"),
    "max_cost_increase": Order("smaller"),
    "max_latency_increase": Order("smaller"),
    "on_removed_cases": _CHANGE,
    "on_redefined_cases": _CHANGE,
    "on_fewer_trials": _CHANGE,
}
"""Every knob's order of strictness (docs/gate.md, "Policy sources", holds the same table)."""


def stricter(knob: str, a: Any, b: Any) -> Any:
    """The stricter of two values of ``knob`` (globs: the union, ``a``'s first)."""
    order = STRICTNESS[knob]
    if order.kind == "union":
        return tuple(dict.fromkeys([*a, *b]))
    if order.kind == "rank":
        return a if order.ranks.index(a) >= order.ranks.index(b) else b
    if a is None or b is None:
        return b if a is None else a
    return max(a, b) if order.kind == "larger" else min(a, b)


def looser(knob: str, base: Any, value: Any) -> bool:
    """Whether ``value`` is looser than ``base`` in some way (globs: it lacks one of ``base``'s)."""
    if STRICTNESS[knob].kind == "union":
        return not set(base) <= set(value)
    return bool(stricter(knob, base, value) != value)


def stricter_values(base: Mapping[str, Any], own: Mapping[str, Any]) -> dict[str, Any]:
    """Each knob (of ``STRICTNESS``) the stricter of the base side's value and this side's."""
    return {k: stricter(k, base[k], value) for k, value in own.items()}  # a knob without an order: KeyError
