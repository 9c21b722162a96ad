"""compare --history on real runs: the HTML report draws the pass rate over the baselines, and only then."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

CLI = str(Path(sys.executable).with_name("agent-evals"))
TREND = 'aria-label="Pass rate over the baselines"'

EVALS = """
import os
from agent_evals import EvalContext, eval

@eval(cases=[{"id": str(i), "input": i} for i in range(20)])
def test_lights(ctx: EvalContext) -> None:
    assert ctx.input >= int(os.environ["FAILING"])
"""


def _cli(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CLI, *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **env}, check=False
    )


def test_compare_history__html_has_the_trend_of_every_run_and_none_without_history(tmp_path: Path) -> None:
    (tmp_path / "eval_lights.py").write_text(textwrap.dedent(EVALS), encoding="utf-8")
    for name, failing in (("old1", "1"), ("old2", "3"), ("base", "0"), ("cand", "5")):
        done = _cli(tmp_path, "run", "eval_lights.py", "-q", "-o", f"{name}.json", FAILING=failing)
        assert done.returncode in (0, 1), done.stderr
    with_history = _cli(
        tmp_path,
        "compare", "base.json", "cand.json", "--history", "old1.json", "--history", "old2.json",
        "--html", "trend.html",
    )  # fmt: skip
    assert with_history.returncode == 1, with_history.stderr
    html = (tmp_path / "trend.html").read_text(encoding="utf-8")
    start = html.index(TREND)
    chart = html[start : html.index("</svg>", start)]
    for rate in ("95.0%", "85.0%", "100.0%", "75.0%"):
        assert rate in chart, rate
    assert chart.count("<circle") == 4
    without = _cli(tmp_path, "compare", "base.json", "cand.json", "--html", "plain.html")
    assert without.returncode == 1, without.stderr
    assert TREND not in (tmp_path / "plain.html").read_text(encoding="utf-8")
