"""Measure the YAML benchmark loader and runner on a synthetic 2,000-scenario file and print the figures."""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from agent_evals import TaskResult
from agent_evals.benchmark.loader import load_benchmark
from agent_evals.benchmark.runner import run_benchmark_async

CAPABILITIES = 20
SCENARIOS = 100


def _write(folder: Path) -> Path:
    lines = [
        "benchmark: perf",
        "execution: {runs_per_scenario: 3, n_parallel_runs: 64}",
        "world: {lamp: 'off'}",
    ]
    lines.append("capabilities:")
    for c in range(CAPABILITIES):
        lines += [f"  - name: cap{c}", "    dimensions: {difficulty: easy}", "    scenarios:"]
        for s in range(SCENARIOS):
            lines += [
                f"      - id: {s}",
                f"        prompt: turn on {s}",
                "        success:",
                "          state: {lamp: 'on'}",
                "          tool_use: {calls: [{name: switch, args: {to: 'on'}}], match_calls: exact}",
                "          output: {contains: done}",
            ]
    path = folder / "perf.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


async def agent(prompt: str, state: dict[str, Any]) -> TaskResult:
    """Switch the lamp on with one tool call."""
    state["lamp"] = "on"
    call = {"role": "assistant", "tool_calls": [{"name": "switch", "args": {"to": "on"}}]}
    return TaskResult(output="done", context={"final_state": state, "outputs": [call]})


def main() -> None:
    """Print load time, run time and trial throughput."""
    with tempfile.TemporaryDirectory() as name:
        path = _write(Path(name))
        start = time.perf_counter()
        load_benchmark(path)
        loaded = time.perf_counter() - start
        start = time.perf_counter()
        result = asyncio.run(run_benchmark_async(path, agent))
        ran = time.perf_counter() - start
        start = time.perf_counter()
        suite = result.to_suite()
        exported = time.perf_counter() - start
    scenarios = CAPABILITIES * SCENARIOS
    print(f"scenarios: {scenarios}, trials: {result.trial_count}, pass rate: {result.micro_pass_rate:.1%}")
    print(f"load + validate + compile: {loaded:.2f} s ({loaded / scenarios * 1000:.2f} ms per scenario)")
    print(f"run (load included): {ran:.2f} s ({result.trial_count / ran:.0f} trials/s)")
    print(f"to_suite: {exported:.2f} s for {len(suite.cases)} cases")


if __name__ == "__main__":
    main()
