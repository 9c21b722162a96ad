"""The same figure reads the same in run, compare, report, Markdown and HTML (one formatter for all)."""

from __future__ import annotations

import html
import os
import subprocess
import sys
import textwrap
from pathlib import Path

CLI = str(Path(sys.executable).with_name("agent-evals"))
ROOT = Path(__file__).resolve().parents[2]

NEAR_ONE = """
import os
from agent_evals import EvalContext, eval

@eval(cases=[{"id": str(i), "input": i} for i in range(2000)])
def test_many(ctx: EvalContext) -> None:
    assert not (os.environ.get("VARIANT") == "candidate" and ctx.input == 7)
"""


def _cli(*args: str, cwd: Path, **env: str) -> str:
    done = subprocess.run(
        [CLI, *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **env}, check=False
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def _every_rendering(base: Path, cand: Path, cwd: Path) -> dict[str, str]:
    out = {
        "compare": _cli(
            "compare", str(base), str(cand), "--markdown", "cmp.md", "--html", "cmp.html", cwd=cwd
        ),
        "report md": _cli("report", str(cand), cwd=cwd),
        "report html": html.unescape(_cli("report", str(cand), "--format", "html", cwd=cwd)),
    }
    out["compare md"] = (cwd / "cmp.md").read_text(encoding="utf-8")
    out["compare html"] = html.unescape((cwd / "cmp.html").read_text(encoding="utf-8"))
    return out


def test_demo_runs__pass_rates_read_the_same_in_every_command_and_format(tmp_path: Path) -> None:
    runs = {}
    for agent, name in (("HomeAgent", "base.json"), ("HomeAgentV2", "cand.json")):
        runs[name] = _cli(
            "run",
            "benchmarks/home.yaml",
            "--agent",
            f"home_agent:{agent}",
            "-o",
            str(tmp_path / name),
            cwd=ROOT,
        )
    assert "pass rate 85.4%" in runs["cand.json"]  # 35 of 41 cases
    assert "53.8%" in runs["cand.json"]  # lights: 7 of 13
    rendered = _every_rendering(tmp_path / "base.json", tmp_path / "cand.json", tmp_path)
    for name, text in rendered.items():
        assert "85.4%" in text, name
        assert "53.8%" in text, name
        for other in ("85.37", "85%", "53.85", "54%", "0.854", "0.538"):
            assert other not in text, (name, other)
    for name in ("compare", "compare md", "compare html"):
        assert "-14.6 pp" in rendered[name], name  # the suite's drop, same sign and rounding


def test_a_rate_just_below_one__never_reads_100_percent_anywhere(tmp_path: Path) -> None:
    (tmp_path / "eval_many.py").write_text(textwrap.dedent(NEAR_ONE), encoding="utf-8")
    _cli("run", "eval_many.py", "-q", "-o", "base.json", cwd=tmp_path, VARIANT="baseline")
    run = _cli("run", "eval_many.py", "-o", "cand.json", cwd=tmp_path, VARIANT="candidate")
    assert "pass rate >99.9%" in run  # 1999 of 2000
    rendered = _every_rendering(tmp_path / "base.json", tmp_path / "cand.json", tmp_path)
    for name, text in rendered.items():
        assert ">99.9%" in text, name
    assert "-0.1 pp" in rendered["compare"]  # a one-case drop is not shown as no change
