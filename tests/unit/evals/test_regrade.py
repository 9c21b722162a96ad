"""Regrade: stored outputs re-scored with the current code, the agent never called again."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from agent_evals.errors import EvalFileError
from agent_evals.evals.regrade import regrade_record
from agent_evals.run.session import RunBuilder, run_paths

SOURCE = """
from pathlib import Path
from agent_evals import eval, EvalContext

CALLS = Path(__file__).with_name("calls.txt")

def agent(question):
    with CALLS.open("a") as fh:
        fh.write("called\\n")
    return {{"answer": question.upper(), "words": 2}}

def short_enough(result):
    return {{"key": "short", "passed": result.output["words"] <= {limit}}}

@eval(input="hi there", reference="HI THERE", target=agent, evaluators=[short_enough])
def test_target(ctx: EvalContext):
    assert ctx.output["answer"] == ctx.reference, "wrong answer"

@eval(input="x", evaluators=[short_enough])
def test_inline(ctx: EvalContext):
    ctx.output = agent(ctx.input)
    ctx.store(scores={{"key": "body", "value": 1.0}})
"""


def _write(root: Path, limit: int) -> None:
    (root / "eval_regrade.py").write_text(textwrap.dedent(SOURCE.format(limit=limit)), encoding="utf-8")


def test_regrade__rescores_stored_outputs_with_current_evaluators_without_calling_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, limit=5)
    record = run_paths(["eval_regrade.py"], builder=RunBuilder(env={}))
    assert [c.trials[0].passed for c in record.suites[0].cases] == [True, True]
    calls = (tmp_path / "calls.txt").read_text()

    _write(tmp_path, limit=1)  # a stricter evaluator
    regraded, summary = regrade_record(record, cwd=tmp_path, env={})

    assert (tmp_path / "calls.txt").read_text() == calls
    assert summary.trials == 2 and summary.kept == 0
    target_case, inline_case = regraded.suites[0].cases
    assert target_case.trials[0].passed is False
    assert target_case.trials[0].scores["short"].passed is False
    # the body ended without a score: the automatic pass is added before the evaluators (ezvals)
    assert target_case.trials[0].scores["pass"].source == "auto"
    assert inline_case.trials[0].scores["body"].value == 1.0  # the body's own scores are kept
    assert inline_case.trials[0].scores["short"].passed is False
    assert regraded.suites[0].fingerprint == record.suites[0].fingerprint


def test_regrade__missing_eval_file_is_an_eval_file_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, limit=5)
    record = run_paths(["eval_regrade.py"], builder=RunBuilder(env={}))
    (tmp_path / "eval_regrade.py").unlink()
    with pytest.raises(EvalFileError, match="is not there any more"):
        regrade_record(record, cwd=tmp_path)


def test_regrade__regraded_case_gets_the_current_definition_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A regraded case was judged by the current evaluators: its digest is the current file's (what
    a fresh run records), so `compare` sees the judging changed; not the original run's digest."""
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, limit=5)
    record = run_paths(["eval_regrade.py"], builder=RunBuilder(env={}))
    _write(tmp_path, limit=10)  # another evaluator threshold (and a file of another size)
    regraded, _ = regrade_record(record, cwd=tmp_path, env={})
    fresh = run_paths(["eval_regrade.py"], builder=RunBuilder(env={}))
    before = [c.definition for c in record.suites[0].cases]
    after = [c.definition for c in regraded.suites[0].cases]
    assert all(before) and after == [c.definition for c in fresh.suites[0].cases]
    assert after[0] != before[0] and after[1] != before[1]
