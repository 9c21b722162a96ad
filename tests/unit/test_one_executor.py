"""The library runner, code-first evals and benchmarks run trials through the one executor
(core.executor): each layer's entry point gives the same error for the same fault, and none keeps a
timeout or exception path of its own."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

import agent_evals
from agent_evals import BaseAgent, TaskResult, run_eval_async
from agent_evals.benchmark.runner import run_benchmark_async
from agent_evals.core.types import EvalConfig, ExampleData, Score

LAYERS = ("core/runner.py", "evals/execution.py", "evals/scheduler.py", "benchmark/runner.py")
SRC = Path(agent_evals.__file__).parent

BENCH = """
benchmark: faults
execution: {{runs_per_scenario: 1, n_parallel_runs: 1{timeout}}}
capabilities:
  - name: cap
    scenarios:
      - id: case
        prompt: go
        success:
          output: {{contains: ok}}
"""


async def _library(behaviour: str, timeout: float | None) -> str | None:
    async def task(_: Any) -> TaskResult:
        return await _act(behaviour)

    config = EvalConfig(timeout_s=timeout) if timeout else None

    def has_output(result: TaskResult, expected: Any = None, **_: Any) -> Score:
        return Score(name="has_output", value=1.0, passed=bool(result.output))

    result = await run_eval_async(task, [ExampleData(input="go")], [has_output], config=config)
    return result.examples[0].error


async def _benchmark(behaviour: str, timeout: float | None, folder: Path) -> str | None:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bench.yaml"
    path.write_text(BENCH.format(timeout=f", timeout_s: {timeout}" if timeout else ""), encoding="utf-8")

    class Agent(BaseAgent):
        async def run_case(self, prompt: str, **context: Any) -> TaskResult:
            return await _act(behaviour)

    result = await run_benchmark_async(path, Agent())
    return result.cases[0].trials[0].error


EVAL_FILE = """
import asyncio, sys, time
from agent_evals import eval, EvalContext

@eval(input="go"{timeout})
{kind}def test_fault(ctx: EvalContext):
    behaviour = {behaviour!r}
    if behaviour == "own-timeout":
        raise TimeoutError("upstream deadline")
    if behaviour == "system-exit":
        sys.exit(2)
    if behaviour == "slow":
        {sleep}
    if behaviour == "value-error":
        raise ValueError("bad")
    ctx.output = "ok"
{evaluator}"""

EVALUATOR = """
def judge(result):
    behaviour = {behaviour!r}
    if behaviour == "own-timeout":
        raise TimeoutError("upstream deadline")
    if behaviour == "system-exit":
        sys.exit(2)
    if behaviour == "value-error":
        raise ValueError("bad")
    return True

test_fault = eval(input="go", evaluators=[judge])(lambda: None)
"""


async def _evals(behaviour: str, timeout: float | None, folder: Path, kind: str) -> str | None:
    from agent_evals.run.session import RunBuilder, run_paths_async

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"eval_{kind}.py"
    source = EVAL_FILE.format(
        timeout=f", timeout={timeout}" if timeout else "",
        kind="async " if kind == "async" else "",
        behaviour=behaviour if kind != "evaluator" else "none",
        sleep="await asyncio.sleep(5)" if kind == "async" else "time.sleep(5)",
        evaluator=EVALUATOR.format(behaviour=behaviour) if kind == "evaluator" else "",
    )
    path.write_text(source, encoding="utf-8")
    record = await run_paths_async([str(path)], builder=RunBuilder(env={}, cwd=folder))
    error = record.suites[0].cases[0].trials[0].error
    return error.removeprefix("evaluator judge raised ") if error and kind == "evaluator" else error


async def _act(behaviour: str) -> TaskResult:
    import asyncio
    import sys

    if behaviour == "own-timeout":
        raise TimeoutError("upstream deadline")
    if behaviour == "system-exit":
        sys.exit(2)
    if behaviour == "slow":
        await asyncio.sleep(5)
    if behaviour == "value-error":
        raise ValueError("bad")
    return TaskResult(output="ok")


@pytest.mark.parametrize(
    ("behaviour", "timeout", "expected"),
    [
        ("own-timeout", 5.0, r"TimeoutError: upstream deadline"),
        ("system-exit", None, r"SystemExit: 2"),
        ("value-error", None, r"ValueError: bad"),
        ("slow", 0.1, r"timed out after 0\.1s \(waited 0\.\d\ds\)"),
    ],
)
async def test_layers__same_fault__same_error_text_in_library_evals_and_benchmarks(
    tmp_path: Path, behaviour: str, timeout: float | None, expected: str
) -> None:
    got = {
        "library": await _library(behaviour, timeout),
        "benchmark": await _benchmark(behaviour, timeout, tmp_path / "bench"),
        "async eval": await _evals(behaviour, timeout, tmp_path / "evals", "async"),
        "sync eval": await _evals(behaviour, timeout, tmp_path / "evals", "sync"),
    }
    if behaviour != "slow":  # an evaluator has no time limit of its own
        got["evaluator"] = await _evals(behaviour, timeout, tmp_path / "evals", "evaluator")
    for layer, error in got.items():
        assert re.fullmatch(expected, error or ""), (layer, error)


def _calls(path: Path) -> list[str]:
    return [
        ast.unparse(n.func)
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(n, ast.Call)
    ]


@pytest.mark.parametrize("layer", LAYERS)
def test_layer__runs_user_code_through_the_executor_and_has_no_timeout_of_its_own(layer: str) -> None:
    path = SRC / layer
    source = path.read_text(encoding="utf-8")
    assert "from agent_evals.core.executor import" in source
    calls = _calls(path)
    assert not [c for c in calls if c.endswith("wait_for")], f"{layer} bounds a wait itself"
    assert "asyncio.TimeoutError" not in source and "except TimeoutError" not in source
    assert "guarded(" not in source and "absorbed(" not in source, f"{layer} decides what a fault is"
