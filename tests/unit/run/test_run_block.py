"""The run block a run writes as plain data is the one `record.model.RunInfo` would dump, key for key."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_evals.cost.budget import Budget
from agent_evals.record.model import RunInfo
from agent_evals.run.builder import RunBuilder

SHA = "a" * 40
HEAD = "e" * 40


def _dumped(block: dict[str, Any]) -> dict[str, Any]:
    """``block`` read into the record's model and written back as the record writes models."""
    dumped: dict[str, Any] = RunInfo.model_validate(block).model_dump(mode="json", exclude_none=True)
    return dumped


def _budget(limit: float, *, spent: float = 0.0, skipped: int = 0, names: tuple[str, ...] = ()) -> Budget:
    budget = Budget(limit)
    budget.spent_usd = spent
    budget.skipped = skipped
    budget.named = len(names)
    budget.names = list(names)
    return budget


def _event(tmp_path: Path) -> str:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"head": {"sha": HEAD}}}), encoding="utf-8")
    return str(event)


ACTIONS = {
    "GITHUB_ACTIONS": "true",
    "GITHUB_RUN_ID": "77",
    "GITHUB_SHA": SHA,
    "GITHUB_REF": "refs/pull/5/merge",
}

CASES: list[tuple[str, dict[str, str], Budget | None, bool, dict[str, Any]]] = [
    # (situation, env, budget, finished, facts the block must state)
    ("a local run, still going", {}, None, False, {"complete": True, "ci": {}}),
    ("a local run, finished", {}, None, True, {"complete": True, "ci": {}}),
    (
        "a push on Actions",
        {"GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "9", "GITHUB_SHA": SHA, "GITHUB_REF": "refs/heads/main"},
        None,
        True,
        {"git": {"sha": SHA, "ref": "refs/heads/main"}, "ci": {"provider": "github", "run_id": "9"}},
    ),
    (
        "a pull request on Actions",
        {**ACTIONS, "GITHUB_HEAD_REF": "feature"},
        None,
        True,
        {
            "git": {"sha": SHA, "ref": "feature"},
            "ci": {"provider": "github", "run_id": "77", "pr": 5, "head_sha": HEAD},
        },
    ),
    (
        "a budget given as a whole number, not reached",
        {},
        _budget(2, spent=0.1234567),
        True,
        {
            "complete": True,
            "budget": {"limit_usd": 2.0, "spent_usd": 0.123457, "skipped_trials": 0, "uncounted_trials": 0},
        },
    ),
    (
        "a budget spent, trials skipped and some cost not counted",
        {},
        _budget(0.5, spent=0.75, skipped=3, names=("cap/a trial 1 (no price for m)",)),
        True,
        {
            "complete": False,
            "incomplete_reason": "budget",
            "budget": {
                "limit_usd": 0.5,
                "spent_usd": 0.75,
                "skipped_trials": 3,
                "uncounted_trials": 1,
                "uncounted": ["cap/a trial 1 (no price for m)"],
            },
        },
    ),
    (
        "a budget while the run is going (not written yet)",
        {},
        _budget(0.5, skipped=1),
        False,
        {"complete": True},
    ),
]


@pytest.mark.parametrize(
    ("situation", "env", "budget", "finished", "facts"), CASES, ids=[c[0] for c in CASES]
)
def test_run_block__as_plain_data__is_what_the_record_model_dumps(
    tmp_path: Path,
    situation: str,
    env: dict[str, str],
    budget: Budget | None,
    finished: bool,
    facts: dict[str, Any],
) -> None:
    if env.get("GITHUB_REF", "").startswith("refs/pull/"):
        env = {**env, "GITHUB_EVENT_PATH": _event(tmp_path)}
    builder = RunBuilder(env=env, cwd=tmp_path)  # not a git checkout: git is asked and says nothing
    builder.budget = budget
    builder._git_facts()
    block = builder._run_block(complete=True, finished=finished)

    assert block == _dumped(block)
    assert json.dumps(block) == json.dumps(
        _dumped(block)
    )  # the same keys in the same order, floats as floats
    for key, value in facts.items():
        assert block[key] == value, key
    assert ("finished_at" in block) is finished
    assert ("budget" in block) is (finished and budget is not None)
    if not env:
        assert block["git"] == {}


def test_run__code_first_evals__load_no_pydantic_model(tmp_path: Path) -> None:
    """A run of code-first evals writes its record without loading pydantic (about a third of its start-up)."""
    (tmp_path / "eval_two.py").write_text(
        "from agent_evals import eval, EvalContext\n\n"
        "@eval(cases=[{'input': 1}, {'input': 2}])\n"
        "def test_two(ctx: EvalContext):\n"
        "    assert ctx.input < 2\n",
        encoding="utf-8",
    )
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('LOADED', sorted(m for m in sys.modules"
        " if m.split('.')[0] == 'pydantic' or m == 'agent_evals.record.model')))\n"
        "from agent_evals.cli.main import main\n"
        "sys.argv = ['agent-evals', 'run', 'eval_two.py', '--output', 'run.json']\n"
        "sys.exit(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr  # a failing case is a result, not a fault
    assert "2 cases, 1 passed, 1 failed" in done.stdout, done.stdout
    assert "LOADED []" in done.stdout, done.stdout
    record = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    assert _dumped(record["run"]) == record["run"]
    assert [len(s["cases"]) for s in record["suites"]] == [2]
