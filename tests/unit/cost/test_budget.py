"""``--budget-usd``: no new trial starts once the recorded cost reaches the limit; the record is
incomplete (reason ``budget``), the run exits 3, and the gate calls it "budget exhausted", never a pass."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_evals.cli.main import cli
from agent_evals.record.model import RunRecord
from agent_evals.run.session import RunBuilder, run_paths
from servers.openai_server import OpenAIServer, TextAnswer

pytest.importorskip("openai")

# gpt-4o: $2.50 per million input tokens, so each trial below costs $0.0025
EVALS = """
import os
import openai
from agent_evals import EvalContext, eval

@eval(cases=[{"id": f"c{n}", "input": n} for n in range(6)])
def test_paid(ctx: EvalContext):
    client = openai.OpenAI(base_url=os.environ["MODEL_URL"], api_key="sk-test")
    client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": str(ctx.input)}])
    ctx.output = "ok"
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openai_server: OpenAIServer) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MODEL_URL", openai_server.base_url)
    monkeypatch.delenv("AGENT_EVALS_BUDGET_USD", raising=False)
    openai_server.responder = lambda body: TextAnswer(
        "ok", usage={"prompt_tokens": 1000, "completion_tokens": 0}
    )
    path = tmp_path / "evals" / "eval_paid.py"
    path.parent.mkdir(parents=True)
    path.write_text(textwrap.dedent(EVALS), encoding="utf-8")
    return tmp_path


def test_budget__stops_starting_trials_once_the_recorded_cost_reaches_it(
    project: Path, openai_server: OpenAIServer
) -> None:
    record = run_paths(["evals"], builder=RunBuilder(env={}), budget_usd=0.006)
    # 0.0025, 0.0050 are under the limit; the third trial brings it to 0.0075; the other three never start
    assert len(openai_server.chat_requests) == 3
    assert [c.id.rsplit("[", 1)[-1] for s in record.suites for c in s.cases] == ["c0]", "c1]", "c2]"]
    assert record.run.complete is False and record.run.incomplete_reason == "budget"
    assert record.run.budget is not None
    assert record.run.budget.spent_usd == pytest.approx(0.0075)
    assert (record.run.budget.limit_usd, record.run.budget.skipped_trials) == (0.006, 3)


def test_budget__not_reached__the_run_is_complete_and_says_what_it_spent(
    project: Path, openai_server: OpenAIServer
) -> None:
    record = run_paths(["evals"], builder=RunBuilder(env={}), budget_usd=1.0)
    assert len(openai_server.chat_requests) == 6
    assert record.run.complete is True and record.run.incomplete_reason is None
    assert record.run.budget is not None and record.run.budget.skipped_trials == 0
    assert record.run.budget.spent_usd == pytest.approx(6 * 0.0025)


def test_run_cli__budget_exhausted__writes_the_record_and_exits_3(project: Path) -> None:
    result = CliRunner().invoke(cli, ["run", "evals", "--budget-usd", "0.004", "-o", "run.json"])
    assert result.exit_code == 3, result.output
    # 0.0025, then 0.0050 reaches the 0.004 budget: the other four trials never start
    assert "Budget exhausted: $0.0050 spent of the $0.004 budget" in result.output
    assert "4 trial(s) not started" in result.output and "recorded" not in result.output
    data = json.loads((project / "run.json").read_text())
    assert data["run"]["complete"] is False and data["run"]["incomplete_reason"] == "budget"


def test_run_cli__budget_from_the_environment_variable_the_action_sets(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_EVALS_BUDGET_USD", "0.004")
    result = CliRunner().invoke(cli, ["run", "evals", "-o", "run.json"])
    assert result.exit_code == 3, result.output


@pytest.mark.parametrize("value", ["0", "-1", "lots"])
def test_run_cli__a_budget_that_is_not_a_positive_amount__is_exit_2(project: Path, value: str) -> None:
    result = CliRunner().invoke(cli, ["run", "evals", "--budget-usd", value])
    assert result.exit_code == 2


def test_gate__a_budget_exhausted_candidate__is_incomplete_exit_3_never_a_pass_or_a_regression(
    project: Path,
) -> None:
    baseline = run_paths(["evals"], builder=RunBuilder(env={}))
    candidate = run_paths(["evals"], builder=RunBuilder(env={}), budget_usd=0.004)
    (project / "base.json").write_text(baseline.to_json())
    (project / "cand.json").write_text(candidate.to_json())
    result = CliRunner().invoke(cli, ["compare", "base.json", "cand.json", "--json", "verdict.json"])
    assert result.exit_code == 3, result.output
    assert "budget exhausted: gate not passed" in result.output
    verdict = json.loads((project / "verdict.json").read_text())
    assert verdict["outcome"] == "incomplete"
    assert not [r for r in verdict["reasons"] if r["kind"] in ("regression", "removed-suite")]
    [reason] = [r for r in verdict["reasons"] if r["kind"] == "incomplete-run" and r["blocking"]]
    assert reason["message"].startswith("Budget exhausted")
    assert "($0.0050 spent of the $0.004 budget)" in reason["message"]
    assert verdict["suites"][0]["counts"]["removed"] == 0


def test_record__budget_fields_are_in_the_schema(project: Path) -> None:
    import jsonschema

    from agent_evals.schemas import load_run_schema

    record = run_paths(["evals"], builder=RunBuilder(env={}), budget_usd=0.004)
    jsonschema.validate(json.loads(record.to_json()), load_run_schema())
    assert RunRecord.model_validate_json(record.to_json()).run.incomplete_reason == "budget"
