"""Suite inputs: what the tracker counts as a suite's input, and what it leaves out."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_evals.record.merge import merge_shards
from agent_evals.record.model import Case, RunInfo, RunRecord, ShardInfo, Suite, Trial
from agent_evals.run.inputs import Tracker, changes, current_inputs, env_part


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "p"
    (project / ".git").mkdir(parents=True)
    (project / "data").mkdir()
    (project / "data" / "cases.json").write_text("[]")
    (project / "data" / "prompt.txt").write_text("hello")
    return project


def test_tracker__files_read_and_folders_listed_under_the_root__are_inputs(
    root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("not ours")
    tracker = Tracker()
    tracker.start()
    try:
        (root / "data" / "cases.json").read_text()
        with open(os.fsencode(root / "data" / "prompt.txt"), "rb") as handle:  # noqa: PTH123  # bytes paths too
            handle.read()
        outside.read_text()
        (root / "written.txt").write_text("an output")  # written only: not an input
        list((root / "data").iterdir())
    finally:
        tracker.stop()
    (root / "after.txt").write_text("read after the tracker stopped")
    (root / "after.txt").read_text()
    inputs = tracker.inputs(root)
    assert set(inputs["files"]) == {"data/cases.json", "data/prompt.txt"}
    assert set(inputs["dirs"]) == {"data"}
    assert {"python", "tool", "packages"} <= set(inputs)


def test_tracker__a_read_after_a_write__counts(root: Path) -> None:
    tracker = Tracker()
    tracker.start()
    try:
        path = root / "state.json"
        path.write_text("{}")
        path.read_text()
    finally:
        tracker.stop()
    assert "state.json" in tracker.inputs(root)["files"]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda r: (r / "data" / "prompt.txt").write_text("changed"), "files changed: data/prompt.txt"),
        (lambda r: (r / "data" / "prompt.txt").unlink(), "files changed: data/prompt.txt"),
        (lambda r: (r / "data" / "new.txt").write_text("x"), "folder contents changed: data/"),
        (lambda r: (r / "uv.lock").write_text("x"), "files changed: uv.lock"),
    ],
    ids=["edited", "deleted", "file-added-to-listed-folder", "lockfile-added"],
)
def test_current_inputs__a_change__changes_the_digest_and_is_named(
    root: Path, edit: Callable[[Path], object], expected: str
) -> None:
    tracker = Tracker()
    tracker.start()
    try:
        (root / "data" / "prompt.txt").read_text()
        list((root / "data").iterdir())
    finally:
        tracker.stop()
    recorded = current_inputs(tracker.inputs(root), root, {}, {})
    assert current_inputs(recorded, root, {}, {})["digest"] == recorded["digest"]  # stable
    edit(root)
    now = current_inputs(recorded, root, {}, {})
    assert now["digest"] != recorded["digest"]
    assert expected in changes(recorded, now)


@pytest.mark.parametrize(
    ("before", "after", "same"),
    [
        ({"MODEL": "a"}, {"MODEL": "b"}, False),
        ({"MODEL": "a"}, {"MODEL": "a", "EXTRA": "1"}, False),
        (
            {"MODEL": "a", "GITHUB_RUN_ID": "1", "RUNNER_NAME": "x"},
            {"MODEL": "a", "GITHUB_RUN_ID": "2"},
            True,
        ),
        ({"AGENT_EVALS_GATE_ID": "a", "PWD": "/x"}, {"AGENT_EVALS_GATE_ID": "b", "PWD": "/y"}, True),
        ({}, {"AGENT_EVALS_REUSE_UNCHANGED": "true", "AGENT_EVALS_OUTPUT_DIR": "/tmp/x"}, True),
        ({"AGENT_EVALS_TRIALS": "1"}, {"AGENT_EVALS_TRIALS": "3"}, False),  # reaches the suites
        ({}, {"AGENT_EVALS_BUDGET_USD": "5"}, False),
    ],
    ids=[
        "value-changed",
        "variable-added",
        "ci-run-variables-ignored",
        "ci-options-and-shell-ignored",
        "reuse-and-output-options-ignored",
        "trials-variable-counts",
        "other-agent-evals-variable-counts",
    ],
)
def test_env_part__counts_every_variable_but_the_per_run_ones(
    before: dict[str, str], after: dict[str, str], same: bool
) -> None:
    assert (env_part(before) == env_part(after)) is same


def test_env_part__never_stores_values() -> None:
    part = env_part({"OPENAI_API_KEY": "sk-secret-value"})
    assert "sk-secret-value" not in repr(part) and part["names"] == ["OPENAI_API_KEY"]


def test_merge__shard_records__merged_suite_claims_no_input_digest() -> None:
    def shard(index: int) -> RunRecord:
        suite = Suite(
            id="s",
            kind="evals",
            source="eval_s.py",
            fingerprint="fp",
            inputs={"files": {f"only-in-shard-{index}.py": "h"}, "digest": f"d{index}"},
            cases=[Case(id=f"c{index}", group="g", trials=[Trial(passed=True)])],
            case_positions=[index - 1],
        )
        run = RunInfo(tool_version="1", started_at="t", shard=ShardInfo(index=index, count=2))
        return RunRecord(run=run, suites=[suite])

    merged = merge_shards([("a", shard(1)), ("b", shard(2))])
    assert merged.record.suites[0].inputs is None  # each shard read its part: no digest to reuse
