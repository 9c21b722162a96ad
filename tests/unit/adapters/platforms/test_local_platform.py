"""LocalConfig: one readable folder per run, safe experiment names, result points at the folder."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agent_evals.adapters.platforms.local import DEFAULT_OUTPUT_DIR, LocalConfig
from agent_evals.core.runner import run_eval_async
from agent_evals.core.types import ExampleData, ExpectedResult, Score, TaskResult


def check(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
    ok = expected is not None and result.output == expected.expected
    return Score(name="check", value=float(ok), passed=ok, metadata={"seen": result.output})


def task(x: int) -> TaskResult:
    if x == 2:
        raise RuntimeError("agent crashed")
    return TaskResult(output=str(x), context={"final_state": {"n": x}, "when": datetime(2026, 1, 1)})


DATA = [ExampleData(input=i, expected=ExpectedResult(expected="0"), metadata={"i": i}) for i in range(3)]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def test_local__run__writes_run_examples_and_summary_in_one_folder(tmp_path: Path) -> None:
    result = await run_eval_async(task, DATA, [check], platform=LocalConfig("smoke", output_dir=tmp_path))
    assert result.platform == "local"
    assert result.experiment_url is not None
    folder = Path(result.experiment_url)
    assert folder.parent == (tmp_path / "smoke").resolve()
    assert folder.name == result.experiment_id
    assert sorted(p.name for p in folder.iterdir()) == ["examples.jsonl", "run.json", "summary.json"]

    run = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    assert run["platform"] == "local" and run["experiment"] == "smoke"
    assert run["run_id"] == result.experiment_id
    assert run["scorers"] == ["check"] and run["examples"] == 3

    records = read_jsonl(folder / "examples.jsonl")
    assert [r["index"] for r in records] == [0, 1, 2]
    assert records[0]["scores"]["check"] == {
        "value": 1.0,
        "passed": True,
        "error": None,
        "reasoning": None,
        "metadata": {"seen": "0"},
    }
    assert records[0]["context"]["when"] == "2026-01-01T00:00:00"
    assert records[1]["expected"] == {"expected": "0", "context": None}
    assert records[2]["error"] == "RuntimeError: agent crashed" and records[2]["passed"] is False

    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    assert summary["pass_rates"] == {"check": pytest.approx(1 / 3)}
    assert summary["summary"] == {"total": 3, "successful": 1, "failed": 2, "errors": 1}


async def test_local__two_runs__get_two_folders(tmp_path: Path) -> None:
    platform = LocalConfig(experiment="again", output_dir=tmp_path)
    first = await run_eval_async(task, DATA[:1], [check], platform=platform)
    second = await run_eval_async(task, DATA[:1], [check], platform=platform)
    assert first.experiment_url != second.experiment_url
    assert len(list((tmp_path / "again").iterdir())) == 2


def test_local__no_experiment__uses_default_folder_name(tmp_path: Path) -> None:
    from agent_evals.core.types import EvalResult, EvalSummary

    result = EvalResult(
        pass_rates={},
        scores={},
        examples=[],
        summary=EvalSummary(total=0, successful=0, failed=0),
        duration=0.0,
    )
    recorded = LocalConfig(output_dir=tmp_path).write(
        result, clock=lambda: datetime(2026, 3, 4, 5, 6, 7, tzinfo=timezone.utc)
    )
    folder = Path(recorded.experiment_url or "")
    assert folder.parent.name == "default"
    assert folder.name.startswith("20260304T050607Z-")


def test_local__defaults__output_dir_is_dot_agent_evals_experiments() -> None:
    assert Path(".agent-evals") / "experiments" == DEFAULT_OUTPUT_DIR
    assert LocalConfig().output_dir is None


@pytest.mark.parametrize(
    "name", ["../escape", "a/b", "a\\b", "..", ".", "", "  ", " lead", "nul\0", "x" * 129, "c:d"]
)
def test_local__unsafe_experiment_name__rejected(name: str) -> None:
    with pytest.raises(ValidationError, match="not a safe folder name"):
        LocalConfig(experiment=name)


@pytest.mark.parametrize("name", ["multi_scorer", "v1.2-rc", "nightly run", "éval"])
def test_local__ordinary_experiment_name__accepted(name: str) -> None:
    assert LocalConfig(experiment=name).experiment == name
