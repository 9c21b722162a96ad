"""LocalConfig: one readable folder per run under experiments/, UUID run ids, strict keywords."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agent_evals.adapters.library import run_eval, run_eval_async
from agent_evals.adapters.platforms.local import LocalConfig
from agent_evals.core.types import EvalResult, ExampleData, ExpectedResult, Score, TaskResult


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


async def test_local__run__writes_metadata_results_and_summary_in_one_folder(tmp_path: Path) -> None:
    platform = LocalConfig(experiment="smoke", output_dir=str(tmp_path))
    result = await run_eval_async(task, DATA, [check], platform=platform)
    assert result.platform == "local"
    assert str(uuid.UUID(result.experiment_id or "")) == result.experiment_id
    folder = Path(result.experiment_url or "")
    assert folder == (tmp_path / "experiments" / f"smoke-{result.experiment_id}").resolve()
    assert sorted(p.name for p in folder.iterdir()) == ["metadata.json", "results.jsonl", "summary.json"]

    meta = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
    assert (meta["experiment_id"], meta["experiment_name"], meta["platform"]) == (
        result.experiment_id,
        "smoke",
        "local",
    )
    assert meta["config"] == {"name": "local", "experiment": "smoke", "output_dir": str(tmp_path)}
    assert datetime.fromisoformat(meta["created_at_iso"]).timestamp() == pytest.approx(meta["created_at"])

    records = read_jsonl(folder / "results.jsonl")
    assert [r["index"] for r in records] == [0, 1, 2]
    assert records[0]["scores"]["check"]["metadata"] == {"seen": "0"}
    assert records[0]["scores"]["check"]["passed"] is True
    assert records[0]["context"]["when"] == "2026-01-01T00:00:00"
    assert records[1]["expected"] == "0"
    assert records[2]["error"] == "RuntimeError: agent crashed"
    assert (records[2]["output"], records[2]["scores"], records[2]["passed"]) == ("", {}, False)

    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    assert summary["experiment_id"] == result.experiment_id and summary["total_examples"] == 3
    assert summary["pass_rates"] == {"check": pytest.approx(1 / 3)}
    assert summary["summary"]["failed_examples"] == 1  # the crash; the scored "no" is not a failure
    assert summary["summary"]["successful_examples"] == 2


async def test_local__two_runs__get_two_folders(tmp_path: Path) -> None:
    platform = LocalConfig(experiment="again", output_dir=tmp_path)
    first = await run_eval_async(task, DATA[:1], [check], platform=platform)
    second = await run_eval_async(task, DATA[:1], [check], platform=platform)
    assert first.experiment_id != second.experiment_id
    assert len(list((tmp_path / "experiments").iterdir())) == 2


def test_local__no_experiment__folder_named_after_the_clock(tmp_path: Path) -> None:
    result = EvalResult(pass_rates={}, scores={}, examples=[], summary={})
    when = datetime(2026, 3, 4, 5, 6, 7, tzinfo=timezone.utc)
    recorded = LocalConfig(output_dir=tmp_path).write(result, clock=lambda: when)
    folder = Path(recorded.experiment_url or "")
    assert folder.name == f"eval-{int(when.timestamp())}-{recorded.experiment_id}"


@pytest.mark.parametrize(("as_given"), ["/tmp/x", Path("/tmp/x"), None])
def test_local__output_dir__kept_as_given(as_given: str | Path | None) -> None:
    config = LocalConfig(output_dir=as_given)
    assert config.output_dir == as_given and type(config.output_dir) is type(as_given)
    assert config.name == "local" and config.experiment is None


@pytest.mark.parametrize("keyword", ["project", "outputdir", "experiment_name"])
def test_local__unknown_keyword__is_a_validation_error_not_a_silent_drop(keyword: str) -> None:
    with pytest.raises(ValidationError, match=keyword):
        LocalConfig(**{keyword: "x"})


def test_local__no_platform_given__writes_under_local_eval_results_in_the_working_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for platform in (None, "local"):
        result = run_eval(task, DATA[:1], [check], platform=platform)
        assert result.platform == "local" and result.experiment_id
        folder = Path(result.experiment_url or "")
        assert folder.parent == (tmp_path / "local_eval_results" / "experiments").resolve()
        assert folder.name.startswith("eval-")


@pytest.mark.parametrize(
    "name", ["../escape", "a/b", "a\\b", "..", ".", "", "  ", " lead", "nul\0", "x" * 129, "c:d"]
)
def test_local__unsafe_experiment_name__rejected(name: str) -> None:
    with pytest.raises(ValidationError, match="not a safe folder name"):
        LocalConfig(experiment=name)


@pytest.mark.parametrize("name", ["multi_scorer", "v1.2-rc", "nightly run", "éval"])
def test_local__ordinary_experiment_name__accepted(name: str) -> None:
    assert LocalConfig(experiment=name).experiment == name
