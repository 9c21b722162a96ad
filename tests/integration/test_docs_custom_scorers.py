"""docs/benchmarks.md's custom scorer example runs as written: the module and the YAML it shows."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
HEADING = "### Your own scorers: `type: module:function` or `module:Class`"


def _blocks(lang: str) -> list[str]:
    section = DOC.split(HEADING, 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{lang}\n(.*?)```", section, re.S)


def test_docs_custom_scorer_example__runs_and_scores_polite_short_answers(tmp_path: Path) -> None:
    (module,) = _blocks("python")
    (success,) = _blocks("yaml")
    (tmp_path / "my_scorers.py").write_text(module, encoding="utf-8")
    (tmp_path / "agent.py").write_text("def agent(prompt):\n    return prompt\n", encoding="utf-8")
    scenarios = textwrap.indent(success, " " * 8).lstrip()
    bench = f"""benchmark: docs
agent: agent:agent
capabilities:
  - name: talk
    scenarios:
      - id: polite
        prompt: "please pass the salt"
        {scenarios}
      - id: rude
        prompt: "salt. now."
        {scenarios}
"""
    (tmp_path / "bench.yaml").write_text(bench, encoding="utf-8")
    out = tmp_path / "run.json"
    cli = Path(sys.executable).with_name("agent-evals")
    proc = subprocess.run(
        [str(cli), "run", "bench.yaml", "-o", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    cases = {c["id"]: c for s in json.loads(out.read_text(encoding="utf-8"))["suites"] for c in s["cases"]}
    assert [t["passed"] for t in cases["talk/polite"]["trials"]] == [True]
    assert [t["passed"] for t in cases["talk/rude"]["trials"]] == [False]
    assert cases["talk/rude"]["trials"][0]["scores"]["MaxWords"]["passed"] is True
