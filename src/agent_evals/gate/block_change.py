"""What changed in a suite's own `gate:` block between the baseline and this run, as one note."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

_SHOWN = 4


def _value(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True, default=str)
    return str(value)


def gate_block_note(base: Mapping[str, Any] | None, cand: Mapping[str, Any] | None) -> str | None:
    """A note naming each knob of the suite's ``gate:`` block that the candidate changed, or None.

    In ``ci`` on a pull request (and in the publisher) the base side's policy is a floor: a knob the
    block loosens keeps the base value until a maintainer accepts, and a line names it; a tightened
    knob applies at once. ``compare`` applies the block as written. Either way the change is said in
    every report, never silent.
    """
    base, cand = dict(base or {}), dict(cand or {})
    if base == cand:
        return None
    changed = [key for key in sorted(base.keys() | cand.keys()) if base.get(key) != cand.get(key)]
    listed = "; ".join(
        f"{key}: {_value(base.get(key))} in the baseline, {_value(cand.get(key))} now"
        for key in changed[:_SHOWN]
    )
    more = f"; and {len(changed) - _SHOWN} more" if len(changed) > _SHOWN else ""
    return f"The suite's gate block differs ({listed}{more}); on a pull request the base's value stays the floor."
