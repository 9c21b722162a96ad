"""A benchmark scenario's definition digest: what the agent is asked and how it is checked, nothing else."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agent_evals.benchmark.loader import load_benchmark
from agent_evals.benchmark.runner import select_jobs
from agent_evals.core.definition import is_digest

Writer = Callable[..., Path]

BASE = """
benchmark: home
agent: agents:Agent
execution:
  runs_per_scenario: 1
  n_parallel_runs: 1
  timeout_s: 30
world:
  lights: {kitchen: "off"}
gate:
  max_drop: 0.05
capabilities:
  - name: lights
    description: Turning lights on and off
    dimensions: {phrasing: direct}
    scenarios:
      - id: on
        name: Kitchen on
        prompt: "Turn on the kitchen light"
        critical: false
        success:
          state: {lights.kitchen: "on"}
          tool_use:
            calls: [{name: set_light, args: {room: kitchen, on: true}}]
          output: {contains: [done]}
          scorers:
            - {type: StateMatch, expected_state: {lights.porch: "off"}}
      - id: other
        prompt: "Leave the hall alone"
        success: {state: {lights.hall: "off"}}
"""

SAME = [
    ("dimension value renamed", "phrasing: direct", "phrasing: indirect"),
    ("name changed", "name: Kitchen on", "name: Kitchen light on"),
    ("description changed", "Turning lights on and off", "Lights"),
    ("critical flag", "critical: false", "critical: true"),
    ("trials per scenario", "runs_per_scenario: 1", "runs_per_scenario: 3"),
    ("parallelism", "n_parallel_runs: 1", "n_parallel_runs: 4"),
    ("gate block", "max_drop: 0.05", "max_drop: 0.5"),
    ("agent", "agent: agents:Agent", "agent: agents:Other"),
    ("another scenario edited", 'prompt: "Leave the hall alone"', 'prompt: "Leave the hall"'),
    (
        "default spelled out",
        "calls: [{name: set_light, args: {room: kitchen, on: true}}]",
        "calls: [{name: set_light, args: {room: kitchen, on: true}}]\n            match_calls: exact",
    ),
]

CHANGED = [
    ("prompt", 'prompt: "Turn on the kitchen light"', 'prompt: "Turn on the kitchen lights"'),
    ("expected state", 'state: {lights.kitchen: "on"}', 'state: {lights.kitchen: "off"}'),
    ("tool call args", "room: kitchen, on: true", "room: kitchen, on: false"),
    ("tool call name", "name: set_light,", "name: toggle_light,"),
    (
        "match rule",
        "calls: [{name: set_light, args: {room: kitchen, on: true}}]",
        "calls: [{name: set_light, args: {room: kitchen, on: true}}]\n            match_calls: subset",
    ),
    ("output check", "contains: [done]", "contains: [ok]"),
    ("scorer args", 'lights.porch: "off"', 'lights.porch: "on"'),
    ("scorer type", '{type: StateMatch, expected_state: {lights.porch: "off"}}', "{type: my_scorers:always}"),
    ("world", 'kitchen: "off"}', 'kitchen: "on"}'),
    ("time limit", "timeout_s: 30", "timeout_s: 300"),
]


SCORERS = """
from agent_evals import Score


def always(task_result, expected, context=None):
    return Score(name="always", value=1.0, passed=True)
"""


def _digests(write: Writer, name: str, text: str) -> dict[str, str | None]:
    write(f"{name}/my_scorers.py", SCORERS)
    bench = load_benchmark(write(f"{name}/bench.yaml", text))
    return {job.case.id: job.case.definition for job in select_jobs(bench, None)}


def test_scenario_definition__every_case_gets_a_digest(write: Writer) -> None:
    digests = _digests(write, "base", BASE)
    assert set(digests) == {"lights/on", "lights/other"}
    assert all(is_digest(d) for d in digests.values())
    assert digests["lights/on"] != digests["lights/other"]


@pytest.mark.parametrize(("edit", "old", "new"), SAME, ids=[e for e, _, _ in SAME])
def test_scenario_definition__bookkeeping_edit__same_digest(
    write: Writer, edit: str, old: str, new: str
) -> None:
    assert BASE.count(old) == 1, edit
    before = _digests(write, "before", BASE)["lights/on"]
    assert _digests(write, "after", BASE.replace(old, new))["lights/on"] == before


@pytest.mark.parametrize(("edit", "old", "new"), CHANGED, ids=[e for e, _, _ in CHANGED])
def test_scenario_definition__edit_of_what_is_asked_or_checked__new_digest(
    write: Writer, edit: str, old: str, new: str
) -> None:
    assert BASE.count(old) == 1, edit
    before = _digests(write, "before", BASE)
    after = _digests(write, "after", BASE.replace(old, new))
    assert after["lights/on"] != before["lights/on"]


def test_scenario_definition__precondition__new_digest(write: Writer) -> None:
    before = _digests(write, "before", BASE)["lights/other"]
    text = BASE.replace(
        'prompt: "Leave the hall alone"',
        'prompt: "Leave the hall alone"\n        precondition: {state: {lights.hall: "on"}}',
    )
    assert _digests(write, "after", text)["lights/other"] != before
