"""`tool_use: {calls: []}` asserts "no tool calls": it passes only when the agent's messages hold none."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_evals import TaskResult
from agent_evals.benchmark.runner import run_benchmark

Writer = Callable[..., Path]

CALL = {"role": "assistant", "content": "", "tool_calls": [{"name": "lookup", "args": {"q": "x"}}]}
TEXT = {"role": "assistant", "content": "I can answer that directly."}

AGENT_MESSAGES: dict[str, tuple[list[dict[str, Any]] | None, bool]] = {
    "only text": ([{"role": "user", "content": "hi"}, TEXT], True),
    "empty message list": ([], True),
    "one tool call": ([CALL, TEXT], False),
    "two tool calls": ([CALL, CALL, TEXT], False),
    "tool call with empty args": (
        [{"role": "assistant", "tool_calls": [{"name": "ping", "args": {}}]}],
        False,
    ),
    # an agent that reports no messages cannot show that it made no call: never a pass
    "no messages reported": (None, False),
}


@pytest.mark.parametrize("match_calls", ["exact", "subset", "unordered", None])
@pytest.mark.parametrize("agent_case", sorted(AGENT_MESSAGES))
def test_empty_calls__passes_only_without_tool_calls(
    write: Writer, match_calls: str | None, agent_case: str
) -> None:
    messages, expected = AGENT_MESSAGES[agent_case]
    mode = f", match_calls: {match_calls}" if match_calls else ""
    path = write(
        "bench.yaml",
        f"""
        benchmark: quiet
        capabilities:
          - name: direct
            scenarios:
              - id: no-tools
                prompt: "what is 2 + 2?"
                success:
                  tool_use: {{calls: []{mode}}}
        """,
    )

    def agent(prompt: str) -> TaskResult:
        context = {} if messages is None else {"outputs": messages}
        return TaskResult(output="4", context=context)

    (case,) = run_benchmark(path, agent).cases
    (trial,) = case.trials
    assert trial.error is None
    assert trial.passed is expected
