"""Traced trials through the one trial driver: each trial its own trace, its spans fill only its own result."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from agent_evals.core.runner import run_eval_async
from agent_evals.core.tracing import fill_context, tracing
from agent_evals.core.types import EvalConfig, ExampleData, Score, TaskResult

pytest.importorskip("opentelemetry.sdk.trace", reason="the otel extra: pip install -e '.[dev]'")
from opentelemetry import trace

EXAMPLES = 24


def _ran(result: TaskResult, expected: Any = None, **context: Any) -> Score:
    return Score(name="ran", value=1.0, passed=True)


def _tool_span(number: int, step: int) -> None:
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "step",
        "gen_ai.tool.call.id": f"{number}-{step}",
        "gen_ai.tool.call.arguments": json.dumps({"example": number, "step": step}),
    }
    with trace.get_tracer("test-agent").start_as_current_span("execute_tool step", attributes=attributes):
        pass


async def _async_agent(number: int) -> TaskResult:
    for step in range(3):  # the other trials' spans end in between
        _tool_span(number, step)
        await asyncio.sleep(0.001 * ((number + step) % 3))
    return TaskResult(output=str(number))


def _sync_agent(number: int) -> TaskResult:
    for step in range(3):
        _tool_span(number, step)
        time.sleep(0.0005)
    return TaskResult(output=str(number))


def _own_agent(number: int) -> TaskResult:
    _tool_span(number, 0)
    mine = [{"role": "assistant", "content": "mine"}]
    return TaskResult(output=str(number), context={"outputs": mine, "model": "my-model"})


def _calls(context: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [
        json.loads(call["function"]["arguments"])
        for message in (context or {}).get("outputs") or []
        for call in message.get("tool_calls") or []
    ]


@pytest.mark.parametrize(
    ("task", "timeout"),
    [(_async_agent, None), (_sync_agent, None), (_sync_agent, 30.0)],
    ids=["async", "sync-in-worker-batches", "sync-under-a-limit"],
)
async def test_tracing__concurrent_trials__each_result_holds_only_its_own_calls(
    task: Any, timeout: float | None
) -> None:
    config = EvalConfig(max_concurrency=8, timeout_s=timeout)
    with tracing("otel"):
        result = await run_eval_async(
            task, [ExampleData(input=n) for n in range(EXAMPLES)], [_ran], config=config
        )
    assert len(result.examples) == EXAMPLES
    for example in result.examples:
        expected = [{"example": example.input, "step": step} for step in range(3)]
        assert _calls(example.context) == expected, example.context


async def test_tracing__agent_returned_its_own_outputs_and_model__they_win() -> None:
    with tracing("otel"):
        result = await run_eval_async(_own_agent, [ExampleData(input=1)], [_ran])
    (example,) = result.examples
    assert example.context == {"outputs": [{"role": "assistant", "content": "mine"}], "model": "my-model"}


async def test_tracing__off__results_untouched_and_nothing_filled() -> None:
    result = await run_eval_async(_sync_agent, [ExampleData(input=1)], [_ran])
    assert result.examples[0].context is None
    assert fill_context({"a": 1}, metered=False) == {"a": 1}  # outside a traced trial: as given
