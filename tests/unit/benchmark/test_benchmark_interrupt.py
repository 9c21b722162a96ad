"""An interrupted benchmark keeps its finished trials: on_start hands the live result to the caller."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_evals import BaseAgent, TaskResult
from agent_evals.benchmark.result import BenchmarkResult
from agent_evals.benchmark.runner import run_benchmark_async

Writer = Callable[..., Path]

BENCH = """
benchmark: patience
execution: {runs_per_scenario: 2, n_parallel_runs: 1}
capabilities:
  - name: talk
    scenarios:
      - id: first
        prompt: "say hi"
        success: {output: {contains: hi}}
      - id: stuck
        prompt: "wait"
        success: {output: {contains: hi}}
"""


class StuckAgent(BaseAgent):
    """Answers at once, except the prompt ``wait``, which never returns."""

    def __init__(self) -> None:
        self.waiting = asyncio.Event()

    async def run_case(self, prompt: str, **context: Any) -> TaskResult:
        if prompt == "wait":
            self.waiting.set()
            await asyncio.sleep(3600)
        return TaskResult(output="hi")


async def test_run__cancelled_mid_run__live_result_holds_finished_cases_only(write: Writer) -> None:
    agent = StuckAgent()
    seen: list[BenchmarkResult] = []
    task = asyncio.ensure_future(run_benchmark_async(write("b.yaml", BENCH), agent, on_start=seen.append))
    await asyncio.wait_for(agent.waiting.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    [result] = seen
    assert result.complete is False
    assert [(c.id, len(c.trials)) for c in result.cases] == [("talk/first", 2), ("talk/stuck", 0)]
    suite = result.to_suite()
    assert [c.id for c in suite.cases] == ["talk/first"]
    assert result.to_run_record().run.complete is False


async def test_run__finished__result_is_complete_with_every_case(write: Writer) -> None:
    seen: list[BenchmarkResult] = []
    bench = write("b.yaml", BENCH.replace('"wait"', '"hi there"'))
    result = await run_benchmark_async(bench, StuckAgent(), on_start=seen.append)
    assert seen == [result] and result.complete is True
    assert [len(c.trials) for c in result.to_suite().cases] == [2, 2]
    assert result.to_run_record().run.complete is True
