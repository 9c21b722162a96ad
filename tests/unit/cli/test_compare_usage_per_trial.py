"""Usage figures labelled "per trial" are means per trial in every format ``compare`` writes (the
terminal, the Markdown, the HTML), and a run that measured nothing but zeros prints no usage lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_evals.cli.main import cli

CASES = 20


def _record(cost: float, tokens: int, sha: str) -> dict[str, Any]:
    """One suite of 20 cases in two groups, two passing trials each, each trial costing ``cost``."""
    usage = {"input_tokens": tokens, "output_tokens": 0, "cost_usd": cost}
    cases = [
        {
            "id": f"g{i % 2}/c{i}",
            "group": f"g{i % 2}",
            "trials": [{"passed": True, "scores": {"ok": {"passed": True}}, "usage": usage}] * 2,
        }
        for i in range(CASES)
    ]
    return {
        "schema": "agent-evals/run@1",
        "run": {
            "tool_version": "0.1.0",
            "started_at": "2026-01-01T00:00:00Z",
            "git": {"sha": sha, "ref": "main"},
        },
        "suites": [{"id": "s", "kind": "benchmark", "source": "s.yaml", "fingerprint": "f", "cases": cases}],
    }


def _compare(tmp_path: Path, base: dict[str, Any], cand: dict[str, Any]) -> tuple[str, str, str]:
    for name, data in (("base.json", base), ("cand.json", cand)):
        (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
    md, html = tmp_path / "report.md", tmp_path / "report.html"
    args = ["compare", str(tmp_path / "base.json"), str(tmp_path / "cand.json")]
    done = CliRunner().invoke(cli, [*args, "--markdown", str(md), "--html", str(html)])
    assert done.exception is None or isinstance(done.exception, SystemExit), done.output
    return " ".join(done.output.split()), md.read_text(encoding="utf-8"), html.read_text(encoding="utf-8")


def test_compare__cost_per_trial__is_the_mean_per_trial_in_every_format(tmp_path: Path) -> None:
    terminal, markdown, html = _compare(
        tmp_path, _record(0.01, 100, "b000000"), _record(0.016, 130, "c000000")
    )
    assert "usage s cost per trial: $0.0100 -> $0.0160 (+60.0%;" in terminal
    assert "usage s tokens per trial: 100 -> 130 (+30.0%;" in terminal
    assert "group g0: $0.0100 -> $0.0160 (+60.0%)" in terminal
    assert "$0.2000" not in terminal and "2,000" not in terminal
    assert "| s | cost | $0.0100 | $0.0160 | +60.0% |" in markdown
    assert "| g1 | cost | $0.0100 | $0.0160 | +60.0% |" in markdown
    assert "<td>cost</td><td>$0.0100</td><td>$0.0160</td>" in html
    assert "$0.2000" not in markdown + html


@pytest.mark.parametrize("tokens", [0, 50])
def test_compare__no_cost_measured__no_cost_lines_in_any_format(tmp_path: Path, tokens: int) -> None:
    terminal, markdown, html = _compare(
        tmp_path, _record(0.0, tokens, "b000000"), _record(0.0, tokens, "c000000")
    )
    assert "$0.0000 -> $0.0000" not in terminal
    assert "cost per trial" not in terminal and "| cost |" not in markdown and "<td>cost</td>" not in html
    assert ("tokens per trial: 50 -> 50" in terminal) is (tokens == 50)
    assert "group g0: 0 -> 0" not in terminal
