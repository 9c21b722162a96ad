"""A sync agent without a time limit: its trials go to the driver's worker threads in batches and, when
every scorer is a native check, are scored and land there as each ends (as sync evals do); nothing else
about the run changes: results, errors, coroutines handed back, budgets."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_evals import TaskResult
from agent_evals.benchmark.runner import run_benchmark_async
from agent_evals.cost.budget import budgeted

Writer = Callable[..., Path]

TRIALS = 200


def _bench(write: Writer, *, k: int = TRIALS, n: int = 1, timeout: str = "") -> Path:
    return write(
        "bench.yaml",
        f"""
        benchmark: echo
        execution: {{runs_per_scenario: {k}, n_parallel_runs: {n}{timeout}}}
        capabilities:
          - name: echo
            scenarios:
              - id: one
                prompt: "1"
                success: {{output: {{equals: "1"}}}}
        """,
    )


async def test_sync_agent__no_limit__each_trial_run_and_landed_in_its_worker_thread(write: Writer) -> None:
    finished: list[tuple[int, str]] = []  # per landed trial: how many had landed, and where
    seen: list[tuple[int, str]] = []  # per trial started: how many trials had landed, and where it ran

    def echo(prompt: str) -> str:
        seen.append((len(finished), threading.current_thread().name))
        return prompt

    result = await run_benchmark_async(
        _bench(write),
        echo,
        progress=lambda done, _total: finished.append((done, threading.current_thread().name)),
    )
    assert result.trial_count == TRIALS and result.micro_pass_rate == 1.0
    loop = threading.current_thread().name
    assert all(where != loop for _, where in seen)  # in the driver's worker threads, not on the loop
    # native checks only: each trial is scored and lands in the thread it ran in, before the next starts
    assert [landed for landed, _ in seen] == list(range(TRIALS))
    assert [where for _, where in finished] == [where for _, where in seen]


async def test_sync_agent__a_scorer_to_wait_for__trials_batched_and_finished_on_the_loop(
    write: Writer,
) -> None:
    finished: list[str] = []
    seen: list[int] = []

    def echo(prompt: str) -> str:
        seen.append(len(finished))
        return prompt

    write(
        "waited_scorers.py",
        """
        from agent_evals import Score

        def same(result, expected=None):  # a plain sync scorer: called in a thread of its own, awaited
            return Score(name="same", value=1.0, passed=result.output == "1")
        """,
    )
    path = write(
        "bench.yaml",
        f"""
        benchmark: echo
        execution: {{runs_per_scenario: {TRIALS}}}
        capabilities:
          - name: echo
            scenarios:
              - id: one
                prompt: "1"
                success: {{scorers: [{{type: "waited_scorers:same"}}]}}
        """,
    )
    result = await run_benchmark_async(
        path, echo, progress=lambda _done, _total: finished.append(threading.current_thread().name)
    )
    assert result.trial_count == TRIALS and result.micro_pass_rate == 1.0
    assert set(finished) == {threading.current_thread().name}  # landed on the loop
    # one trial at a time, yet many start before the previous one is finished on the loop: batches
    assert len(set(seen)) < TRIALS // 4


async def test_sync_agent__under_a_limit__one_hand_over_per_trial(write: Writer) -> None:
    finished: list[int] = []
    seen: list[int] = []

    def echo(prompt: str) -> str:
        seen.append(len(finished))
        return prompt

    path = _bench(write, timeout=", timeout_s: 30")
    await run_benchmark_async(path, echo, progress=lambda done, _total: finished.append(done))
    assert seen == list(range(TRIALS))  # the limit's watchdog times each call: never batched


async def _coroutine(prompt: str) -> str:
    return prompt


def _hands_back_a_coroutine(prompt: str) -> Any:
    return _coroutine(prompt)


def _raises_on_odd(prompt: str, trial: int) -> str:
    if trial % 2:
        raise RuntimeError(f"trial {trial} broke")
    return prompt


def _not_a_result(prompt: str) -> Any:
    return 42


def _task_result(prompt: str) -> TaskResult:
    return TaskResult(output=prompt, context={"usage": {"input_tokens": 3, "output_tokens": 1}})


@pytest.mark.parametrize("concurrency", [1, 3])
@pytest.mark.parametrize(
    ("agent", "passes", "errors", "error_text"),
    [
        (_hands_back_a_coroutine, 10, 0, None),
        (_raises_on_odd, 5, 5, "RuntimeError: trial 1 broke"),
        (_not_a_result, 0, 10, "the agent returned int; expected a TaskResult"),
        (_task_result, 10, 0, None),
    ],
    ids=["coroutine-handed-back", "raises-on-odd-trials", "not-a-result", "task-result-with-usage"],
)
async def test_sync_agent__batched__each_trial_its_own_outcome(
    write: Writer, agent: Any, passes: int, errors: int, error_text: str | None, concurrency: int
) -> None:
    result = await run_benchmark_async(_bench(write, k=10, n=concurrency), agent)
    trials = result.cases[0].trials
    assert [t.error is None for t in trials].count(True) == 10 - errors
    assert result.cases[0].passes == passes
    if error_text is not None:
        assert any(error_text in (t.error or "") for t in trials), [t.error for t in trials]
    if agent is _task_result:
        assert all(t.usage is not None and t.usage["input_tokens"] == 3 for t in trials)


async def test_sync_agent__under_a_budget__stops_right_after_the_spend_not_a_batch_later(
    write: Writer,
) -> None:
    calls: list[str] = []

    def paid(prompt: str) -> TaskResult:
        calls.append(prompt)
        return TaskResult(output=prompt, context={"usage": {"cost_usd": 0.25}})

    with budgeted(1.25) as budget:
        result = await run_benchmark_async(_bench(write, k=50), paid)
    assert budget is not None
    assert len(calls) == 5  # the 5th brings the spend to the limit: no further trial starts
    assert budget.skipped == 45 and result.complete is False


async def test_sync_agent__a_slow_trial_in_a_batch__every_trial_before_it_landed_before_it_ran(
    write: Writer,
) -> None:
    finished: list[int] = []
    seen: list[int] = []

    def echo(prompt: str, trial: int) -> str:
        seen.append(len(finished))
        if trial == 100:  # quick trials grew the hand-offs; this one makes its hand-off run long
            time.sleep(0.2)
        return prompt

    result = await run_benchmark_async(
        _bench(write), echo, progress=lambda done, _total: finished.append(done)
    )
    assert result.trial_count == TRIALS and result.micro_pass_rate == 1.0
    assert seen == list(range(TRIALS))  # each one landed (and reached the record) as it ended
