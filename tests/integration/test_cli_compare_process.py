"""`agent-evals compare` as its own process ends early (no teardown) yet loses no output or report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from agent_evals.cli.main import cli


def _record(codes: str) -> dict[str, Any]:
    cases = [
        {"id": f"doors/c{i}", "group": "doors", "trials": [{"passed": c == "P", "scores": {}}]}
        for i, c in enumerate(codes)
    ]
    return {
        "schema": "agent-evals/run@1",
        "run": {"tool_version": "0.1.0", "started_at": "2026-01-01T00:00:00Z"},
        "suites": [{"id": "home", "kind": "benchmark", "source": "home.yaml", "cases": cases}],
    }


def _reports(folder: Path) -> list[str]:
    return [
        "--markdown", str(folder / "r.md"),
        "--junit", str(folder / "r.xml"),
        "--html", str(folder / "r.html"),
        "--json", str(folder / "r.json"),
    ]  # fmt: skip


def test_compare__console_script__same_output_reports_and_exit_code_as_in_process(tmp_path: Path) -> None:
    base, cand = tmp_path / "b.json", tmp_path / "c.json"
    base.write_text(json.dumps(_record("P" * 100)), encoding="utf-8")
    cand.write_text(json.dumps(_record("F" * 20 + "P" * 80)), encoding="utf-8")
    (tmp_path / "proc").mkdir()
    (tmp_path / "inproc").mkdir()
    exe = Path(sys.executable).parent / "agent-evals"
    proc = subprocess.run(
        [str(exe), "compare", str(base), str(cand), *_reports(tmp_path / "proc")],
        capture_output=True,
        text=True,
        check=False,
    )
    inproc = CliRunner().invoke(cli, ["compare", str(base), str(cand), *_reports(tmp_path / "inproc")])
    assert (proc.returncode, inproc.exit_code) == (1, 1), proc.stderr
    # the same text, but for the report folder each names on its "written to" lines
    assert proc.stdout.replace(str(tmp_path / "proc"), "DIR") == inproc.output.replace(
        str(tmp_path / "inproc"), "DIR"
    )
    assert f"JSON verdict written to {tmp_path / 'proc' / 'r.json'}" in proc.stdout.splitlines()
    for name in ("r.md", "r.xml", "r.html", "r.json"):
        written = (tmp_path / "proc" / name).read_text(encoding="utf-8")
        assert written == (tmp_path / "inproc" / name).read_text(encoding="utf-8"), name
        assert written.strip()
