"""Redefined cases: a case on both sides whose definition digest changed is listed (warn) or fails (exit 1)."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.errors import RunRecordError
from agent_evals.gate.compare import compare_documents
from agent_evals.gate.model import Comparison
from agent_evals.gate.policy import resolve_policy
from agent_evals.record.read import check_document
from agent_evals.report.verdict_json import verdict_document

A, B, C = "a" * 16, "b" * 16, "c" * 16


def _record(cases: list[tuple[str, bool, Any]], gate: dict[str, Any] | None = None) -> dict[str, Any]:
    """A one-suite record: (case id, passed, definition or None for none recorded) per case."""
    rows = []
    for cid, passed, definition in cases:
        case: dict[str, Any] = {"id": cid, "group": "g", "trials": [{"passed": passed}]}
        if definition is not None:
            case["definition"] = definition
        rows.append(case)
    suite: dict[str, Any] = {"id": "s", "kind": "benchmark", "source": "s.yaml", "cases": rows}
    if gate is not None:
        suite["gate"] = gate
    return {
        "schema": "agent-evals/run@1",
        "run": {"tool_version": "1", "started_at": "2026-01-01T00:00:00Z"},
        "suites": [suite],
    }


def _compare(base: dict[str, Any], cand: dict[str, Any], **flags: Any) -> Comparison:
    blocks = {s["id"]: s.get("gate") for s in cand["suites"]}
    policy = resolve_policy(repo_config=None, suite_blocks=blocks, overrides=flags)
    return compare_documents(base, cand, policy)


def _passing(n: int, digest: str = A) -> list[tuple[str, bool, Any]]:
    return [(f"c{i}", True, digest) for i in range(n)]


def test_failing_case_made_to_pass_by_editing_its_expected_value__listed_as_redefined_with_a_warning() -> (
    None
):
    """The attack: a case failed in the baseline; the pull request edits its expected value so it
    passes. The case's digest changed: it is named, and the gate passes only with a warning."""
    base = _record([*_passing(5), ("broken", False, A)])
    cand = _record([*_passing(5), ("broken", True, B)])
    comparison = _compare(base, cand)
    (suite,) = comparison.suites
    assert suite.redefined_case_ids == ["broken"]
    assert [d.case_id for d in suite.cases if d.redefined] == ["broken"]
    (reason,) = [r for r in comparison.reasons if r.kind == "redefined"]
    assert not reason.blocking and "broken" in reason.message and "1 case was redefined" in reason.message
    assert comparison.outcome == "warn" and comparison.exit_code == 0
    assert "cases redefined in 1 suite" in verdict_document(comparison, env={})["headline"]
    assert verdict_document(comparison, env={})["suites"][0]["redefined_cases"] == ["broken"]


@pytest.mark.parametrize("where", ["flag", "suite gate block"])
def test_on_redefined_cases_fail__a_redefined_case_fails_the_gate(where: str) -> None:
    base = _record([*_passing(5), ("broken", False, A)])
    gate = {"on_redefined_cases": "fail"} if where == "suite gate block" else None
    cand = _record([*_passing(5), ("broken", True, B)], gate=gate)
    flags = {"on_redefined_cases": "fail"} if where == "flag" else {}
    comparison = _compare(base, cand, **flags)
    (reason,) = [r for r in comparison.reasons if r.kind == "redefined"]
    assert reason.blocking
    assert comparison.outcome == "fail" and comparison.exit_code == 1
    assert comparison.suites[0].verdict == "failed"


@pytest.mark.parametrize(
    ("base_digest", "cand_digest"),
    [
        (A, A),  # unchanged
        (None, B),  # a baseline written before digests were recorded
        (A, None),  # a candidate writer that records none
        ("0123***789abcdef", B),  # a digest masked by the redactor: unknown, not changed
        (A, "not a digest"),  # a crafted value
    ],
    ids=["same", "older-baseline", "no-candidate-digest", "masked", "crafted"],
)
def test_digest_unchanged_or_unknown_on_a_side__not_redefined_and_no_warning(
    base_digest: Any, cand_digest: Any
) -> None:
    base = _record([*_passing(5, C), ("x", True, base_digest)])
    cand = _record([*_passing(5, C), ("x", True, cand_digest)])
    comparison = _compare(base, cand, on_redefined_cases="fail")
    assert comparison.suites[0].redefined_case_ids == []
    assert not [r for r in comparison.reasons if r.kind == "redefined"]
    assert comparison.exit_code == 0


def test_new_and_removed_cases__are_not_redefined() -> None:
    base = _record([*_passing(5), ("gone", True, A)])
    cand = _record([*_passing(5), ("added", True, B)])
    assert _compare(base, cand).suites[0].redefined_case_ids == []


def test_many_redefined_cases__counted_and_the_first_named() -> None:
    base = _record(_passing(30, A))
    cand = _record(_passing(30, B))
    (reason,) = [r for r in _compare(base, cand).reasons if r.kind == "redefined"]
    assert "30 cases were redefined" in reason.message
    assert "c0, c1" in reason.message and "and 20 more" in reason.message


@pytest.mark.parametrize("value", [5, ["a"], {"x": 1}, True])
def test_reader__definition_not_a_string__refused_naming_the_field(value: Any) -> None:
    record = _record([("x", True, None)])
    record["suites"][0]["cases"][0]["definition"] = value
    with pytest.raises(RunRecordError, match=r"suites\.0\.cases\.0\.definition"):
        check_document(record)
