"""relaxed_gc: thresholds raised during a run and restored after, overlapping runs included."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from agent_evals.core.gc_tuning import RELAXED_THRESHOLDS, relaxed_gc
from agent_evals.core.runner import run_eval_async
from agent_evals.core.types import ExampleData, Score, TaskResult


@pytest.fixture(autouse=True)
def _keep_thresholds() -> Iterator[None]:
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*saved)


def test_relaxed_gc__inside_block__thresholds_raised_and_restored_after() -> None:
    with relaxed_gc():
        assert gc.get_threshold() == RELAXED_THRESHOLDS
    assert gc.get_threshold() == (700, 10, 10)


def test_relaxed_gc__block_raises__thresholds_restored() -> None:
    with pytest.raises(RuntimeError), relaxed_gc():
        raise RuntimeError("boom")
    assert gc.get_threshold() == (700, 10, 10)


def test_relaxed_gc__overlapping_blocks__restored_only_when_the_last_ends() -> None:
    first, second = relaxed_gc(), relaxed_gc()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)  # the first run ends while the second still runs
    assert gc.get_threshold() == RELAXED_THRESHOLDS
    second.__exit__(None, None, None)
    assert gc.get_threshold() == (700, 10, 10)


def test_relaxed_gc__higher_user_thresholds__are_kept() -> None:
    gc.set_threshold(50_000, 5, 500)
    with relaxed_gc():
        assert gc.get_threshold() == (50_000, RELAXED_THRESHOLDS[1], 500)
    assert gc.get_threshold() == (50_000, 5, 500)


def test_relaxed_gc__automatic_collection_off__is_left_alone() -> None:
    gc.set_threshold(0, 10, 10)
    with relaxed_gc():
        assert gc.get_threshold() == (0, 10, 10)
    assert gc.get_threshold() == (0, 10, 10)


def test_relaxed_gc__user_changes_thresholds_during_block__their_change_is_kept() -> None:
    with relaxed_gc():
        gc.set_threshold(1234, 11, 12)
    assert gc.get_threshold() == (1234, 11, 12)


async def test_run_eval_async__during_and_after_run__thresholds_relaxed_then_restored() -> None:
    seen: list[tuple[int, int, int]] = []

    def task(text: str) -> TaskResult:
        seen.append(gc.get_threshold())
        return TaskResult(output=text)

    def echo(result: TaskResult, expected: object = None) -> Score:
        return Score(name="echo", value=1.0, passed=True)

    result = await run_eval_async(task, [ExampleData(input="hi")], [echo])
    assert result.pass_rates == {"echo": 1.0}
    assert seen == [RELAXED_THRESHOLDS]
    assert gc.get_threshold() == (700, 10, 10)
