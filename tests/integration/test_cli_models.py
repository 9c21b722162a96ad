"""A pull request that swaps the agent's model (or the judge's): `compare` and `ci` name both sides."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

CLI = str(Path(sys.executable).with_name("agent-evals"))

AGENT = """
import os

from agent_evals import TaskResult


def answer(prompt):
    context = {}
    if os.environ.get("AGENT_MODEL"):
        context["model"] = os.environ["AGENT_MODEL"]
    if os.environ.get("USAGE_MODEL"):
        context["usage"] = {"input_tokens": 12, "output_tokens": 3, "model": os.environ["USAGE_MODEL"]}
    return TaskResult(output="ok", context=context)
"""

JUDGES = """
from agent_evals import Score


class Judge:
    def __init__(self, model):
        self.model = model
        self.name = "judge"

    def __call__(self, result, expected=None, **context):
        return Score(name="judge", value=1.0, passed=True)
"""

BENCH = """
benchmark: helpdesk
agent: agents:answer
capabilities:
  - name: answers
    scenarios:
{scenarios}
"""

EVALS = """
from agent_evals import EvalContext, eval

from agents import answer


@eval(target=answer, cases=[{"id": f"c{i}", "input": f"q{i}"} for i in range(4)])
def test_answer(ctx: EvalContext):
    assert ctx.output == "ok"
"""

SWAP = "model gpt-4o -> gpt-4o-mini"
SWAP_MD = SWAP.replace(">", "&gt;")
"""As the Markdown escapes it (it renders as the arrow)."""


def _write(root: Path, judge: str = "gpt-4o-mini") -> None:
    scenarios = "\n".join(
        f"      - id: s{i}\n        prompt: q{i}\n        success:\n          output: {{contains: ok}}\n"
        f"          scorers:\n            - type: judges:Judge\n              model: {judge}"
        for i in range(4)
    )
    (root / "agents.py").write_text(textwrap.dedent(AGENT), encoding="utf-8")
    (root / "judges.py").write_text(textwrap.dedent(JUDGES), encoding="utf-8")
    (root / "bench.yaml").write_text(textwrap.dedent(BENCH).format(scenarios=scenarios), encoding="utf-8")
    (root / "eval_models.py").write_text(textwrap.dedent(EVALS), encoding="utf-8")


def _cli(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("AGENT_MODEL", "USAGE_MODEL")}
    return subprocess.run(
        [CLI, *args], cwd=root, env={**clean, **env}, capture_output=True, text=True, timeout=180, check=False
    )


def _run(root: Path, out: str, **env: str) -> dict[str, Any]:
    done = _cli(root, "run", "bench.yaml", "eval_models.py", "--quiet", "--output", out, **env)
    assert done.returncode == 0, done.stdout + done.stderr
    record: dict[str, Any] = json.loads((root / out).read_text(encoding="utf-8"))
    return record


def _verdict(root: Path) -> dict[str, Any]:
    verdict: dict[str, Any] = json.loads((root / "v.json").read_text(encoding="utf-8"))
    return verdict


@pytest.fixture
def swapped(tmp_path: Path) -> Path:
    """The baseline's agent names gpt-4o in TaskResult.context["model"]; the pull request's, gpt-4o-mini."""
    _write(tmp_path)
    _run(tmp_path, "base.json", AGENT_MODEL="gpt-4o")
    _run(tmp_path, "cand.json", AGENT_MODEL="gpt-4o-mini")
    return tmp_path


def test_model_swapped_in_task_result_context__recorded_per_suite(swapped: Path) -> None:
    record = json.loads((swapped / "cand.json").read_text(encoding="utf-8"))
    assert {s["id"]: s.get("models") for s in record["suites"]} == {
        "helpdesk": {"agent": ["gpt-4o-mini"], "judge": ["gpt-4o-mini"]},
        "eval_models.py": {"agent": ["gpt-4o-mini"]},
    }


def test_model_swapped__compare_names_both_sides__warns_under_on_mismatch_warn(swapped: Path) -> None:
    done = _cli(swapped, "compare", "base.json", "cand.json", "--json", "v.json", "--markdown", "r.md")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "runs not alike in 2 suites" in done.stdout
    assert done.stdout.count(SWAP) == 2, done.stdout
    verdict = _verdict(swapped)
    assert verdict["outcome"] == "warn"
    fingerprints = [r for r in verdict["reasons"] if r["kind"] == "fingerprint"]
    assert len(fingerprints) == 2 and all(SWAP in r["message"] for r in fingerprints)
    assert all(r["blocking"] is False for r in fingerprints)
    assert all(s["fingerprint_matches"] is False for s in verdict["suites"])
    assert SWAP_MD in (swapped / "r.md").read_text(encoding="utf-8")


def test_model_swapped__compare_on_mismatch_fail__exit_1(swapped: Path) -> None:
    done = _cli(swapped, "compare", "base.json", "cand.json", "--on-mismatch", "fail", "--json", "v.json")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "gate failed" in done.stdout and SWAP in done.stdout
    assert {r["kind"] for r in _verdict(swapped)["reasons"] if r["blocking"]} == {"fingerprint"}


@pytest.mark.parametrize(("mismatch", "code"), [("fail", 1), ("warn", 0)])
def test_model_swapped__ci_decides_by_on_mismatch(swapped: Path, mismatch: str, code: int) -> None:
    done = _cli(
        swapped,
        "ci",
        "bench.yaml",
        "eval_models.py",
        "--baseline",
        "base.json",
        "--on-mismatch",
        mismatch,
        AGENT_MODEL="gpt-4o-mini",
    )
    assert done.returncode == code, done.stdout + done.stderr
    summary = (swapped / ".agent-evals" / "ci" / "report.md").read_text(encoding="utf-8")  # the job summary
    assert summary.count(SWAP_MD) == 2, summary
    assert "Models differ: model gpt-4o -> gpt-4o-mini." in " ".join(done.stdout.split())  # and the log


def test_model_swapped_in_reported_usage__named_like_a_context_model(tmp_path: Path) -> None:
    _write(tmp_path)
    _run(tmp_path, "base.json", USAGE_MODEL="gpt-4o")
    _run(tmp_path, "cand.json", USAGE_MODEL="gpt-4o-mini")
    done = _cli(tmp_path, "compare", "base.json", "cand.json", "--on-mismatch", "fail")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.count(SWAP) == 2, done.stdout


def test_judge_model_swapped__named_as_a_judge_model_change(tmp_path: Path) -> None:
    _write(tmp_path, judge="gpt-4o-mini")
    _run(tmp_path, "base.json", AGENT_MODEL="gpt-4o")
    _write(tmp_path, judge="gpt-4o")
    _run(tmp_path, "cand.json", AGENT_MODEL="gpt-4o")
    done = _cli(tmp_path, "compare", "base.json", "cand.json", "--on-mismatch", "fail", "--json", "v.json")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "judge model gpt-4o-mini -> gpt-4o" in done.stdout
    reasons = [r["message"] for r in _verdict(tmp_path)["reasons"] if r["kind"] == "fingerprint"]
    assert len(reasons) == 1 and "judge model gpt-4o-mini -> gpt-4o" in reasons[0]
    assert SWAP not in reasons[0]  # the agent's model did not change


def test_same_model_run_again__nothing_differs(tmp_path: Path) -> None:
    _write(tmp_path)
    _run(tmp_path, "base.json", AGENT_MODEL="gpt-4o")
    _run(tmp_path, "cand.json", AGENT_MODEL="gpt-4o")
    done = _cli(tmp_path, "compare", "base.json", "cand.json", "--on-mismatch", "fail", "--json", "v.json")
    assert done.returncode == 0, done.stdout + done.stderr
    verdict = _verdict(tmp_path)
    assert verdict["outcome"] == "pass" and verdict["reasons"] == [] and verdict["notes"] == []


def test_baseline_recorded_before_models__a_note_and_the_usual_verdict(tmp_path: Path) -> None:
    _write(tmp_path)
    base = _run(tmp_path, "base.json", AGENT_MODEL="gpt-4o")
    for suite in base["suites"]:
        del suite["models"]  # as a record written before models were kept
    (tmp_path / "base.json").write_text(json.dumps(base), encoding="utf-8")
    _run(tmp_path, "cand.json", AGENT_MODEL="gpt-4o-mini")
    done = _cli(
        tmp_path,
        "compare",
        "base.json",
        "cand.json",
        "--on-mismatch",
        "fail",
        "--json",
        "v.json",
        "--markdown",
        "r.md",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    verdict = _verdict(tmp_path)
    assert verdict["outcome"] == "pass" and verdict["reasons"] == []
    assert "Suite helpdesk: model gpt-4o-mini now, none recorded in the baseline" in done.stdout
    assert any("Suite eval_models.py: model gpt-4o-mini now" in n for n in verdict["notes"])
    assert "ℹ️ Suite helpdesk: model gpt-4o-mini now" in (tmp_path / "r.md").read_text(encoding="utf-8")


def test_candidate_agent_stops_naming_its_model__visible_note_not_a_silent_pass(tmp_path: Path) -> None:
    _write(tmp_path)
    _run(tmp_path, "base.json", AGENT_MODEL="gpt-4o")
    _run(tmp_path, "cand.json")  # the pull request's agent reports nothing
    done = _cli(
        tmp_path, "ci", "bench.yaml", "eval_models.py", "--baseline", "base.json", "--on-mismatch", "fail"
    )
    assert done.returncode == 0, done.stdout + done.stderr  # a note, not a mismatch
    summary = (tmp_path / ".agent-evals" / "ci" / "report.md").read_text(encoding="utf-8")  # the job summary
    assert "(model recorded on one side only in 2 suites)" in summary.splitlines()[1]  # its headline
    assert "ℹ️ Suite helpdesk: model gpt-4o in the baseline, none recorded now" in summary
    log = " ".join(done.stdout.split())
    assert log.startswith("✅ agent-evals: no regression (model recorded on one side only in 2 suites)")
    assert "i Suite helpdesk: model gpt-4o in the baseline, none recorded now" in log
    assert "a change of model cannot be ruled out" in log


def test_hostile_model_name__escaped_in_markdown_and_kept_on_one_line(tmp_path: Path) -> None:
    _write(tmp_path)
    _run(tmp_path, "base.json", AGENT_MODEL="gpt-4o")
    hostile = "mini](https://evil.example) <img src=x onerror=alert(1)> @octocat\n# Approved | ok"
    _run(tmp_path, "cand.json", AGENT_MODEL=hostile)
    done = _cli(tmp_path, "compare", "base.json", "cand.json", "--markdown", "r.md")
    assert done.returncode == 0, done.stdout + done.stderr
    markdown = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert "model gpt-4o -&gt; mini&#93;(https" in markdown
    assert "<img" not in markdown and "](https://evil.example)" not in markdown
    assert "\n# Approved" not in markdown and "@octocat" not in markdown
