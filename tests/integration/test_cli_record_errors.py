"""Every command that reads a run record refuses a malformed one with exit 2 and the same located message."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_evals.cli.main import cli


def good() -> dict[str, Any]:
    trial = {"passed": True, "scores": {"check": {"value": 1.0, "passed": True}}, "duration_s": 0.1}
    return {
        "schema": "agent-evals/run@1",
        "run": {"tool_version": "0.1.0", "started_at": "2026-01-01T00:00:00Z"},
        "suites": [
            {
                "id": "home",
                "kind": "benchmark",
                "source": "home.yaml",
                "cases": [{"id": f"doors/c{i}", "group": "doors", "trials": [dict(trial)]} for i in range(3)],
            }
        ],
    }


def _trial(d: dict[str, Any]) -> dict[str, Any]:
    trial: dict[str, Any] = d["suites"][0]["cases"][2]["trials"][0]
    return trial


BROKEN: dict[str, Callable[[dict[str, Any]], Any]] = {
    "passed as a string": lambda d: _trial(d).update(passed="true"),
    "scores null": lambda d: _trial(d).update(scores=None),
    "a score's verdict as a number": lambda d: _trial(d)["scores"]["check"].update(passed=1),
    "a repeated case id": lambda d: d["suites"][0]["cases"][2].update(id="doors/c0"),
    "a suite without source": lambda d: d["suites"][0].pop("source"),
    "tokens as text": lambda d: _trial(d).update(usage={"input_tokens": "9"}),
    "unknown schema": lambda d: d.update(schema="agent-evals/run@7"),
}


def _invoke(args: list[str], tmp_path: Path) -> tuple[int, str]:
    env = {"GITHUB_ACTIONS": "", "GITHUB_EVENT_NAME": "", "GITHUB_TOKEN": ""}
    result = CliRunner().invoke(cli, args, env=env, catch_exceptions=False)
    lines = [line for line in result.output.splitlines() if line.startswith("error: ")]
    return result.exit_code, lines[0] if lines else result.output


@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_commands__malformed_record__exit_2_with_one_and_the_same_message(
    tmp_path: Path, broken: str
) -> None:
    ok, bad = tmp_path / "ok.json", tmp_path / "bad.json"
    ok.write_text(json.dumps(good()), encoding="utf-8")
    doc = good()
    BROKEN[broken](doc)
    bad.write_text(json.dumps(doc), encoding="utf-8")
    runs = {
        "compare (baseline)": ["compare", str(bad), str(ok)],
        "compare (candidate)": ["compare", str(ok), str(bad)],
        "report": ["report", str(bad)],
        "regrade": ["regrade", str(bad), "-o", str(tmp_path / "out.json")],
        "ci --baseline": [
            "ci",
            str(tmp_path / "none.yaml"),
            "--baseline",
            str(bad),
            "--output-dir",
            str(tmp_path),
        ],
    }
    got = {name: _invoke(args, tmp_path) for name, args in runs.items()}
    assert {code for code, _ in got.values()} == {2}, got
    assert len({message for _, message in got.values()}) == 1, got
    assert str(bad) in got["report"][1]
