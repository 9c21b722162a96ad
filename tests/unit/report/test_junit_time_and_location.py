"""JUnit testcases carry the candidate's real time and the case's declaring file and line."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_evals.cli.main import cli


def _record(cases: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "schema": "agent-evals/run@1",
        "run": {"tool_version": "0.1.0", "started_at": "2026-01-01T00:00:00Z"},
        "suites": [{"id": "home", "kind": "benchmark", "source": "home.yaml", "cases": cases}],
    }


CASES = [
    {
        "id": "lights/a",
        "group": "lights",
        "location": {"file": "benchmarks/home.yaml", "line": 12},
        "trials": [{"passed": True, "duration_s": 0.25}, {"passed": False, "duration_s": 0.5}],
    },
    {
        "id": "doors/b",
        "group": "doors",
        "location": {"file": "benchmarks/doors.yaml"},
        "trials": [{"passed": True, "duration_s": 1.0}],
    },
    {"id": "doors/c", "group": "doors", "trials": [{"passed": False, "error": "timeout", "duration_s": 2.0}]},
]


@pytest.fixture
def junit(tmp_path: Path) -> ET.Element:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(_record(CASES)), encoding="utf-8")
    done = CliRunner().invoke(cli, ["report", str(path), "--format", "junit"])
    assert done.exit_code in (0, 1), done.output
    return ET.fromstring(done.output[done.output.index("<?xml") :].encode())


@pytest.mark.parametrize(
    ("case_id", "time", "file", "line"),
    [
        ("lights/a", "0.750", "benchmarks/home.yaml", "12"),
        ("doors/b", "1.000", "benchmarks/doors.yaml", None),
        ("doors/c", "2.000", None, None),
    ],
)
def test_testcase__time_is_the_sum_of_its_trials_and_file_line_come_from_the_location(
    junit: ET.Element, case_id: str, time: str, file: str | None, line: str | None
) -> None:
    (case,) = [c for c in junit.iter("testcase") if c.get("name") == case_id]
    assert case.get("time") == time
    assert case.get("file") == file
    assert case.get("line") == line


def test_testsuite__time_is_the_sum_of_its_testcases(junit: ET.Element) -> None:
    (suite,) = junit.iter("testsuite")
    assert suite.get("time") == "3.750"
