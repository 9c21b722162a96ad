"""A benchmark case's ``expected`` text: its success checks as written (defaults and empty values left out)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_evals.benchmark.loader import load_benchmark
from agent_evals.benchmark.outcome import short
from agent_evals.benchmark.runner import select_jobs

Writer = Callable[..., Path]

SCENARIOS = [
    ("output equals", 'success: {output: {equals: "0"}}', '{"output": {"equals": "0"}}'),
    (
        "defaults spelled out",
        "success: {output: {equals: x, case_sensitive: true}, tool_use: {calls: [{name: t}], match_calls: exact}}",
        '{"output": {"equals": "x"}, "tool_use": {"calls": [{"name": "t"}]}}',
    ),
    (
        "nulls inside values kept",
        "success: {state: {a: null}, tool_use: {calls: [{name: t, args: {z: null}}]}}",
        '{"state": {"a": null}, "tool_use": {"calls": [{"args": {"z": null}, "name": "t"}]}}',
    ),
    (
        "scorer argument without a value left out",
        "success: {scorers: [{type: StateMatch, expected_state: null}]}\n  expected_state: {a: 1}",
        '{"scorers": [{"type": "StateMatch"}]}',
    ),
    ("one contained text", "success: {output: {contains: done}}", '{"output": {"contains": ["done"]}}'),
    ("no success block", "expected_state: {lights.on: true}", '{"expected_state": {"lights.on": true}}'),
]


def _old_rule(scenario: Any, context: dict[str, Any] | None) -> str | None:
    """The rule the runner applied before it shared the definition's dump."""
    expected: dict[str, Any] = {}
    if scenario.success is not None:
        expected = scenario.success.model_dump(exclude_none=True, exclude_defaults=True)
    if not expected:
        expected.update(context or {})
    return short(expected) if expected else None


@pytest.mark.parametrize(("label", "body", "text"), SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_case_expected__success_shapes__checks_as_written(
    write: Writer, label: str, body: str, text: str
) -> None:
    path = write("bench.yaml", f"benchmark: b\ncapabilities:\n- id: s\n  prompt: p\n  {body}\n")
    bench = load_benchmark(path)
    (job,) = select_jobs(bench, None)
    assert job.case.expected == text
    assert job.case.expected == _old_rule(job.scenario, job.plan.expected.context)
