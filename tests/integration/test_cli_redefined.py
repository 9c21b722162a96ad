"""A pull request that edits a failing case's expected value so it passes: `compare` names it as redefined."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CLI = str(Path(sys.executable).with_name("agent-evals"))

AGENT = """
from agent_evals import BaseAgent, TaskResult


class Adder(BaseAgent):
    name = "adder"

    async def run_case(self, prompt, **context):
        return TaskResult(output="the answer is 41")
"""

BENCH = """
benchmark: maths
agent: agents:Adder
capabilities:
  - name: sums
    scenarios:
{passing}
      - id: broken
        prompt: "what is 6 * 7?"
        success: {{output: {{contains: "42"}}}}
"""

EVALS = """
from agent_evals import EvalContext, eval


def agent(question):
    return "41"


@eval(target=agent, cases=[{cases}, {{"id": "broken", "input": "6*7", "reference": "42"}}])
def test_answer(ctx: EvalContext):
    assert ctx.output == ctx.reference
"""


def _write(root: Path, bench_expected: str = "42", eval_reference: str = "42") -> None:
    passing = "\n".join(
        f'      - id: ok{i}\n        prompt: "what is 40 + 1? ({i})"\n        success: {{output: {{contains: "41"}}}}'
        for i in range(6)
    )
    bench = BENCH.format(passing=passing).replace('contains: "42"', f'contains: "{bench_expected}"')
    cases = ", ".join(f'{{"id": "ok{i}", "input": "40+1 ({i})", "reference": "41"}}' for i in range(6))
    evals = EVALS.format(cases=cases).replace('"reference": "42"', f'"reference": "{eval_reference}"')
    (root / "agents.py").write_text(textwrap.dedent(AGENT), encoding="utf-8")
    (root / "bench.yaml").write_text(textwrap.dedent(bench), encoding="utf-8")
    (root / "eval_answer.py").write_text(textwrap.dedent(evals), encoding="utf-8")


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CLI, *args], cwd=root, capture_output=True, text=True, timeout=120, check=False)


def _run(root: Path, out: str) -> None:
    done = _cli(root, "run", "bench.yaml", "eval_answer.py", "--quiet", "--output", out)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    """A baseline run (the broken cases fail), then the pull request's run: each broken case's
    expected value edited to what the agent answers, in the benchmark and in the eval file."""
    _write(tmp_path)
    _run(tmp_path, "base.json")
    _write(tmp_path, bench_expected="41", eval_reference="41")
    _run(tmp_path, "cand.json")
    return tmp_path


def test_expected_value_edited_so_a_failing_case_passes__named_as_redefined_in_every_report(
    runs: Path,
) -> None:
    done = _cli(
        runs,
        "compare",
        "base.json",
        "cand.json",
        "--markdown",
        "r.md",
        "--json",
        "v.json",
        "--html",
        "r.html",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cases redefined in 2 suites" in done.stdout
    assert "sums/broken" in done.stdout and "eval_answer.py::test_answer[broken]" in done.stdout
    assert "sums/broken  0/1 -> 1/1  [redefined]" in done.stdout  # in the improved cases too
    markdown = (runs / "r.md").read_text(encoding="utf-8")
    assert "redefined since the baseline" in markdown and "<code>sums/broken</code> **redefined**" in markdown
    assert '<span class="tag warn">redefined</span>' in (runs / "r.html").read_text(encoding="utf-8")
    verdict = json.loads((runs / "v.json").read_text(encoding="utf-8"))
    assert verdict["outcome"] == "warn"
    assert {s["id"]: s["redefined_cases"] for s in verdict["suites"]} == {
        "maths": ["sums/broken"],
        "eval_answer.py": ["eval_answer.py::test_answer[broken]"],
    }
    assert {r["kind"] for r in verdict["reasons"]} >= {"redefined"}


def test_expected_value_edited__on_redefined_cases_fail__exit_1(runs: Path) -> None:
    done = _cli(runs, "compare", "base.json", "cand.json", "--on-redefined-cases", "fail")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "gate failed" in done.stdout and "sums/broken" in done.stdout


def test_same_files_run_again_in_another_process__nothing_redefined(tmp_path: Path) -> None:
    _write(tmp_path)
    _run(tmp_path, "base.json")
    _run(tmp_path, "cand.json")
    done = _cli(
        tmp_path, "compare", "base.json", "cand.json", "--on-redefined-cases", "fail", "--json", "v.json"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    verdict = json.loads((tmp_path / "v.json").read_text(encoding="utf-8"))
    assert all(s["redefined_cases"] == [] for s in verdict["suites"])
    assert "redefined" not in {r["kind"] for r in verdict["reasons"]}
