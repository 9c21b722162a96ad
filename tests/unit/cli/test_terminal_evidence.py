"""A failing case in the terminal shows its failing scorer with what was expected and what the agent
answered, whichever layer wrote the record: a YAML benchmark, a code-first eval file, or the library's
``EvalResult.to_run_record()``."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_evals import Score, TaskResult, run_eval_async
from agent_evals.cli.main import cli
from agent_evals.core.types import ExampleData, ExpectedResult
from agent_evals.record.store import write_record

AGENT = """
def route(prompt):
    return "{answer}"
"""

BENCH = """
benchmark: routing
agent: {module}:route
capabilities:
  - name: route
    scenarios:
      - {{id: bill, prompt: "my invoice", success: {{output: {{equals: billing}}}}}}
"""

EVAL = """
from agent_evals import EvalContext, eval

@eval(input="my invoice", reference="billing")
def test_bill(ctx: EvalContext):
    ctx.output = "{answer}"
    assert ctx.output == ctx.reference
"""


def _invoke(*args: str) -> str:
    done = CliRunner().invoke(cli, list(args))
    assert done.exception is None or isinstance(done.exception, SystemExit), done.output
    return done.output


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _benchmark(root: Path, name: str, answer: str) -> Path:
    (root / f"{name}.py").write_text(AGENT.format(answer=answer), encoding="utf-8")
    path = root / f"{name}.yaml"
    path.write_text(textwrap.dedent(BENCH.format(module=name)), encoding="utf-8")
    return path


def test_output_check__run_and_compare__show_expected_and_what_the_agent_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    good = _benchmark(tmp_path, "router_good_ev", "billing")
    bad = _benchmark(tmp_path, "router_bad_ev", "general")
    _invoke("run", str(good), "-o", "base.json")
    run = _one_line(_invoke("run", str(bad), "-o", "cand.json"))
    assert "output: expected the output to equal 'billing' (expected billing, got general)" in run
    compare = _one_line(_invoke("compare", "base.json", "cand.json"))
    assert "Regressed cases (1):" in compare
    assert "output: expected the output to equal 'billing' (expected billing, got general)" in compare
    assert "(expected , got" not in compare


def test_eval_file__failed_assertion__shows_reference_and_output_not_a_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "eval_route_ev.py").write_text(textwrap.dedent(EVAL.format(answer="general")), "utf-8")
    run = _one_line(_invoke("run", "eval_route_ev.py", "-o", "cand.json"))
    assert "failed: assert ctx.output == ctx.reference (expected billing, got general)" in run
    assert "pass: assert" not in run


def _library_record(answer: str) -> Any:
    def agent(prompt: Any) -> TaskResult:
        return TaskResult(output=answer)

    def equals(result: TaskResult, expected: Any = None) -> Score:
        ok = expected is not None and result.output == expected.expected
        return Score(name="equals", value=float(ok), passed=ok)

    data = [
        ExampleData(input="my invoice", expected=ExpectedResult(expected="billing"), metadata={"id": "bill"})
    ]
    return asyncio.run(run_eval_async(agent, data, [equals])).to_run_record(suite_id="routing")


def test_library_record__compare__shows_expected_and_actual(tmp_path: Path) -> None:
    write_record(tmp_path / "base.json", _library_record("billing"))
    write_record(tmp_path / "cand.json", _library_record("general"))
    compare = _one_line(_invoke("compare", str(tmp_path / "base.json"), str(tmp_path / "cand.json")))
    assert "Regressed cases (1):" in compare
    assert "equals: failed (expected billing, got general)" in compare
