"""A key written without a value (``key:`` or ``key: null``): refused where it would drop a check or cases."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agent_evals.benchmark.loader import load_benchmark
from agent_evals.errors import BenchmarkFileError

Writer = Callable[..., Path]

HEAD = "benchmark: demo\ncapabilities:\n  - name: lights\n    scenarios:\n      - id: 1\n        prompt: p\n"
"""Lines 1-6; a test appends the scenario's remaining lines (from line 7 on)."""

MESSAGE = "the key has no value; give it one or remove the key"

REFUSED = [
    pytest.param(
        "        success: {state: {x: 1}}\n    cases: null\n",
        (8, 12, "capabilities[0].cases"),
        id="cases-null-next-to-scenarios",
    ),
    pytest.param(
        "        success: {state: {x: 1}}\n    cases:\n",
        (8, 11, "capabilities[0].cases"),
        id="cases-empty-next-to-scenarios",
    ),
    pytest.param(
        "        success:\n          state: null\n          tool_use: {calls: [{name: a}]}\n",
        (8, 18, "capabilities[0].scenarios[0].success.state"),
        id="state-null-next-to-tool_use",
    ),
    pytest.param(
        "        success:\n          state: {x: 1}\n          tool_use:\n",
        (9, 20, "capabilities[0].scenarios[0].success.tool_use"),
        id="tool_use-empty-next-to-state",
    ),
    pytest.param(
        "        success:\n          state: {x: 1}\n          output: null\n",
        (9, 19, "capabilities[0].scenarios[0].success.output"),
        id="output-null-next-to-state",
    ),
    pytest.param(
        "        success:\n          state: {x: 1}\n          scorers: null\n",
        (9, 20, "capabilities[0].scenarios[0].success.scorers"),
        id="success-scorers-null",
    ),
    pytest.param(
        "        success:\n          output: {contains: null, regex: a}\n",
        (8, 30, "capabilities[0].scenarios[0].success.output.contains"),
        id="output-contains-null-next-to-regex",
    ),
    pytest.param(
        "        success:\n          tool_use: {calls: [{name: a, args: null}]}\n",
        (8, 46, "capabilities[0].scenarios[0].success.tool_use.calls[0].args"),
        id="call-args-null",
    ),
    pytest.param(
        "        success: null\n        expected_state: {x: 1}\n",
        (7, 18, "capabilities[0].scenarios[0].success"),
        id="success-null-next-to-seed-short-form",
    ),
    pytest.param(
        "        success: {state: {x: 1}}\n        expected_state: null\n",
        (8, 25, "capabilities[0].scenarios[0].expected_state"),
        id="expected_state-null",
    ),
    pytest.param(
        "        success: {state: {x: 1}}\n        reference_outputs: null\n",
        (8, 28, "capabilities[0].scenarios[0].reference_outputs"),
        id="reference_outputs-null",
    ),
    pytest.param(
        "        success: {state: {x: 1}}\n        scorers: null\n",
        (8, 18, "capabilities[0].scenarios[0].scorers"),
        id="scenario-scorers-null",
    ),
    pytest.param(
        "        success: {state: {x: 1}}\nplatform:\n",
        (8, 10, "platform"),
        id="platform-empty-as-the-seed-refuses-it",
    ),
    pytest.param(
        "        precondition: null\n        success: {state: {x: 1}}\n",
        (7, 23, "capabilities[0].scenarios[0].precondition"),
        id="precondition-null",
    ),
    pytest.param(
        "        precondition: {state: null}\n        success: {state: {x: 1}}\n",
        (7, 31, "capabilities[0].scenarios[0].precondition.state"),
        id="precondition-state-null",
    ),
]


@pytest.mark.parametrize(("tail", "where"), REFUSED)
def test_load_benchmark__key_without_value__is_a_located_error(
    write: Writer, tail: str, where: tuple[int, int, str]
) -> None:
    line, column, key_path = where
    path = write("bench.yaml", HEAD + tail)
    with pytest.raises(BenchmarkFileError) as caught:
        load_benchmark(path)
    err = caught.value
    assert (err.file, err.line, err.column, err.key_path) == ("bench.yaml", line, column, key_path)
    assert str(err) == f"bench.yaml:{line}:{column}: {key_path}: {MESSAGE}"


def test_load_benchmark__descriptive_keys_without_value__mean_left_out(write: Writer) -> None:
    path = write(
        "bench.yaml",
        """
        benchmark: demo
        description:
        agent: null
        gate:
        execution: {timeout_s: null}
        capabilities:
          - name: lights
            description: null
            scenarios:
              - id: 1
                name:
                prompt: p
                success: {state: {x: 1}}
        """,
    )
    bench = load_benchmark(path)
    assert (bench.description, bench.agent, bench.gate) == (None, None, None)
    assert bench.execution.timeout_s is None
    capability = bench.capabilities[0]
    assert (capability.description, capability.cases) == (None, None)
    scenario = capability.scenarios[0]
    assert scenario.name is None
    assert [type(scorer).__name__ for scorer in scenario.plan.scorers] == ["StateMatch"]


def test_load_benchmark__platform_keys_without_value__mean_left_out(write: Writer) -> None:
    path = write(
        "bench.yaml",
        HEAD.replace(
            "capabilities:", "platform: {name: null, experiment: null, output_dir: null}\ncapabilities:"
        )
        + "        success: {state: {x: 1}}\n",
    )
    bench = load_benchmark(path)
    assert bench.platform is not None
    assert (bench.platform.name, bench.platform.experiment, bench.platform.output_dir) == (
        "local",
        None,
        None,
    )
