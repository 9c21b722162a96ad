"""The deterministic autoevals and agentevals wrappers are plain sync calls returning a Score."""

from __future__ import annotations

import inspect
import json
import threading
from typing import Any

import pytest

from agent_evals.adapters.scorers import agentevals as ag
from agent_evals.adapters.scorers import autoevals as ae
from agent_evals.core.runner import run_eval_async
from agent_evals.core.types import ExampleData, ExpectedResult, Score, TaskResult


def _call(name: str, **args: Any) -> dict[str, Any]:
    function = {"name": name, "arguments": json.dumps(args)}
    return {"role": "assistant", "content": "", "tool_calls": [{"function": function}]}


TRAJECTORY = [{"role": "user", "content": "weather?"}, _call("get_weather", city="SF")]
GRAPH = {"steps": [["__start__", "agent"]], "results": [{}]}

CASES: list[tuple[Any, TaskResult, ExpectedResult]] = [
    (ae.ExactMatch(), TaskResult(output="4"), ExpectedResult(expected="4")),
    (ae.Levenshtein(), TaskResult(output="kitten"), ExpectedResult(expected="kitten")),
    (ae.NumericDiff(), TaskResult(output="10"), ExpectedResult(expected="10")),
    (ae.JSONDiff(), TaskResult(output='{"a": 1}'), ExpectedResult(expected='{"a": 1}')),
    (ae.ListContains(), TaskResult(output='["a"]'), ExpectedResult(expected='["a"]')),
    (ae.ValidJSON(), TaskResult(output='{"a": 1}'), ExpectedResult(expected="")),
    *(
        (
            factory(),
            TaskResult(output="", context={"outputs": TRAJECTORY}),
            ExpectedResult(expected="", context={"reference_outputs": TRAJECTORY}),
        )
        for factory in (
            ag.TrajectoryStrictMatch,
            ag.TrajectoryUnorderedMatch,
            ag.TrajectorySubsetMatch,
            ag.TrajectorySupsetMatch,
        )
    ),
    (
        ag.GraphTrajectoryStrictMatch(),
        TaskResult(output="", context={"outputs": GRAPH}),
        ExpectedResult(expected="", context={"reference_outputs": GRAPH}),
    ),
]


@pytest.mark.parametrize(("scorer", "result", "expected"), CASES, ids=lambda v: getattr(v, "name", ""))
def test_deterministic_wrapper__called_synchronously__returns_a_passing_score(
    scorer: Any, result: TaskResult, expected: ExpectedResult
) -> None:
    assert not inspect.iscoroutinefunction(type(scorer).__call__)
    score = scorer(result, expected)
    assert isinstance(score, Score)
    assert (score.name, score.passed, score.error) == (scorer.name, True, None)


@pytest.mark.parametrize("scorer", [ae.ExactMatch(), ag.TrajectoryStrictMatch()], ids=lambda s: s.name)
def test_deterministic_wrapper__bad_example__failing_score_not_a_raise(scorer: Any) -> None:
    score = scorer(TaskResult(output=""), None)
    assert isinstance(score, Score) and score.passed is False and score.error


async def test_deterministic_wrappers__inside_run_eval_async__run_in_worker_threads() -> None:
    loop_thread = threading.get_ident()
    threads: list[int] = []

    class Watched(ae.ExactMatch):
        def __call__(
            self, result: TaskResult, expected: ExpectedResult | None = None, **context: Any
        ) -> Score:
            threads.append(threading.get_ident())
            return super().__call__(result, expected, **context)

    async def agent(_: Any) -> TaskResult:
        return TaskResult(output="4")

    dataset = [ExampleData(input=i, expected=ExpectedResult(expected="4")) for i in range(3)]
    result = await run_eval_async(agent, dataset, [Watched()], platform=_NoPlatform())
    assert result.pass_rates == {"ExactMatch": 1.0}
    assert len(threads) == 3 and loop_thread not in threads


class _NoPlatform:
    """A platform that keeps nothing (the test needs no files)."""

    async def record(self, result: Any) -> Any:
        from agent_evals.core.platform import RecordedRun

        return RecordedRun(platform="none", experiment_id="-")
