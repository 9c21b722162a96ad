"""`agent-evals ci --confirm-trials`: the report counts what it names (only the flipped cases got the
extra trials; pass@k covers only the cases that have k trials), and a confirmed drop is marked a failure."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

AGENT = """
import os


def answer(prompt):
    return "bad" if prompt in os.environ.get("FAIL_CASES", "").split(",") else "ok"
"""


def _benchmark(cases: int) -> str:
    lines = ["benchmark: tiny", "agent: tiny_wording_agent:answer", "execution:", "  runs_per_scenario: 2"]
    lines += ["capabilities:", "  - name: math", "    scenarios:"]
    for i in range(cases):
        lines += [
            f"      - id: c{i}",
            f"        prompt: c{i}",
            "        success:",
            "          output: {contains: ok}",
        ]
    return "\n".join(lines) + "\n"


def _ci(work: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_evals", "ci", "bench.yaml", *args],
        cwd=work, env=env, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip


def test_ci_confirm__trials_per_case_and_pass_at_k_say_which_cases__confirmed_drop_is_a_failure(
    tmp_path: Path,
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    (work / "bench.yaml").write_text(_benchmark(5), encoding="utf-8")
    (work / "tiny_wording_agent.py").write_text(AGENT, encoding="utf-8")
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PYTHONPATH": str(SRC)}
    first = _ci(work, env)
    assert first.returncode == 0, first.stdout + first.stderr
    (work / "base.json").write_bytes((work / ".agent-evals" / "ci" / "run.json").read_bytes())
    result = _ci(work, {**env, "FAIL_CASES": "c0,c1"}, "--baseline", "base.json", "--confirm-trials", "5")
    assert result.returncode == 1, result.stdout + result.stderr
    markdown = (work / ".agent-evals" / "ci" / "report.md").read_text(encoding="utf-8")
    html = (work / ".agent-evals" / "ci" / "report.html").read_text(encoding="utf-8")
    assert "- ❌ Suite tiny: 2 flipped cases re-run 5 more times" in markdown
    assert "confirmed: the drop holds on all the data" in markdown
    assert "⚠️ Suite tiny: 2 flipped cases" not in markdown
    wording = "2–7 trials per case · pass@7 0.0% · pass^7 0.0% (over the 2 of 5 cases with 7 valid trials)"
    assert wording in markdown
    assert ": 7 trials per case" not in markdown
    assert "2–7 trials per case: pass@7 0.0%" in html
    assert "(over the 2 of 5 cases with 7 valid trials)" in html
