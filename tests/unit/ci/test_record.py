"""`ci`'s one read of a record: edits reach both the document it writes back and the summary it gates on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_evals.ci.record import CIRecord
from agent_evals.errors import RunRecordError
from agent_evals.gate.compare import compare_documents
from agent_evals.gate.policy import resolve_policy
from agent_evals.record.read import read_summary

SETUP = "agent setup failed: ValueError: no key"


def _trial(passed: bool = True, error: str | None = None) -> dict[str, Any]:
    return {"passed": passed, "error": error} if error else {"passed": passed}


def _record(suites: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "schema": "agent-evals/run@1",
        "run": {"tool_version": "0.1.0", "started_at": "2026-01-01T00:00:00Z", "complete": True},
        "suites": suites,
    }


def _suite(sid: str, trials: list[list[dict[str, Any]]], **extra: Any) -> dict[str, Any]:
    cases = [{"id": f"c{i}", "group": "g", "trials": t} for i, t in enumerate(trials)]
    return {"id": sid, "kind": "benchmark", "source": f"{sid}.yaml", "cases": cases, **extra}


def _read(tmp_path: Path, record: dict[str, Any]) -> CIRecord:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    return CIRecord.read(path)


def _policy() -> Any:
    return resolve_policy(repo_config=None, suite_blocks={}, overrides={})


def test_mark_incomplete__the_written_record_and_the_verdict_both_say_incomplete(tmp_path: Path) -> None:
    record = _read(tmp_path, _record([_suite("s", [[_trial()], [_trial()]])]))
    assert record.complete
    record.mark_incomplete()
    out = tmp_path / "out.json"
    record.write(out)
    assert json.loads(out.read_text())["run"]["complete"] is False
    # the summary gated on is the one edited, never a stale "complete" copy: exit 3, not 0
    assert compare_documents(record.summary, record.summary, _policy()).exit_code == 3
    assert compare_documents(read_summary(out), read_summary(out), _policy()).exit_code == 3


def test_set_suite_field__reaches_the_document_and_the_summary(tmp_path: Path) -> None:
    record = _read(tmp_path, _record([_suite("a", [[_trial()]]), _suite("b", [[_trial()]])]))
    record.set_suite_field(1, "inputs", {"digest": "d1"})
    assert record.suites[1]["inputs"] == {"digest": "d1"} and "inputs" not in record.suites[0]
    assert record.summary.suites[1].header["inputs"] == {"digest": "d1"}


def test_add_suites__are_checked_and_counted(tmp_path: Path) -> None:
    record = _read(tmp_path, _record([_suite("a", [[_trial()]])]))
    record.add_suites([_suite("b", [[_trial(False)], [_trial()]])], "copied")
    assert [s.header["id"] for s in record.summary.suites] == ["a", "b"] and record.case_count() == 3
    assert [s["id"] for s in record.suites] == ["a", "b"]
    with pytest.raises(
        RunRecordError, match=r"copied: invalid run record at 'suites\.0\.cases\.0\.trials\.0"
    ):
        record.add_suites([_suite("c", [[{"passed": "yes"}]])], "copied")


def test_read__a_broken_record_is_refused_with_where(tmp_path: Path) -> None:
    with pytest.raises(RunRecordError, match=r"invalid run record at 'suites.0.cases.1.trials.0.passed'"):
        _read(tmp_path, _record([_suite("s", [[_trial()], [{"error": None}]])]))


@pytest.mark.parametrize(
    ("trials", "failed"),
    [
        ([[_trial(False, SETUP)], [_trial(False, SETUP), _trial(False, SETUP)]], True),
        ([[_trial(False, SETUP)], [_trial(False, "timeout")]], False),  # one other error: the agent started
        ([[_trial(False, SETUP)], [_trial(True)]], False),
        ([[_trial(True)], [_trial(False, SETUP)]], False),
        ([[], []], False),  # no trials: nothing says setup failed
        ([], False),
    ],
    ids=["all-setup", "one-other-error", "one-passed", "first-passed", "no-trials", "no-cases"],
)
def test_setup_failures__only_when_every_trial_says_setup_failed(
    tmp_path: Path, trials: list[list[dict[str, Any]]], failed: bool
) -> None:
    record = _read(tmp_path, _record([_suite("s", trials), _suite("ok", [[_trial()]])]))
    assert record.setup_failures() == (["s: " + SETUP] if failed else [])
