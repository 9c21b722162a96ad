"""Issue 30 item 2: every timeout bounds the whole trial, and its expiry names the part still running.

An eval's ``timeout`` covers the body and its evaluators (sync and async evals); a benchmark's
``timeout_s`` covers the agent, its checkers and its scorers; ``run_eval``'s ``timeout_s`` covers
the task and its scorers. Each row is bounded: a part that never returns is let go at the limit.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent_evals import ExampleData, Score, TaskResult, run_benchmark, run_eval

CLI = str(Path(sys.executable).with_name("agent-evals"))
BOUND_S = 15
"""No row may take longer than this: a limit of 1 s must end the trial soon after 1 s."""


@dataclass(frozen=True)
class EvalRow:
    """An @eval with ``timeout=1`` whose evaluator takes too long."""

    body: str
    """The eval function (``sync`` or ``async``) after its decorator."""
    evaluator: str
    """The evaluator ``slow``."""
    error: str
    """Text the errored trial's error contains."""


EVALUATOR_PAST_LIMIT = "timed out after 1s: evaluator 'slow' was still running (the timeout covers the body"

EVAL_ROWS: dict[str, EvalRow] = {
    "async-eval-async-evaluator-never-returns": EvalRow(
        "async def test_case(ctx: EvalContext):\n    ctx.output = 'ok'\n",
        "async def slow(result):\n    await asyncio.sleep(60)\n",
        EVALUATOR_PAST_LIMIT,
    ),
    "async-eval-sync-evaluator-never-returns": EvalRow(
        "async def test_case(ctx: EvalContext):\n    ctx.output = 'ok'\n",
        "def slow(result):\n    time.sleep(60)\n",
        EVALUATOR_PAST_LIMIT,
    ),
    "async-eval-body-and-evaluator-each-under-the-limit": EvalRow(
        "async def test_case(ctx: EvalContext):\n    await asyncio.sleep(0.7)\n    ctx.output = 'ok'\n",
        "async def slow(result):\n    await asyncio.sleep(0.7)\n    return True\n",
        EVALUATOR_PAST_LIMIT,
    ),
    "sync-eval-sync-evaluator-never-returns": EvalRow(
        "def test_case(ctx: EvalContext):\n    ctx.output = 'ok'\n",
        "def slow(result):\n    time.sleep(60)\n",
        EVALUATOR_PAST_LIMIT,
    ),
    "sync-eval-async-evaluator-never-returns": EvalRow(
        "def test_case(ctx: EvalContext):\n    ctx.output = 'ok'\n",
        "async def slow(result):\n    await asyncio.sleep(60)\n",
        EVALUATOR_PAST_LIMIT,
    ),
}


@pytest.mark.parametrize("row", list(EVAL_ROWS.values()), ids=list(EVAL_ROWS))
def test_eval_timeout__covers_body_and_evaluators__errored_naming_the_evaluator(
    tmp_path: Path, row: EvalRow
) -> None:
    source = (
        "import asyncio\nimport time\n\nfrom agent_evals import EvalContext, eval\n\n\n"
        + row.evaluator
        + "\n\n@eval(timeout=1, evaluators=[slow])\n"
        + row.body
    )
    (tmp_path / "eval_slow.py").write_text(source, encoding="utf-8")
    started = time.monotonic()
    done = subprocess.run(
        [CLI, "run", "eval_slow.py", "--output", "run.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=BOUND_S,
    )
    assert time.monotonic() - started < BOUND_S
    assert done.returncode == 1, done.stdout + done.stderr
    record = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    [trial] = record["suites"][0]["cases"][0]["trials"]
    assert row.error in (trial["error"] or ""), trial["error"]
    assert trial["passed"] is False


SLOW_SCORER = """
import asyncio
import time

from agent_evals import Score


def slow(result, expected=None, **context):
    time.sleep(SECONDS)
    return Score(name="slow", value=1.0, passed=True)


async def slow_async(result, expected=None, **context):
    await asyncio.sleep(SECONDS)
    return Score(name="slow_async", value=1.0, passed=True)


def answer(prompt):
    time.sleep(AGENT_SECONDS)
    return "ok"
"""


BENCHMARK_ROWS: dict[str, tuple[str, float, float, str]] = {
    # (scorer type, agent seconds, scorer seconds, part named)
    "sync-scorer-never-returns": ("slow", 0.0, 60.0, "scorer 'slow'"),
    "async-scorer-never-returns": ("slow_async", 0.0, 60.0, "scorer 'slow_async'"),
    "agent-and-scorer-each-under-the-limit": ("slow", 0.7, 0.7, "scorer 'slow'"),
}


@pytest.mark.parametrize(
    ("scorer", "agent_s", "scorer_s", "part"), list(BENCHMARK_ROWS.values()), ids=list(BENCHMARK_ROWS)
)
def test_benchmark_timeout_s__covers_agent_checkers_and_scorers__errored_naming_the_scorer(
    tmp_path: Path, scorer: str, agent_s: float, scorer_s: float, part: str
) -> None:
    module = SLOW_SCORER.replace("AGENT_SECONDS", str(agent_s)).replace("SECONDS", str(scorer_s))
    (tmp_path / "slowpack.py").write_text(module, encoding="utf-8")
    yaml = f"""
        benchmark: slow
        agent: slowpack:answer
        execution: {{runs_per_scenario: 1, timeout_s: 1}}
        capabilities:
          - name: talk
            scenarios:
              - id: c0
                prompt: hi
                success:
                  output: {{contains: ok}}
                  scorers:
                    - type: slowpack:{scorer}
        """
    (tmp_path / "slow.yaml").write_text(textwrap.dedent(yaml), encoding="utf-8")
    started = time.monotonic()
    result = run_benchmark(tmp_path / "slow.yaml")
    assert time.monotonic() - started < BOUND_S
    [trial] = result.cases[0].trials
    expected = f"timed out after 1s: {part} was still running (the timeout covers the agent"
    assert expected in (trial.error or ""), trial.error
    assert trial.passed is False


async def _slow_scorer(result: TaskResult, expected: object = None) -> Score:
    import asyncio

    await asyncio.sleep(60)
    return Score(name="late", value=1.0, passed=True)


def _slow_sync_scorer(result: TaskResult, expected: object = None) -> Score:
    time.sleep(0.7)
    return Score(name="late", value=1.0, passed=True)


def _quick_task(_input: object) -> TaskResult:
    return TaskResult(output="ok")


def _slowish_task(_input: object) -> TaskResult:
    time.sleep(0.7)
    return TaskResult(output="ok")


RUN_EVAL_ROWS = {
    "async-scorer-never-returns": (_quick_task, _slow_scorer, "_slow_scorer"),
    "task-and-scorer-each-under-the-limit": (_slowish_task, _slow_sync_scorer, "_slow_sync_scorer"),
}


@pytest.mark.parametrize(("task", "scorer", "name"), list(RUN_EVAL_ROWS.values()), ids=list(RUN_EVAL_ROWS))
def test_run_eval_timeout_s__covers_task_and_scorers__errored_naming_the_scorer(
    task: object, scorer: object, name: str
) -> None:
    started = time.monotonic()
    result = run_eval(task, [ExampleData(input="hi")], [scorer], config={"timeout_s": 1})  # type: ignore[arg-type]
    assert time.monotonic() - started < BOUND_S
    [example] = result.examples
    expected = f"timed out after 1s: scorer '{name}' was still running (the timeout covers the task"
    assert expected in (example.error or ""), example.error
