"""Measure the evaluation harness itself: sync-task throughput and async concurrency efficiency.

Run with ``python benchmarks/perf/harness_throughput.py``. Figures are printed, not asserted:
wall-clock numbers depend on what else the machine is doing, so the throughput is also given
per CPU-second of this process, which is steadier on a shared machine.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from typing import Any

from agent_evals import TaskResult, run_eval_async
from agent_evals.adapters.scorers import StateMatch, ToolCallExactMatch
from agent_evals.core.types import EvalConfig, ExampleData, ExpectedResult

THROUGHPUT_EXAMPLES = 10_000
THROUGHPUT_TARGET = 20_000.0  # examples per second
SLEEP_EXAMPLES = 2_000
SLEEP_S = 0.05
SLEEP_CONCURRENCY = 100
IDEAL_S = SLEEP_EXAMPLES / SLEEP_CONCURRENCY * SLEEP_S
EFFICIENCY_TARGET = 1.1  # wall time within 1.1x of the ideal
REPEATS = 5

_STATE = {"lights": {"kitchen": {"state": "on"}}, "rooms": [{"name": "kitchen"}]}
_MESSAGES = [
    {"role": "user", "content": "light on"},
    {"role": "assistant", "content": "", "tool_calls": [{"name": "turn_on", "args": {"room": "kitchen"}}]},
    {"role": "tool", "content": "ok"},
]


def _dataset(n: int) -> list[ExampleData]:
    return [
        ExampleData(
            input=i,
            expected=ExpectedResult(
                expected="",
                context={
                    "expected_state": {"lights.kitchen.state": "on", "rooms.0.name": "kitchen"},
                    "reference_outputs": [
                        {
                            "role": "assistant",
                            "tool_calls": [{"name": "turn_on", "args": {"room": "kitchen"}}],
                        }
                    ],
                },
            ),
        )
        for i in range(n)
    ]


def trivial_task(_: Any) -> TaskResult:
    """A sync task that does no work: what is left to measure is the harness."""
    return TaskResult(output="done", context={"final_state": _STATE, "outputs": _MESSAGES})


async def sleeping_task(_: Any) -> TaskResult:
    """An async task that waits like a model call would."""
    await asyncio.sleep(SLEEP_S)
    return TaskResult(output="done", context={"final_state": _STATE, "outputs": _MESSAGES})


async def _throughput(dataset: list[ExampleData]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = await run_eval_async(trivial_task, dataset, [StateMatch(), ToolCallExactMatch()])
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if result.pass_rates != {"StateMatch": 1.0, "ToolCallExactMatch": 1.0}:
        raise SystemExit(f"unexpected pass rates {result.pass_rates}")
    return len(dataset) / wall, len(dataset) / cpu


async def _concurrency(dataset: list[ExampleData]) -> float:
    config = EvalConfig(max_concurrency=SLEEP_CONCURRENCY)
    wall = time.perf_counter()
    await run_eval_async(sleeping_task, dataset, [StateMatch(), ToolCallExactMatch()], config=config)
    return time.perf_counter() - wall


def _verdict(ok: bool) -> str:
    return "OK" if ok else "MISSED"


def main() -> int:
    """Print both measurements, best and median of several repeats."""
    big, small = _dataset(THROUGHPUT_EXAMPLES), _dataset(SLEEP_EXAMPLES)
    rates = [asyncio.run(_throughput(big)) for _ in range(REPEATS)]
    walls = [asyncio.run(_concurrency(small)) for _ in range(REPEATS)]
    wall_rates, cpu_rates = [r[0] for r in rates], [r[1] for r in rates]
    best_rate, best_wall = max(wall_rates), min(walls)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load average {load:.2f}")
    print(f"throughput: {THROUGHPUT_EXAMPLES:,} examples, trivial sync task, StateMatch + ToolCallExactMatch")
    print(
        f"  wall: best {best_rate:,.0f} examples/s, median {statistics.median(wall_rates):,.0f} examples/s; "
        f"per CPU-second: best {max(cpu_rates):,.0f}, median {statistics.median(cpu_rates):,.0f} "
        f"(target >= {THROUGHPUT_TARGET:,.0f}/s) {_verdict(best_rate >= THROUGHPUT_TARGET)}"
    )
    print(
        f"concurrency: {SLEEP_EXAMPLES:,} examples, async task sleeping {SLEEP_S * 1000:.0f} ms, "
        f"concurrency {SLEEP_CONCURRENCY}, ideal {IDEAL_S:.2f} s"
    )
    print(
        f"  best {best_wall:.3f} s, median {statistics.median(walls):.3f} s, ratio to ideal "
        f"{best_wall / IDEAL_S:.3f} (target <= {EFFICIENCY_TARGET}) {_verdict(best_wall / IDEAL_S <= EFFICIENCY_TARGET)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
