"""Issue 30 item 1: only a real signal stops a run; whatever user code raises is its trial's error.

The agent rows are in ``test_fault_matrix.py`` (USER_RAISES). These cover the other places user code
runs: ``run_eval``'s task and scorers (sync and async), and an eval's evaluators (sync and async evals).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_evals import ExampleData, Score, TaskResult, run_eval
from agent_evals.core.signals import forget_signal, note_signal

CLI = str(Path(sys.executable).with_name("agent-evals"))
BOUND_S = 30

RAISED: dict[str, tuple[Callable[[], BaseException], str]] = {
    "generator-exit": (lambda: GeneratorExit("closed"), "GeneratorExit: closed"),
    "keyboard-interrupt-no-signal": (lambda: KeyboardInterrupt("mine"), "KeyboardInterrupt: mine"),
    "system-exit": (lambda: SystemExit(4), "SystemExit: 4"),
}


def _task_raising(make: Callable[[], BaseException]) -> Callable[[Any], TaskResult]:
    def task(value: Any) -> TaskResult:
        if value == "bad":
            raise make()
        return TaskResult(output="ok")

    return task


def _passes(result: TaskResult, expected: Any = None) -> Score:
    return Score(name="passes", value=1.0, passed=True)


async def _ok_async_task(_value: Any) -> TaskResult:
    return TaskResult(output="ok")


def _scorer_raising(make: Callable[[], BaseException], is_async: bool) -> Any:
    def check(result: TaskResult, expected: Any = None) -> Score:
        raise make()

    async def check_async(result: TaskResult, expected: Any = None) -> Score:
        raise make()

    return check_async if is_async else check


@pytest.mark.parametrize("where", ["task", "sync-scorer", "async-scorer"])
@pytest.mark.parametrize(("make", "error"), list(RAISED.values()), ids=list(RAISED))
def test_run_eval__user_code_raises_a_stop_exception__errored_example_run_goes_on(
    make: Callable[[], BaseException], error: str, where: str
) -> None:
    examples = [ExampleData(input="good"), ExampleData(input="bad"), ExampleData(input="good")]
    if where == "task":
        result = run_eval(_task_raising(make), examples, [_passes])
        assert error in (result.examples[1].error or ""), result.examples[1].error
        assert [e.error for e in (result.examples[0], result.examples[2])] == [None, None]
        return
    scorer = _scorer_raising(make, is_async=where == "async-scorer")
    result = run_eval(_ok_async_task, examples, [scorer])
    assert len(result.examples) == 3
    for example in result.examples:
        [score] = example.scores.values()
        assert error in (score.error or ""), score.error


def test_run_eval__keyboard_interrupt_after_a_real_signal__ends_the_run() -> None:
    def ctrl_c() -> BaseException:  # a real Ctrl-C arrives while the task runs: noted, then raised
        note_signal(2)
        return KeyboardInterrupt()

    try:
        with pytest.raises(KeyboardInterrupt):
            run_eval(_task_raising(ctrl_c), [ExampleData(input="bad")], [_passes])
    finally:
        forget_signal()


@pytest.mark.parametrize("is_async", [False, True], ids=["sync-eval", "async-eval"])
@pytest.mark.parametrize(("make", "error"), list(RAISED.values()), ids=list(RAISED))
def test_eval_evaluator_raises_a_stop_exception__errored_trial_record_whole(
    tmp_path: Path, make: Callable[[], BaseException], error: str, is_async: bool
) -> None:
    exc = make()
    prefix = "async " if is_async else ""
    source = (
        "from agent_evals import EvalContext, eval\n\n\n"
        f"def judge(result):\n    if result.input == 'c1':\n        raise {type(exc).__name__}({exc.args[0]!r})\n\n\n"
        "@eval(cases=[{'id': c, 'input': c} for c in ('c0', 'c1', 'c2')], evaluators=[judge])\n"
        f"{prefix}def test_case(ctx: EvalContext):\n    ctx.output = 'ok'\n"
    )
    (tmp_path / "eval_judged.py").write_text(source, encoding="utf-8")
    done = subprocess.run(
        [CLI, "run", "eval_judged.py", "--output", "run.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=BOUND_S,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    record = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    assert record["run"]["complete"] is True
    trials = {c["id"][-3:-1]: c["trials"][0] for c in record["suites"][0]["cases"]}
    assert error in (trials["c1"]["error"] or ""), trials["c1"]["error"]
    assert [trials["c0"]["passed"], trials["c2"]["passed"]] == [True, True]
