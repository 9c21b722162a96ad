"""The under-powered note of ``compare`` advises earlier baselines (``--history``) only when none were
given: once five are pooled, it says what would still help (cases, trials, critical cases)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_evals.cli.main import cli


def _record(codes: str, sha: str) -> dict[str, Any]:
    """One suite 'small' of one case per code (P passes its one trial, F fails it)."""
    cases = [
        {
            "id": f"c{i}",
            "group": "g",
            "trials": [{"passed": code == "P", "scores": {"ok": {"passed": code == "P"}}}],
        }
        for i, code in enumerate(codes)
    ]
    return {
        "schema": "agent-evals/run@1",
        "run": {
            "tool_version": "0.1.0",
            "started_at": "2026-01-01T00:00:00Z",
            "git": {"sha": sha, "ref": "main"},
        },
        "suites": [
            {"id": "small", "kind": "benchmark", "source": "s.yaml", "fingerprint": "f", "cases": cases}
        ],
    }


@pytest.mark.parametrize("earlier", [0, 5])
def test_compare__under_powered_suite__advises_history_only_when_none_was_given(
    tmp_path: Path, earlier: int
) -> None:
    paths = []
    for name, codes, sha in [
        *[(f"old{i}.json", "PPPP", f"{i:07d}") for i in range(earlier)],
        ("base.json", "PPPP", "b000000"),
        ("cand.json", "PPPF", "c000000"),
    ]:
        (tmp_path / name).write_text(json.dumps(_record(codes, sha)), encoding="utf-8")
        paths.append(str(tmp_path / name))
    history = [arg for path in paths[:earlier] for arg in ("--history", path)]
    done = CliRunner().invoke(cli, ["compare", paths[-2], paths[-1], *history])
    text = " ".join(done.output.split())
    # said once: in the inconclusive reason, or as the suite's note when no reason carries it
    assert text.count("This suite cannot fail on a drop") + text.count("under 80% power") == 1, text
    if earlier:
        assert f"{earlier} earlier baselines pooled into the test" in text
        assert "--history" not in text
        assert "add cases or trials per case (--trials), or mark the cases that matter critical" in text
    else:
        assert "give earlier baselines (--history)" in text
