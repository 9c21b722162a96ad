"""run_eval_async / run_eval: ordering, concurrency, timeouts, failure semantics and argument checks."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import re
import threading
import time
from typing import Any

import pytest

from agent_evals.core.platform import RecordedRun
from agent_evals.core.runner import run_eval, run_eval_async
from agent_evals.core.types import EvalConfig, EvalResult, ExampleData, ExpectedResult, Score, TaskResult


def examples(n: int, **kwargs: Any) -> list[ExampleData]:
    return [ExampleData(input=i, expected=ExpectedResult(expected=str(i)), **kwargs) for i in range(n)]


def echo(x: Any) -> TaskResult:
    return TaskResult(output=str(x))


async def async_echo(x: Any) -> TaskResult:
    await asyncio.sleep(0)
    return TaskResult(output=str(x))


def correct(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
    ok = expected is not None and result.output == expected.expected
    return Score(name="correct", value=float(ok), passed=ok)


class Recorder:
    """A scorer that remembers which outputs it saw and what context it was given."""

    name = "recorder"

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.contexts: list[dict[str, Any]] = []

    def __call__(self, result: TaskResult, expected: ExpectedResult | None = None, **context: Any) -> Score:
        self.seen.append(result.output)
        self.contexts.append(context)
        return Score(name=self.name, value=1.0, passed=True)


# --- ordering and concurrency -------------------------------------------------------------


async def test_run__async_tasks_finishing_out_of_order__results_in_dataset_order() -> None:
    async def jittery(x: int) -> TaskResult:
        await asyncio.sleep(0.001 * ((7 * x) % 5))
        return TaskResult(output=str(x))

    result = await run_eval_async(jittery, examples(20), [correct], config=EvalConfig(max_concurrency=8))
    assert [e.index for e in result.examples] == list(range(20))
    assert [e.output for e in result.examples] == [str(i) for i in range(20)]
    assert result.pass_rates == {"correct": 1.0}


@pytest.mark.parametrize("limit", [1, 3])
async def test_run__async_task__in_flight_never_exceeds_max_concurrency(limit: int) -> None:
    state = {"now": 0, "peak": 0}

    async def tracked(x: int) -> TaskResult:
        state["now"] += 1
        state["peak"] = max(state["peak"], state["now"])
        await asyncio.sleep(0.005)
        state["now"] -= 1
        return TaskResult(output=str(x))

    await run_eval_async(tracked, examples(12), [correct], config=EvalConfig(max_concurrency=limit))
    assert state["peak"] == limit


async def test_run__sync_task__in_flight_threads_bounded_by_concurrency() -> None:
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}

    def blocking(x: int) -> TaskResult:
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.02)
        with lock:
            state["now"] -= 1
        return TaskResult(output=str(x))

    result = await run_eval_async(blocking, examples(12), [correct], config={"max_concurrent_tests": 4})
    assert 2 <= state["peak"] <= 4
    assert result.pass_rates == {"correct": 1.0}


async def test_run__sync_task__runs_off_the_event_loop() -> None:
    ticks: list[float] = []
    threads: set[str] = set()

    def blocking(x: int) -> TaskResult:
        threads.add(threading.current_thread().name)
        time.sleep(1.0)
        return TaskResult(output=str(x))

    async def ticker() -> None:
        for _ in range(5):
            ticks.append(time.perf_counter())
            await asyncio.sleep(0.01)

    tick_task = asyncio.create_task(ticker())
    await run_eval_async(blocking, examples(2), [correct])
    await tick_task
    assert threading.main_thread().name not in threads
    # had the tasks run on the loop, it would have stalled for 2 s; the bound leaves room for a loaded machine
    assert len(ticks) == 5 and ticks[-1] - ticks[0] < 0.8


async def test_run__many_fast_sync_tasks__batched_yet_ordered_and_isolated() -> None:
    def picky(x: int) -> TaskResult:
        if x % 97 == 0:
            raise ValueError(f"bad {x}")
        return TaskResult(output=str(x))

    result = await run_eval_async(picky, examples(2000), [correct], config=EvalConfig(max_concurrency=3))
    assert [e.index for e in result.examples] == list(range(2000))
    errored = [e.index for e in result.examples if e.error]
    assert errored == [i for i in range(2000) if i % 97 == 0]
    assert result.examples[97].error == "ValueError: bad 97"
    assert result.summary["errored_examples"] == len(errored)


async def test_run__callable_instance_with_async_call__is_awaited() -> None:
    class Agent:
        async def __call__(self, x: int) -> TaskResult:
            return TaskResult(output=str(x))

    assert (await run_eval_async(Agent(), examples(3), [correct])).pass_rates == {"correct": 1.0}


async def test_run__sync_callable_returning_coroutine__is_awaited() -> None:
    result = await run_eval_async(lambda x: async_echo(x), examples(3), [correct])
    assert result.pass_rates == {"correct": 1.0}


# --- failure semantics -------------------------------------------------------------------


async def test_run__task_raises__example_error_scorers_skipped_and_failed_for_every_scorer() -> None:
    recorder = Recorder()

    def flaky(x: int) -> TaskResult:
        if x == 1:
            raise ConnectionError("agent down")
        return TaskResult(output=str(x))

    result = await run_eval_async(flaky, examples(3), [correct, recorder])
    broken = result.examples[1]
    assert broken.error == "ConnectionError: agent down"
    assert broken.output == ""
    assert recorder.seen == ["0", "2"]
    assert broken.scores == {}  # nothing was scored, yet it counts as failed for every scorer
    assert not broken.passed and broken.failed
    assert result.pass_rates == {"correct": pytest.approx(2 / 3), "recorder": pytest.approx(2 / 3)}
    summary = result.summary
    assert (summary["total_examples"], summary["successful_examples"], summary["failed_examples"]) == (
        3,
        2,
        1,
    )
    assert summary["errored_examples"] == 1


@pytest.mark.parametrize("is_async", [True, False])
async def test_run__task_times_out__error_says_timed_out_and_run_continues(is_async: bool) -> None:
    async def slow_async(x: int) -> TaskResult:
        await asyncio.sleep(5 if x == 0 else 0)
        return TaskResult(output=str(x))

    def slow_sync(x: int) -> TaskResult:
        time.sleep(5.0 if x == 0 else 0)
        return TaskResult(output=str(x))

    task = slow_async if is_async else slow_sync
    t = time.perf_counter()
    result = await run_eval_async(task, examples(3), [correct], config=EvalConfig(timeout_s=0.1))
    assert time.perf_counter() - t < 4.0  # the run does not wait for the 5 s task past its limit
    assert re.fullmatch(r"timed out after 0\.1s \(waited \d+\.\d\ds\)", result.examples[0].error or "")
    assert [e.error for e in result.examples[1:]] == [None, None]
    assert result.pass_rates == {"correct": pytest.approx(2 / 3)}


async def test_run__task_returns_wrong_type__example_error_names_type() -> None:
    result = await run_eval_async(lambda x: "plain text", examples(1), [correct])
    assert result.examples[0].error is not None
    assert "task returned str, expected a TaskResult" in result.examples[0].error


async def test_run__scorer_raises__error_score_counts_failed_others_unaffected() -> None:
    def fragile(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
        if result.output == "1":
            raise ZeroDivisionError("division by zero")
        return Score(name="fragile", value=1.0, passed=True)

    result = await run_eval_async(echo, examples(3), [fragile, correct])
    score = result.examples[1].scores["fragile"]
    assert score.error == "scorer 'fragile' raised ZeroDivisionError: division by zero"
    assert not score.passed
    assert result.examples[1].error is None
    assert result.examples[1].scores["correct"].passed
    assert result.pass_rates == {"fragile": pytest.approx(2 / 3), "correct": 1.0}


async def test_run__scorer_returns_non_score__error_names_scorer_and_type() -> None:
    def lazy(result: TaskResult, expected: ExpectedResult | None = None) -> Any:
        return True

    result = await run_eval_async(echo, examples(1), [lazy])
    assert "scorer 'lazy' returned bool, expected a Score" in (result.examples[0].scores["lazy"].error or "")
    assert result.pass_rates == {"lazy": 0.0}


async def test_run__every_example_crashed__never_reports_a_pass() -> None:
    def dead(x: int) -> TaskResult:
        raise RuntimeError("no model")

    result = await run_eval_async(dead, examples(4), [correct, Recorder()])
    assert result.pass_rates == {"correct": 0.0, "recorder": 0.0}
    assert result.scores == {"correct": 0.0, "recorder": 0.0}
    assert result.summary == {
        "total_examples": 4,
        "successful_examples": 0,
        "failed_examples": 4,
        "passed_examples": 0,
        "errored_examples": 4,
    }


async def test_run__async_scorer_past_scorer_timeout__error_score() -> None:
    async def slow_judge(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
        await asyncio.sleep(2)
        return Score(name="slow_judge", value=1.0, passed=True)

    result = await run_eval_async(echo, examples(1), [slow_judge], config=EvalConfig(scorer_timeout_s=0.05))
    error = result.examples[0].scores["slow_judge"].error or ""
    assert re.fullmatch(r"scorer 'slow_judge' timed out after 0\.05s \(waited 0\.\d\ds\)", error), error


# --- scorer calling convention ----------------------------------------------------------


async def test_run__context_kwargs__only_for_scorers_accepting_var_kwargs() -> None:
    recorder = Recorder()
    data = [ExampleData(input={"q": 1}, metadata={"tag": "x"}, expected=ExpectedResult(expected="{'q': 1}"))]
    result = await run_eval_async(echo, data, [recorder, correct])
    assert recorder.contexts == [{"input": {"q": 1}, "metadata": {"tag": "x"}}]
    assert result.examples[0].scores["correct"].passed  # called without the context kwargs


def _named(score_name: str, passed: bool) -> Any:
    """A factory closure: every scorer it builds has the callable name 'scorer'."""

    def scorer(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
        return Score(name=score_name, value=float(passed), passed=passed)

    return scorer


@pytest.mark.parametrize(
    ("returned", "keys"),
    [
        pytest.param([("tone", True)], ["tone"], id="keyed-by-the-returned-name-not-the-callable"),
        pytest.param([("a", True), ("b", False)], ["a", "b"], id="closures-sharing-a-callable-name-both-run"),
    ],
)
async def test_run__results_keyed_by_the_score_name_the_scorer_returns(
    returned: list[tuple[str, bool]], keys: list[str]
) -> None:
    result = await run_eval_async(echo, examples(2), [_named(n, p) for n, p in returned])
    assert [list(e.scores) for e in result.examples] == [keys, keys]
    assert result.pass_rates == {n: float(p) for n, p in returned}


@pytest.mark.parametrize(
    ("first", "second", "kept", "hidden"),
    [
        pytest.param(False, True, True, True, id="a-pass-after-a-failure"),
        pytest.param(True, False, False, False, id="a-failure-after-a-pass"),
        pytest.param(True, True, True, False, id="two-passes"),
    ],
)
async def test_run__two_scorers_returning_one_name__last_wins_with_a_warning_naming_both(
    first: bool, second: bool, kept: bool, hidden: bool
) -> None:
    with pytest.warns(
        UserWarning, match=r"scorers\[0\] \(scorer\) and scorers\[1\] \(scorer\).*'same'"
    ) as seen:
        result = await run_eval_async(echo, examples(3), [_named("same", first), _named("same", second)])
    assert len(seen) == 1  # once per run, not once per example
    assert ("failing score was replaced" in str(seen[0].message)) is hidden
    assert [e.scores["same"].passed for e in result.examples] == [kept] * 3
    assert result.pass_rates == {"same": float(kept)}


async def test_run__failed_task__no_scores_yet_failed_under_the_names_returned_elsewhere() -> None:
    def task(x: int) -> TaskResult:
        if x == 1:
            raise RuntimeError("boom")
        return echo(x)

    result = await run_eval_async(task, examples(3), [_named("exact", True)])
    assert [list(e.scores) for e in result.examples] == [["exact"], [], ["exact"]]
    assert result.examples[1].error == "RuntimeError: boom"
    assert result.pass_rates == {"exact": pytest.approx(2 / 3)}


async def test_run__every_task_failed__scores_keyed_by_the_scorer_name() -> None:
    def task(x: int) -> TaskResult:
        raise RuntimeError("boom")

    result = await run_eval_async(task, examples(2), [_named("exact", True)])
    assert result.pass_rates == {"scorer": 0.0}


# --- replay, trajectory, progress, platform ----------------------------------------------


async def test_run__stored_outputs__replayed_without_a_task() -> None:
    data = [
        ExampleData(input=i, expected=ExpectedResult(expected="1"), output=TaskResult(output=str(i)))
        for i in range(3)
    ]
    result = await run_eval_async(None, data, [correct])
    assert [e.output for e in result.examples] == ["0", "1", "2"]
    assert result.pass_rates == {"correct": pytest.approx(1 / 3)}


async def test_run__stored_output__task_not_called_for_that_example() -> None:
    calls: list[int] = []

    def task(x: int) -> TaskResult:
        calls.append(x)
        return echo(x)

    data = [ExampleData(input=0, output=TaskResult(output="stored")), ExampleData(input=1)]
    result = await run_eval_async(task, data, [Recorder()])
    assert calls == [1]
    assert result.examples[0].output == "stored"


async def test_run__messages_in_context__example_has_trajectory_and_tool_calls() -> None:
    messages = [
        {"role": "user", "content": "lights"},
        {"role": "assistant", "content": "", "tool_calls": [{"name": "turn_on", "args": {"room": "hall"}}]},
        {"role": "assistant", "content": "done"},
    ]
    result = await run_eval_async(lambda x: TaskResult.from_messages(messages), examples(1), [Recorder()])
    example = result.examples[0]
    assert example.output == "done"
    assert example.trajectory == messages
    assert example.tool_calls == [{"name": "turn_on", "args": {"room": "hall"}}]


async def test_run__progress__called_after_each_example_and_a_broken_callback_is_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> None:
        seen.append((done, total))
        if done == 2:
            raise RuntimeError("terminal gone")

    result = await run_eval_async(echo, examples(4), [correct], progress=progress)
    assert seen == [(1, 4), (2, 4)]
    assert result.summary["total_examples"] == 4
    assert "progress callback raised" in caplog.text


class MemoryPlatform:
    """A platform that keeps results in memory."""

    def __init__(self) -> None:
        self.recorded: list[EvalResult] = []

    async def record(self, result: EvalResult) -> RecordedRun:
        self.recorded.append(result)
        return RecordedRun(platform="memory", experiment_id="run-1", experiment_url="memory://run-1")


async def test_run__platform__records_once_and_result_points_at_it() -> None:
    platform = MemoryPlatform()
    result = await run_eval_async(echo, examples(2), [correct], platform=platform)
    assert platform.recorded == [result]
    assert (result.platform, result.experiment_id, result.experiment_url) == (
        "memory",
        "run-1",
        "memory://run-1",
    )


async def test_run__platform_fails__result_still_returned_and_failure_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Broken:
        async def record(self, result: EvalResult) -> RecordedRun:
            raise OSError("disk full")

    with caplog.at_level(logging.ERROR):
        result = await run_eval_async(echo, examples(1), [correct], platform=Broken())
    assert result.pass_rates == {"correct": 1.0}
    assert result.experiment_url is None
    assert "could not record the run" in caplog.text


async def test_run__result_fields__carry_inputs_expected_and_durations() -> None:
    result = await run_eval_async(async_echo, examples(2), [correct])
    first = result.examples[0]
    assert first.input == 0 and first.expected == "0" and first.expected_context is None
    assert first.duration >= 0 and result.duration >= 0
    assert result.started_at is not None


# --- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"dataset": []}, ValueError, "Dataset cannot be empty"),
        ({"dataset": "abc"}, TypeError, "dataset must be a list of ExampleData"),
        (
            {"dataset": [ExampleData(input=1), {"input": 2}]},
            TypeError,
            r"dataset\[1\] is a dict, expected ExampleData",
        ),
        ({"scorers": []}, ValueError, "At least one scorer is required"),
        ({"scorers": correct}, TypeError, "scorers must be a list"),
        ({"scorers": [correct, "correct"]}, TypeError, r"scorers\[1\] is a str, expected a callable"),
        (
            {"scorers": [Recorder]},
            TypeError,
            r"scorers\[0\] is the class Recorder; pass an instance: Recorder\(\)",
        ),
        ({"task": "agent"}, TypeError, "task must be a callable"),
        ({"config": 5}, TypeError, "config must be an EvalConfig"),
        ({"config": {"max_concurrency": 0}}, ValueError, "max_concurrency"),
        ({"platform": object()}, TypeError, "platform must have an async record"),
    ],
)
async def test_run__bad_arguments__clear_error_before_running(
    kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    arguments: dict[str, Any] = {"task": echo, "dataset": examples(2), "scorers": [correct], **kwargs}
    with pytest.raises(error, match=message):
        await run_eval_async(**arguments)


# --- the sync wrapper and stdout ----------------------------------------------------------


def test_run_eval__plain_script__returns_result() -> None:
    assert run_eval(echo, examples(2), [correct]).pass_rates == {"correct": 1.0}


async def test_run_eval__inside_running_loop__says_to_await_run_eval_async() -> None:
    with pytest.raises(RuntimeError, match=r"await run_eval_async\(\.\.\.\)"):
        run_eval(echo, examples(1), [correct])


def test_run_eval__failures_everywhere__writes_nothing_to_stdout(capfd: pytest.CaptureFixture[str]) -> None:
    def dead(x: int) -> TaskResult:
        raise RuntimeError("no model")

    def boom(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
        raise ValueError("bad scorer")

    data = [*examples(2), ExampleData(input=5, output=TaskResult(output="5"))]
    run_eval(dead, data, [boom, correct], config=EvalConfig(timeout_s=1))
    assert capfd.readouterr().out == ""


REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("REQUEST_ID", default="unset")


@pytest.mark.parametrize("timeout_s", [None, 5.0])
async def test_run__sync_task_in_worker_thread__sees_callers_context_variables(
    timeout_s: float | None,
) -> None:
    def task(x: int) -> TaskResult:
        return TaskResult(output=REQUEST_ID.get())

    REQUEST_ID.set("req-42")
    result = await run_eval_async(task, examples(3), [Recorder()], config=EvalConfig(timeout_s=timeout_s))
    assert [e.output for e in result.examples] == ["req-42"] * 3


@pytest.mark.parametrize("fault", [SystemExit(0), SystemExit(2)], ids=["exit-0", "exit-2"])
async def test_run__scorer_raises_base_exception__is_that_example_s_error_score_and_the_run_goes_on(
    fault: BaseException,
) -> None:
    class Fatal(BaseException):
        """A BaseException subclass that is neither Ctrl-C nor cancellation."""

    def fatal(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
        if result.output == "3":
            raise Fatal("boom")
        if result.output == "4":
            raise fault
        return Score(name="fatal", value=1.0, passed=True)

    async def task(x: int) -> TaskResult:
        return TaskResult(output=str(x))

    result = await run_eval_async(task, examples(10), [fatal], config=EvalConfig(max_concurrency=3))
    errors = {e.output: e.scores["fatal"].error for e in result.examples if e.scores["fatal"].error}
    assert errors == {
        "3": "scorer 'fatal' raised Fatal: boom",
        "4": f"scorer 'fatal' raised SystemExit: {fault.args[0]}",
    }
    assert len(result.examples) == 10


async def test_run__cancelled__lanes_stop() -> None:
    started: list[int] = []

    async def task(x: int) -> TaskResult:
        started.append(x)
        await asyncio.sleep(0.05)
        return TaskResult(output=str(x))

    run = asyncio.ensure_future(
        run_eval_async(task, examples(40), [correct], config=EvalConfig(max_concurrency=4))
    )
    await asyncio.sleep(0.02)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    count = len(started)
    await asyncio.sleep(0.1)
    assert len(started) == count == 4


async def test_run__tool_calls__kept_as_the_wire_dicts_the_agent_sent() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{broken"}}
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "content": "done", "tool_calls": [{"ignored": True}]},
        {"role": "assistant", "content": "ok"},
    ]
    result = await run_eval_async(
        lambda x: TaskResult(output="ok", context={"outputs": messages}), examples(1), [Recorder()]
    )
    assert result.examples[0].trajectory == messages
    assert result.examples[0].tool_calls == [call]  # as sent, even with unparseable arguments
    assert result.examples[0].model_dump()["tool_calls"] == [call]


async def test_run__trajectory_without_tool_calls__empty_list_not_none() -> None:
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    result = await run_eval_async(lambda x: TaskResult.from_messages(messages), examples(1), [Recorder()])
    assert result.examples[0].tool_calls == []


async def test_run__no_messages__no_trajectory_or_tool_calls() -> None:
    result = await run_eval_async(echo, examples(1), [correct])
    assert result.examples[0].trajectory is None and result.examples[0].tool_calls is None


@pytest.mark.parametrize(
    ("first", "second", "example_passed", "recorded"),
    [
        pytest.param(False, True, False, {"same": False, "same#2": True}, id="a-failure-replaced-by-a-pass"),
        pytest.param(True, False, False, {"same": True, "same#2": False}, id="a-pass-replaced-by-a-failure"),
        pytest.param(True, True, True, {"same": True, "same#2": True}, id="two-passes"),
    ],
)
async def test_run__name_collision__never_hides_a_failure_from_the_example_or_its_run_record(
    first: bool, second: bool, example_passed: bool, recorded: dict[str, bool]
) -> None:
    with pytest.warns(UserWarning, match="a run record keeps both"):
        result = await run_eval_async(echo, examples(1), [_named("same", first), _named("same", second)])
    (example,) = result.examples
    assert [s.passed for s in example.replaced_scores] == [first]
    assert example.passed is example_passed
    (trial,) = result.to_run_record().suites[0].cases[0].trials
    assert {k: s.passed for k, s in trial.scores.items()} == recorded
    assert trial.passed is example_passed


async def test_run__two_levenshtein_instances__both_run_and_a_strict_failure_still_fails_the_example() -> (
    None
):
    pytest.importorskip("autoevals")
    from agent_evals.adapters.scorers.autoevals import Levenshtein

    data = [ExampleData(input="x", expected=ExpectedResult(expected="hello world"))]

    def task(x: Any) -> TaskResult:
        return TaskResult(output="hello there")

    with pytest.warns(UserWarning, match="'Levenshtein'"):
        result = await run_eval_async(task, data, [Levenshtein(threshold=1.0), Levenshtein(threshold=0.5)])
    (example,) = result.examples
    assert example.scores["Levenshtein"].passed is True  # the last one, as in the seed
    assert [s.passed for s in example.replaced_scores] == [False]  # the strict one ran too
    assert example.passed is False
    (trial,) = result.to_run_record().suites[0].cases[0].trials
    assert {k: s.passed for k, s in trial.scores.items()} == {"Levenshtein": False, "Levenshtein#2": True}
