"""run_eval keeps the seed's call shapes: optional task, summary keys, error scores, concurrent scorers."""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import time
from typing import Any

import pytest

from agent_evals.core.runner import run_eval, run_eval_async
from agent_evals.core.types import ExampleData, ExpectedResult, Score, TaskResult


def exact(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
    ok = expected is not None and result.output == expected.expected
    return Score(name="exact", value=float(ok), passed=ok)


def always(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
    return Score(name="always", value=1.0, passed=True)


def stored(*outputs: str | None) -> list[ExampleData]:
    return [
        ExampleData(
            input=i,
            expected=ExpectedResult(expected="yes"),
            output=TaskResult(output=o) if o is not None else None,
        )
        for i, o in enumerate(outputs)
    ]


@pytest.mark.parametrize("call", ["sync", "async"])
def test_no_task__stored_outputs_are_replayed(call: str) -> None:
    kwargs: dict[str, Any] = {"dataset": stored("yes", "no"), "scorers": [exact]}
    result = run_eval(**kwargs) if call == "sync" else asyncio.run(run_eval_async(**kwargs))
    assert [e.output for e in result.examples] == ["yes", "no"]
    assert result.pass_rates == {"exact": 0.5}


def test_no_task__example_without_stored_output__becomes_an_errored_example_not_a_raise() -> None:
    result = run_eval(task=None, dataset=stored("yes", None, "yes"), scorers=[always])
    missing = result.examples[1]
    assert missing.error is not None and "task" in missing.error and "output" in missing.error
    assert (missing.output, missing.scores) == ("", {})
    assert [e.error is None for e in result.examples] == [True, False, True]
    # the always-passing scorer never saw it, and the example still fails it
    assert result.pass_rates == {"always": pytest.approx(2 / 3)}
    assert result.summary["failed_examples"] == 1


def test_task_and_stored_output__stored_output_wins_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    calls: list[Any] = []

    def task(x: Any) -> TaskResult:
        calls.append(x)
        return TaskResult(output="yes")

    with caplog.at_level(logging.WARNING):
        result = run_eval(task, stored("no", None), [exact])
    assert calls == [1]
    assert [e.output for e in result.examples] == ["no", "yes"]
    assert "Pre-populated output found on 1 of 2 examples" in caplog.text


async def crashing(_: Any) -> TaskResult:
    raise RuntimeError("simulated outage")


async def not_a_result(_: Any) -> Any:
    return {"output": "looks right"}


async def fine(_: Any) -> TaskResult:
    return TaskResult(output="yes")


def raising_scorer(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
    raise RuntimeError("scorer exploded")


def zero(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
    return Score(name="zero", value=0.0, passed=False)


@pytest.mark.parametrize(
    ("task", "scorer", "successful", "failed", "gate_passes"),
    [
        (crashing, always, 0, 3, False),
        (not_a_result, always, 0, 3, False),
        (fine, raising_scorer, 0, 3, False),
        (fine, zero, 3, 0, False),  # a scored "no" is data, not a failure
        (fine, always, 3, 0, True),
    ],
    ids=["task-raises", "task-returns-dict", "scorer-raises", "legit-zero", "healthy"],
)
async def test_summary__seed_keys_and_an_all_failing_run_never_passes_a_gate(
    task: Any, scorer: Any, successful: int, failed: int, gate_passes: bool
) -> None:
    dataset = [ExampleData(input=i, expected=ExpectedResult(expected="yes")) for i in range(3)]
    result = await run_eval_async(task=task, dataset=dataset, scorers=[scorer])
    assert result.summary["total_examples"] == 3
    assert (result.summary["successful_examples"], result.summary["failed_examples"]) == (successful, failed)
    assert result.pass_rates, "a run never reports empty aggregates"
    assert all(v >= 0.9 for v in result.pass_rates.values()) is gate_passes


async def test_crashed_task__seed_output_and_scores__and_error_text() -> None:
    result = await run_eval_async(crashing, [ExampleData(input=1)], [always])
    (example,) = result.examples
    assert (example.output, example.scores) == ("", {})
    assert example.error == "RuntimeError: simulated outage"
    assert example.failed and not example.passed


async def test_raising_scorer__error_in_score_error_and_metadata() -> None:
    result = await run_eval_async(fine, [ExampleData(input=1)], [raising_scorer])
    score = result.examples[0].scores["raising_scorer"]
    assert score.error is not None and "scorer exploded" in score.error
    assert score.metadata["error"] == score.error
    assert (score.value, score.passed) == (0.0, False)
    assert result.examples[0].scorer_errors == {"raising_scorer": score.error}


def test_example_result__expected_is_the_plain_string_and_context_is_kept() -> None:
    reference = ExpectedResult(expected="yes", context={"expected_state": {"a": 1}})
    result = run_eval(fine, [ExampleData(input=1, expected=reference), ExampleData(input=2)], [always])
    assert result.examples[0].expected == "yes"
    assert result.examples[0].expected_context == {"expected_state": {"a": 1}}
    assert result.examples[1].expected is None


class SlowJudge:
    """An async scorer that takes ``delay`` seconds, like an LLM judge."""

    def __init__(self, name: str, delay: float) -> None:
        self.name = name
        self.delay = delay

    async def __call__(self, result: TaskResult, expected: ExpectedResult | None = None) -> Score:
        await asyncio.sleep(self.delay)
        return Score(name=self.name, value=1.0, passed=True)


async def test_scorers_of_one_example__run_concurrently() -> None:
    judges = [SlowJudge(f"judge{i}", 1.0) for i in range(3)]
    t = time.perf_counter()
    result = await run_eval_async(fine, [ExampleData(input=1)], judges)
    elapsed = time.perf_counter() - t
    assert list(result.examples[0].scores) == ["judge0", "judge1", "judge2"]  # scorer order kept
    assert elapsed < 2.0, f"three 1 s scorers took {elapsed:.2f} s: they ran one after another"


async def test_slow_sync_scorer__runs_off_the_event_loop() -> None:
    loop_thread = threading.get_ident()
    seen: list[int] = []

    def blocking(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
        seen.append(threading.get_ident())
        time.sleep(1.5)
        return Score(name="blocking", value=1.0, passed=True)

    ticks: list[float] = []

    async def ticker() -> None:
        for _ in range(20):
            ticks.append(time.perf_counter())
            await asyncio.sleep(0.05)

    tick = asyncio.ensure_future(ticker())
    result = await run_eval_async(fine, [ExampleData(input=1)], [blocking, SlowJudge("judge", 1.5)])
    await tick
    assert result.pass_rates == {"blocking": 1.0, "judge": 1.0}
    assert seen and seen[0] != loop_thread
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert max(gaps) < 1.0, f"the loop stalled for {max(gaps):.2f} s"


@pytest.mark.parametrize("error", [TypeError, ValueError])
def test_dataset_item_not_example_data__both_type_and_value_error_naming_it(error: type[Exception]) -> None:
    with pytest.raises(error, match=r"dataset\[1\] is a dict, expected ExampleData"):
        run_eval(fine, [ExampleData(input=1), {"input": 2}], [always])
