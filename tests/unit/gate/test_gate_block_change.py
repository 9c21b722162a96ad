"""A pull request that changes its suite's own `gate:` block is told in every report, not silently applied."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.gate.block_change import gate_block_note
from agent_evals.gate.compare import compare_documents
from agent_evals.gate.model import Comparison
from agent_evals.gate.policy import resolve_policy


@pytest.mark.parametrize(
    ("base", "cand", "note"),
    [
        (None, None, None),
        ({}, None, None),
        ({"max_drop": 0.05}, {"max_drop": 0.05}, None),
        (
            {"max_drop": 0.05},
            {"max_drop": 0.5},
            "The suite's gate block differs (max_drop: 0.05 in the baseline, 0.5 now); "
            "on a pull request the base's value stays the floor.",
        ),
        (
            {"min_pass_rate": 0.7},
            {},
            "The suite's gate block differs (min_pass_rate: 0.7 in the baseline, unset now); "
            "on a pull request the base's value stays the floor.",
        ),
        (
            None,
            {"critical": "ignore", "critical_cases": ["a/*", "b"]},
            "The suite's gate block differs (critical: unset in the baseline, ignore now; critical_cases: "
            "unset in the baseline, [a/*, b] now); on a pull request the base's value stays the floor.",
        ),
        (
            {"overrides": {"doors": {"max_drop": 0.1}}},
            {"overrides": {"doors": {"max_drop": 0.3}}},
            'The suite\'s gate block differs (overrides: {"doors": {"max_drop": 0.1}} in the baseline, '
            '{"doors": {"max_drop": 0.3}} now); on a pull request the base\'s value stays the floor.',
        ),
        (
            {"a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1},
            {},
            "The suite's gate block differs (a: 1 in the baseline, unset now; b: 1 in the baseline, unset "
            "now; c: 1 in the baseline, unset now; d: 1 in the baseline, unset now; and 2 more); "
            "on a pull request the base's value stays the floor.",
        ),
    ],
)
def test_gate_block_note__names_each_changed_knob(
    base: dict[str, Any] | None, cand: dict[str, Any] | None, note: str | None
) -> None:
    assert gate_block_note(base, cand) == note


def with_gate(doc: dict[str, Any], block: dict[str, Any] | None) -> dict[str, Any]:
    for suite in doc["suites"]:
        suite["gate"] = block
    return doc


def compare(base: dict[str, Any], cand: dict[str, Any], **flags: Any) -> Comparison:
    blocks = {s["id"]: s.get("gate") for s in cand["suites"]}
    return compare_documents(
        base, cand, resolve_policy(repo_config=None, suite_blocks=blocks, overrides=flags)
    )


def test_compare__loosened_gate_block__is_a_reason_in_the_verdict(record) -> None:
    cases = {f"g/c{i}": "PPP" for i in range(30)}
    base = with_gate(record({"home": cases}), {"max_drop": 0.05})
    cand = with_gate(record({"home": cases}), {"max_drop": 0.5})
    result = compare(base, cand)
    assert result.outcome == "warn"
    messages = [r.message for r in result.reasons if r.kind == "fingerprint"]
    assert any("max_drop: 0.05 in the baseline, 0.5 now" in m for m in messages)


def test_compare__loosened_gate_block__fails_under_on_mismatch_fail(record) -> None:
    cases = {f"g/c{i}": "PPP" for i in range(30)}
    base = with_gate(record({"home": cases}), {"max_drop": 0.05})
    cand = with_gate(record({"home": cases}), {"max_drop": 0.5})
    assert compare(base, cand, on_mismatch="fail").exit_code == 1


def test_compare__same_gate_block__no_note(record) -> None:
    cases = {f"g/c{i}": "PPP" for i in range(30)}
    base = with_gate(record({"home": cases}), {"max_drop": 0.05})
    cand = with_gate(record({"home": cases}), {"max_drop": 0.05})
    result = compare(base, cand)
    assert result.outcome == "pass"
    assert not [r for r in result.reasons if r.kind == "fingerprint"]
