"""Reading the baseline in a forked child: the same comparison and the same errors as reading it here."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_evals.errors import RunRecordError
from agent_evals.gate.compare import compare_documents
from agent_evals.gate.forked import SummaryReader, can_fork
from agent_evals.gate.policy import resolve_policy
from agent_evals.gate.reader import read_document
from agent_evals.gate.summary import summarise_document

needs_fork = pytest.mark.skipif(
    sys.platform != "linux" or "fork" not in multiprocessing.get_all_start_methods(),
    reason="the forked reader is used on Linux only",
)


@pytest.fixture
def single_threaded(request: pytest.FixtureRequest) -> bool:
    """True: run the test here. The forked reader is only used from a single-threaded process, and
    loopback servers of other tests may still have threads running in this one; then the test is
    run again, alone, in a fresh interpreter (its result is this test's result) and False is returned."""
    if can_fork():
        return True
    if os.environ.get("AGENT_EVALS_FORK_TEST_CHILD"):
        pytest.fail("a fresh pytest process should be single-threaded")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", request.node.nodeid],
        cwd=request.config.rootpath,
        env={**os.environ, "AGENT_EVALS_FORK_TEST_CHILD": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout, proc.stdout
    return False


def write(tmp_path: Path, name: str, doc: dict[str, Any]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def pair(record: Any, cases: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    home = (
        cases("doors", 40, "PPP")
        | cases("lights", 15, "FFF")
        | {"doors/flaky": "PFP", "doors/drop": "PPP", "doors/err": "PPE", "doors/gone": "PPP"}
        | {"lights/crit": "PPP"}
    )
    base = record({"home": home, "old": {"x/y": "P"}}, critical=("lights/crit",))
    now = dict(home) | {"doors/drop": "FFP", "lights/c0": "PPP", "doors/new": "F", "lights/crit": "FFF"}
    del now["doors/gone"]
    cand = record({"home": now}, critical=("lights/crit",), dimensions={"doors/c1": {"tier": "gold"}})
    for side, doc in (("base", base), ("cand", cand)):  # outputs: a diff shows both sides' first one
        for suite in doc["suites"]:
            for case in suite["cases"]:
                for i, trial in enumerate(case["trials"]):
                    trial["output"] = f"{side} {case['id']} #{i}"
    return base, cand


@needs_fork
@pytest.mark.parametrize("case_detail", ["all", "listed"])
def test_forked_reader__large_enough__same_comparison_as_in_process(
    tmp_path: Path, record: Any, cases: Any, case_detail: Any, single_threaded: bool
) -> None:
    if not single_threaded:
        return  # it ran, and passed, in a fresh interpreter
    base, cand = pair(record, cases)
    path = write(tmp_path, "base.json", base)
    policy = resolve_policy(repo_config=None, suite_blocks={}, overrides={"critical_cases": ("doors/c3*",)})
    expected = compare_documents(read_document(path), cand, policy, case_detail=case_detail)
    reader = SummaryReader(path, min_bytes=0)
    try:
        assert reader.forked
        summary = reader.result()
        got = compare_documents(summary, summarise_document(cand), policy, case_detail=case_detail)
    finally:
        reader.close()
    assert got.model_dump() == expected.model_dump()
    listed = {d.case_id: d for d in got.suites[0].cases}
    assert {"doors/drop", "doors/gone", "lights/crit"} <= set(listed)
    if case_detail == "all":  # the baseline side's details came from the child
        assert listed["doors/drop"].baseline_output == "base doors/drop #0"
        assert listed["doors/drop"].usage is not None
    else:  # no report of the listed cases shows them
        assert listed["doors/drop"].baseline_output is None and listed["doors/drop"].usage is None


def test_forked_reader__small_file__read_in_this_process(tmp_path: Path, record: Any, cases: Any) -> None:
    base, _ = pair(record, cases)
    reader = SummaryReader(write(tmp_path, "base.json", base))
    assert not reader.forked
    assert [s.header["id"] for s in reader.result().suites] == ["home", "old"]
    reader.close()


@pytest.mark.parametrize("min_bytes", [0, 10**9])
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", r"base\.json:1:2: not valid JSON"),
        (
            json.dumps({"schema": "agent-evals/run@1", "run": {"tool_version": "0.1.0", "started_at": 5}}),
            r"invalid run record at 'run\.started_at': expected a string, found int",
        ),
    ],
)
def test_forked_reader__malformed_record__same_run_record_error(
    tmp_path: Path, text: str, message: str, min_bytes: int
) -> None:
    path = tmp_path / "base.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RunRecordError) as in_process:
        read_document(path)
    reader = SummaryReader(path, min_bytes=min_bytes)
    with pytest.raises(RunRecordError, match=message) as raised:
        reader.result()
    reader.close()
    assert str(raised.value) == str(in_process.value)


@needs_fork
def test_forked_reader__closed_before_its_result__child_ended(
    tmp_path: Path, record: Any, cases: Any, single_threaded: bool
) -> None:
    if not single_threaded:
        return  # it ran, and passed, in a fresh interpreter
    path = write(tmp_path, "base.json", record({"home": cases("doors", 3000, "PPP")}))
    reader = SummaryReader(path, min_bytes=0)
    process = reader._process  # the child, to see that close() did not leave it running
    assert reader.forked and process is not None
    reader.close()  # e.g. the candidate was unreadable: nothing will ask for the baseline
    assert not process.is_alive()
    assert not reader.forked
