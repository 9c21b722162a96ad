"""Group rows counted in one pass per side are the rows built case list by case list."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.gate.breakdown import rows_by_cases, rows_by_group
from agent_evals.gate.policy import resolve_policy
from unit.gate.summaries import view_of


@pytest.mark.parametrize("with_baseline", [True, False])
def test_rows_by_group__same_rows_as_rows_by_cases(record: Any, cases: Any, with_baseline: bool) -> None:
    base = record(
        {
            "s": cases("doors", 30, "PPP")
            | cases("lights", 12, "PFF")
            | cases("old", 5, "P")
            | {"doors/x": "EEE"}
        }
    )
    cand = record(
        {
            "s": cases("doors", 25, "PPF")
            | cases("lights", 12, "PPP")
            | cases("fresh", 4, "F")
            | {"doors/x": "PPE", "lights/y": "PP"}
        }
    )
    knobs = resolve_policy(repo_config=None, suite_blocks={}, overrides={}).knobs_for("s")
    b = view_of(base["suites"][0]) if with_baseline else None
    c = view_of(cand["suites"][0])
    expected = rows_by_cases("group", b, c, lambda _: knobs)
    got = rows_by_group(b, c, lambda _: knobs)
    assert [r.key for r in got] == ["doors", "fresh", "lights"] + (["old"] if with_baseline else [])
    assert [r.model_dump() for r in got] == [r.model_dump() for r in expected]
