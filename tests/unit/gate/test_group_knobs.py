"""A group's knobs judge the cases the baseline put in it: moved cases, new suites, critical globs."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.errors import UsageError
from agent_evals.gate.compare import compare_documents
from agent_evals.gate.model import Comparison
from agent_evals.gate.policy import Layer, parse_block, resolve_policy

FLOORED = {"overrides": {"home/refunds": {"min_pass_rate": 0.9}}}
"""A base-side policy that gives the refunds group a floor of its own."""


def compare(base: dict[str, Any] | None, cand: dict[str, Any], block: dict[str, Any]) -> Comparison:
    layer = Layer(source="agent-evals.yaml", block=parse_block(block, source="agent-evals.yaml"))
    return compare_documents(base, cand, resolve_policy(repo_config=layer, suite_blocks={}, overrides={}))


def blocking(result: Comparison) -> list[str]:
    return sorted({r.kind for r in result.reasons if r.blocking})


def move(doc: dict[str, Any], ids: set[str], group: str) -> dict[str, Any]:
    """The same cases (ids and definitions unchanged) labelled with another group."""
    for case in doc["suites"][0]["cases"]:
        if case["id"] in ids:
            case["group"] = group
    return doc


BROKEN = {"refunds/c0", "refunds/c1", "refunds/c2"}


@pytest.mark.parametrize(
    ("moved_to", "extra", "exit_code", "kinds", "warned"),
    [
        # the control: the broken cases stay in their group, whose floor fails the gate
        (None, {}, 1, ["floor"], False),
        # relabelled into a new group: still judged in refunds (the baseline's), and the move is named
        ("refunds-edge", {}, 1, ["floor"], True),
        # relabelled into another group the baseline has: the same
        ("general", {}, 1, ["floor"], True),
        # the move itself fails when the policy says redefined cases do
        ("refunds-edge", {"on_redefined_cases": "fail"}, 1, ["floor", "redefined"], True),
    ],
)
def test_compare__failing_cases_moved_out_of_a_floored_group__judged_in_the_baseline_group(
    record: Any,
    cases: Any,
    moved_to: str | None,
    extra: dict[str, Any],
    exit_code: int,
    kinds: list[str],
    warned: bool,
) -> None:
    base = record({"home": cases("general", 30, "P") | cases("refunds", 10, "P")})
    cand = record(
        {
            "home": cases("general", 30, "P")
            | cases("refunds", 3, "F")
            | {f"refunds/c{i}": "P" for i in range(3, 10)}
        }
    )
    if moved_to is not None:
        move(cand, BROKEN, moved_to)
    result = compare(base, cand, {**FLOORED, **extra})
    assert (result.exit_code, blocking(result)) == (exit_code, kinds), [r.message for r in result.reasons]
    refunds = next(g for g in result.suites[0].groups if g.key == "refunds")
    assert (refunds.gated, refunds.status, refunds.candidate.cases) == (True, "below-floor", 10)
    moves = [r.message for r in result.reasons if r.kind == "redefined"]
    assert bool(moves) == warned
    if warned:
        assert "3 cases were moved to another group since the baseline" in moves[0]
        assert f"refunds/c0 (refunds -> {moved_to})" in moves[0]


def test_compare__moved_cases__their_counts_follow_the_baseline_group_everywhere(
    record: Any, cases: Any
) -> None:
    base = record({"home": cases("general", 5, "P") | cases("refunds", 5, "P")})
    cand = move(record({"home": cases("general", 5, "P") | cases("refunds", 5, "F")}), {"refunds/c4"}, "edge")
    result = compare(base, cand, {})
    rows = {
        g.key: (g.baseline.cases if g.baseline else 0, g.candidate.cases) for g in result.suites[0].groups
    }
    assert rows == {"general": (5, 5), "refunds": (5, 5)}


@pytest.mark.parametrize(
    ("with_baseline", "refunds", "exit_code", "verdict"),
    [
        (False, "F", 1, "failed"),  # no baseline: the group's floor still applies
        (False, "P", 0, "no-baseline"),
        (True, "F", 1, "failed"),
    ],
)
def test_compare__gated_group_floor__applies_without_a_baseline(
    record: Any, cases: Any, with_baseline: bool, refunds: str, exit_code: int, verdict: str
) -> None:
    cand = record({"home": cases("general", 30, "P") | cases("refunds", 5, refunds)})
    base = record({"home": cases("general", 30, "P") | cases("refunds", 5, "P")}) if with_baseline else None
    result = compare(base, cand, FLOORED)
    group = next(g for g in result.suites[0].groups if g.key == "refunds")
    assert (result.exit_code, group.gated, group.verdict) == (exit_code, True, verdict)
    assert not [r for r in result.reasons if r.kind == "missing-baseline" and r.group == "refunds"]


def test_compare__critical_glob_in_a_group_override__guards_that_group_only(record: Any, cases: Any) -> None:
    base = record({"home": cases("general", 20, "P") | cases("refunds", 20, "P")})
    cand = record({"home": cases("general", 20, "P") | cases("refunds", 20, "P")})
    cand["suites"][0]["cases"][20]["trials"][0] = cand["suites"][0]["cases"][0]["trials"][0] | {
        "passed": False
    }
    cand["suites"][0]["cases"][20]["trials"][0]["scores"] = {"check": {"value": 0.0, "passed": False}}
    guarded = compare(base, cand, {"overrides": {"home/refunds": {"critical_cases": ["refunds/c0"]}}})
    assert (guarded.exit_code, blocking(guarded)) == (1, ["critical-case"])
    # the same kind of glob that matches only another group's case guards nothing there: refused
    with pytest.raises(
        UsageError, match=r"override 'home/refunds'.*'general/c0' matches no case of group home/refunds"
    ):
        compare(base, cand, {"overrides": {"home/refunds": {"critical_cases": ["general/c0"]}}})
    with pytest.raises(UsageError, match=r"'refund/c0' matches no case of group home/refunds"):
        compare(base, cand, {"overrides": {"home/refunds": {"critical_cases": ["refund/c0"]}}})


def test_compare__critical_case_moved_out_of_its_group__still_guarded(record: Any, cases: Any) -> None:
    base = record({"home": cases("general", 20, "P") | cases("refunds", 20, "P")})
    cand = record({"home": cases("general", 20, "P") | cases("refunds", 20, "P")})
    case = cand["suites"][0]["cases"][20]
    case["trials"][0] = case["trials"][0] | {
        "passed": False,
        "scores": {"check": {"value": 0.0, "passed": False}},
    }
    move(cand, {"refunds/c0"}, "general")
    result = compare(base, cand, {"overrides": {"home/refunds": {"critical_cases": ["refunds/*"]}}})
    assert (result.exit_code, blocking(result)) == (1, ["critical-case"])


def test_compare__removed_suite__its_group_override_critical_case_still_guarded(
    record: Any, cases: Any
) -> None:
    base = record({"home": cases("general", 20, "P"), "old": cases("refunds", 3, "P")})
    cand = record({"home": cases("general", 20, "P")})
    result = compare(base, cand, {"overrides": {"old/refunds": {"critical_cases": ["refunds/c0"]}}})
    assert result.exit_code == 1
    assert any(r.kind == "critical-case" and "refunds/c0" in r.message for r in result.reasons)
