"""`ci --reuse-unchanged`: a suite is reused only when every recorded input is unchanged; never evidence."""

from __future__ import annotations

import json
import os
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_evals.ci.flow import CIOptions, CIResult, run_ci
from agent_evals.ci.plan import CIPlan
from agent_evals.ci.record import CIRecord
from agent_evals.ci.reuse import plan_reuse_for
from agent_evals.gate.compare import compare_runs
from agent_evals.gate.policy import resolve_policy
from agent_evals.github.settings import ActionsSettings
from agent_evals.record.model import RunRecord
from agent_evals.record.read import read_record
from agent_evals.report.html import render_html
from agent_evals.report.junit import render_junit
from agent_evals.report.markdown import render_markdown
from agent_evals.report.terminal import render_terminal

HELPER = """from pathlib import Path

PROMPT = (Path(__file__).parent / "prompt.txt").read_text()


def answer(text):
    return "ok" if "ok" in PROMPT else "bad"
"""
EVAL_A = """from agent_evals import EvalContext, eval
from helper import answer


@eval(input="a")
def test_a(ctx: EvalContext):
    ctx.output = answer(ctx.input)
    assert ctx.output == "ok"
"""
BENCH = """benchmark: bench
agent: bench_agent:answer
execution: {runs_per_scenario: 1}
capabilities:
  - name: math
    scenarios:
      - {id: c1, prompt: c1, success: {output: {contains: ok}}}
      - {id: c2, prompt: c2, success: {output: {contains: ok}}}
"""
BENCH_AGENT = """import os


def answer(prompt):
    return "bad" if os.environ.get("BENCH_FAIL") else "ok"
"""


def _project(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)  # the project root, as a checkout has it
    (root / "evals").mkdir()
    (root / "evals" / "helper.py").write_text(HELPER)
    (root / "evals" / "prompt.txt").write_text("say ok\n")
    (root / "evals" / "eval_a.py").write_text(EVAL_A)
    (root / "bench").mkdir()
    (root / "bench" / "bench.yaml").write_text(BENCH)
    (root / "bench" / "bench_agent.py").write_text(BENCH_AGENT)
    (root / "requirements.txt").write_text("requests\n")
    (root / "docs").mkdir()
    (root / "docs" / "notes.md").write_text("notes\n")
    return root


def _env(**extra: str) -> dict[str, str]:
    # PYTHONPATH: the child run is the code under test too (a checkout's, not the installed one: the
    # tool's own files are an input, so a child on other code would change every suite)
    base = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "PYTHONPATH") if k in os.environ}
    return {**base, **extra}


def _ci(root: Path, out: str, env: dict[str, str], **options: object) -> tuple[CIResult, list[str]]:
    lines: list[str] = []
    opts = CIOptions(paths=("evals", "bench"), output_dir=root / ".agent-evals" / out, **options)  # type: ignore[arg-type]
    result = run_ci(opts, env=env, cwd=root, emit=lines.append, emit_err=lambda _line: None)
    return result, lines


def _baseline(root: Path, env: dict[str, str]) -> Path:
    result, lines = _ci(root, "base", env)
    assert result.exit_code == 0, lines
    return root / ".agent-evals" / "base" / "run.json"


def _reused_ids(record_path: Path) -> list[str]:
    record = read_record(record_path)
    return sorted(s.id for s in record.suites if s.reused)


def test_reuse__nothing_changed__every_suite_reused__status_reused_exit_0_and_says_no_evidence(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path / "p")
    base = _baseline(root, _env())
    result, _ = _ci(root, "cand", _env(), baseline=base, reuse_unchanged=True)
    record = root / ".agent-evals" / "cand" / "run.json"
    assert _reused_ids(record) == ["bench", "evals/eval_a.py"]
    assert result.exit_code == 0
    assert result.outputs["status"] == "reused"
    assert result.outputs["pass-rate"] == ""  # no rate from copies
    headline = result.markdown.splitlines()[1]
    assert "nothing ran" in headline and "no new evidence" in headline and "gate passed" not in headline
    verdict = json.loads(Path(result.outputs["verdict-json"]).read_text())
    assert (verdict["verdict"], verdict["exit_code"], verdict["pass_rate"]) == ("reused", 0, None)
    assert sorted(r["suite"] for r in verdict["reused_suites"]) == ["bench", "evals/eval_a.py"]
    # the copies are the baseline's cases, marked with where they came from
    base_record, cand_record = read_record(base), read_record(record)
    by_id = {s.id: s for s in cand_record.suites}
    for suite in base_record.suites:
        assert [c.model_dump() for c in by_id[suite.id].cases] == [c.model_dump() for c in suite.cases]
        assert by_id[suite.id].reused is not None
        assert by_id[suite.id].reused["digest"] == suite.inputs["digest"]  # type: ignore[index]


Change = Callable[[Path, dict[str, str]], None]


def _edit(rel: str, text: str) -> Change:
    def change(root: Path, _env: dict[str, str]) -> None:
        path = root / rel
        path.write_text(path.read_text() + text if path.exists() else text)

    return change


def _set_env(name: str, value: str) -> Change:
    def change(_root: Path, env: dict[str, str]) -> None:
        env[name] = value

    return change


BOTH = ["bench", "evals/eval_a.py"]


# What a suite read counts from the start of the run to its end, planning included (which reads every
# suite file): over-inclusive, never under. Only what the benchmark alone reads later (its agent module)
# leaves the evals reused.
@pytest.mark.parametrize(
    ("change", "runs_again"),
    [
        (_edit("evals/helper.py", "\n# a helper the eval imports\n"), BOTH),
        (_edit("evals/prompt.txt", "now\n"), BOTH),  # a data file the agent reads
        (_edit("evals/eval_a.py", "\n"), BOTH),
        (_edit("bench/bench.yaml", "\n"), BOTH),
        (_edit("bench/bench_agent.py", "\n"), ["bench"]),
        # a new module beside the imported ones could shadow or extend them (a try-import, a glob)
        (_edit("evals/extra.py", "X = 1\n"), BOTH),
        (_edit("requirements.txt", "openai\n"), BOTH),  # a lockfile
        (_edit("uv.lock", "version = 1\n"), BOTH),  # a new lockfile
        (_edit("agent-evals.yaml", "gate: {max_drop: 0.2}\n"), BOTH),  # the policy
        (_set_env("BENCH_FAIL", "1"), BOTH),  # a variable the agent reads
        (_set_env("OPENAI_MODEL", "gpt-x"), BOTH),  # a model name
    ],
    ids=[
        "imported-helper",
        "data-file",
        "eval-file",
        "benchmark-yaml",
        "benchmark-agent",
        "new-file-in-listed-folder",
        "lockfile-edited",
        "lockfile-added",
        "policy-file",
        "env-var-value",
        "env-var-added",
    ],
)
def test_reuse__an_input_changed__the_suites_that_read_it_run_again(
    tmp_path: Path, change: Change, runs_again: list[str]
) -> None:
    root = _project(tmp_path / "p")
    env = _env()
    base = _baseline(root, env)
    change(root, env)
    result, _ = _ci(root, "cand", env, baseline=base, reuse_unchanged=True)
    record = read_record(root / ".agent-evals" / "cand" / "run.json")
    ran = sorted(s.id for s in record.suites if not s.reused)
    assert ran == runs_again
    notes = " ".join(result.markdown.split())
    for sid in ran:
        assert f"Suite {sid.replace('_', '&#95;')} ran:" in notes


def test_reuse__unrelated_file_changed__suites_reused(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    base = _baseline(root, _env())
    (root / "docs" / "notes.md").write_text("edited\n")
    _ci(root, "cand", _env(), baseline=base, reuse_unchanged=True)
    assert _reused_ids(root / ".agent-evals" / "cand" / "run.json") == ["bench", "evals/eval_a.py"]


def test_reuse__reused_suite_never_hides_a_regression_of_a_suite_that_ran(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    base = _baseline(root, _env())
    # every case fails; the new text differs in size, so a bytecode cache written within the same second
    # (Python checks the source's mtime and size) cannot stand in for it
    (root / "bench" / "bench_agent.py").write_text(BENCH_AGENT.replace('"ok"', '"failing"'))
    result, _ = _ci(root, "cand", _env(), baseline=base, reuse_unchanged=True)
    record = root / ".agent-evals" / "cand" / "run.json"
    assert _reused_ids(record) == ["evals/eval_a.py"]
    assert result.outputs["status"] != "reused"
    assert result.outputs["pass-rate"] == "0.0000"  # the copied 100% suite is not in the rate
    assert "1 suite reused, not re-run" in result.markdown.splitlines()[1]


def test_reuse__force__runs_every_suite_and_says_so(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    base = _baseline(root, _env())
    result, _ = _ci(root, "cand", _env(), baseline=base, reuse_unchanged=True, force=True)
    assert _reused_ids(root / ".agent-evals" / "cand" / "run.json") == []
    assert result.outputs["status"] == "passed"
    assert "--force: every suite ran" in result.markdown


def test_reuse__without_the_flag__every_suite_runs(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    base = _baseline(root, _env())
    result, _ = _ci(root, "cand", _env(), baseline=base)
    assert _reused_ids(root / ".agent-evals" / "cand" / "run.json") == []
    assert result.outputs["status"] == "passed"


@pytest.mark.parametrize(
    "plan",
    [
        CIPlan("baseline", compare=False, comment=False, upload_baseline=True),
        CIPlan("run", compare=True, comment=False, upload_baseline=True),  # --update-baseline
        CIPlan("local", compare=False, comment=False, upload_baseline=False),  # nothing to compare with
    ],
    ids=["push-to-default-branch", "update-baseline", "no-baseline"],
)
def test_reuse__when_building_a_baseline__nothing_is_reused(tmp_path: Path, plan: CIPlan) -> None:
    root = _project(tmp_path / "p")
    base = _baseline(root, _env())
    reuse = plan_reuse_for(
        CIOptions(paths=("evals", "bench"), baseline=base, reuse_unchanged=True),
        plan,
        ActionsSettings.from_env({}),
        None,
        "gate",
        CIRecord.read(base),
        root,
        _env(),
        [sys.executable, "-m", "agent_evals", "run", "evals", "bench"],
        None,
    )
    assert reuse.skip_files == [] and reuse.plan is None
    assert "Nothing reused" in reuse.notes[0]


def _records(tmp_path: Path) -> tuple[RunRecord, RunRecord]:
    root = _project(tmp_path / "p")
    base = _baseline(root, _env())
    _ci(root, "cand", _env(), baseline=base, reuse_unchanged=True)
    return read_record(base), read_record(root / ".agent-evals" / "cand" / "run.json")


@pytest.mark.parametrize("forgery", ["digest", "cases"])
def test_compare__reused_mark_that_does_not_hold__suite_is_compared_as_a_run(
    tmp_path: Path, forgery: str
) -> None:
    base, cand = _records(tmp_path)
    suite = next(s for s in cand.suites if s.id == "bench")
    assert suite.reused is not None
    if forgery == "digest":
        suite.reused["digest"] = "0" * 32
    else:  # the "copy" lost its passing trials: a regression dressed as reuse
        for case in suite.cases:
            for trial in case.trials:
                trial.passed = False
    comparison = compare_runs(base, cand, resolve_policy(repo_config=None, suite_blocks={}, overrides={}))
    assert [r.suite_id for r in comparison.reused_suites] == ["evals/eval_a.py"]
    assert [s.suite_id for s in comparison.suites] == ["bench"]
    assert any("marked reused but" in n for n in comparison.notes)
    if forgery == "cases":
        assert comparison.suites[0].candidate.rate == 0.0


def test_compare__reused_suites__kept_out_of_rates_and_tests_in_json(tmp_path: Path) -> None:
    base, cand = _records(tmp_path)
    comparison = compare_runs(base, cand, resolve_policy(repo_config=None, suite_blocks={}, overrides={}))
    assert comparison.suites == [] and comparison.verdict == "reused" and comparison.exit_code == 0
    dumped = json.loads(comparison.model_dump_json())
    assert sorted(r["suite_id"] for r in dumped["reused_suites"]) == ["bench", "evals/eval_a.py"]
    terminal = render_terminal(comparison)
    assert terminal.startswith("♻️ agent-evals: nothing ran")
    assert "reused bench (2 cases copied from the baseline, not re-run, no evidence)" in terminal


def _partly_reused(tmp_path: Path) -> tuple[RunRecord, RunRecord]:
    """The evals suite reused, the benchmark run again (its agent edited, every case now failing)."""
    root = _project(tmp_path / "p")
    base = _baseline(root, _env())
    (root / "bench" / "bench_agent.py").write_text(BENCH_AGENT.replace('"ok"', '"failing"'))
    _ci(root, "cand", _env(), baseline=base, reuse_unchanged=True)
    return read_record(base), read_record(root / ".agent-evals" / "cand" / "run.json")


def _policy(**overrides: object) -> Any:
    return resolve_policy(repo_config=None, suite_blocks={}, overrides=overrides)


def test_reports__a_reused_suite_is_marked_reused_in_markdown_html_and_junit_never_as_passing(
    tmp_path: Path,
) -> None:
    base, cand = _partly_reused(tmp_path)
    comparison = compare_runs(base, cand, _policy())
    assert [r.suite_id for r in comparison.reused_suites] == ["evals/eval_a.py"]
    assert [s.suite_id for s in comparison.suites] == ["bench"]

    markdown = render_markdown(comparison, env={})
    assert "1 suite reused, not re-run" in markdown.splitlines()[1]
    assert "| ♻️ evals/eval&#95;a.py | 1 |" in markdown and "Reused from the baseline, not re-run" in markdown

    html = render_html(comparison, env={})
    assert "Reused from the baseline, not re-run" in html
    assert "<b>evals/eval_a.py</b>" in html and '<span class="tag">reused</span>' in html

    root = ET.fromstring(render_junit(comparison, env={}))
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {"bench", "evals/eval_a.py"}
    reused = suites["evals/eval_a.py"]
    props = {p.get("name"): p.get("value") for p in reused.iter("property")}
    assert props["reused"] == "true" and props["verdict"] == "reused" and props["cases"] == "1"
    [case] = list(reused.iter("testcase"))
    skipped = case.find("skipped")
    assert skipped is not None and "reused, not re-run" in (skipped.get("message") or "")
    assert case.find("failure") is None and case.find("error") is None
    assert (reused.get("tests"), reused.get("skipped"), reused.get("failures")) == ("1", "1", "0")
    # the copied suite's passing case is no testcase that passes: every passing testcase ran here
    passing = [
        tc
        for tc in root.iter("testcase")
        if tc.find("skipped") is None and tc.find("failure") is None and tc.find("error") is None
    ]
    assert all(tc.get("classname", "").startswith("bench") for tc in passing)


def test_compare__every_suite_marked_reused_without_a_baseline__not_a_reused_pass(tmp_path: Path) -> None:
    _, cand = _records(tmp_path)
    assert all(s.reused for s in cand.suites)
    comparison = compare_runs(None, cand, _policy(on_missing_baseline="fail"))
    assert comparison.reused_suites == [] and comparison.verdict != "reused"
    assert sorted(s.suite_id for s in comparison.suites) == ["bench", "evals/eval_a.py"]
    assert comparison.exit_code == 1  # on_missing_baseline: fail applies to what the record holds
    assert any("there is no baseline" in n for n in comparison.notes)
