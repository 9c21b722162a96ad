"""`agent-evals ci` that cannot write a file it must write: a clear message naming it, exit 3, no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CLI = str(Path(sys.executable).with_name("agent-evals"))

AGENT = "def answer(prompt):\n    return 'ok'\n"
BENCH = (
    "benchmark: w\nagent: w_agent:answer\ncapabilities:\n  - name: t\n    scenarios:\n"
    "      - id: a\n        prompt: a\n        success: {output: {contains: ok}}\n"
)


def _ci(tmp: Path, **paths: Path) -> subprocess.CompletedProcess[str]:
    work = tmp / "ws"
    work.mkdir(exist_ok=True)
    (work / "w.yaml").write_text(BENCH, encoding="utf-8")
    (work / "w_agent.py").write_text(AGENT, encoding="utf-8")
    event = tmp / "event.json"
    event.write_text(json.dumps({"repository": {"full_name": "octo/demo", "default_branch": "main"}}))
    env = {
        "PATH": os.environ["PATH"],
        # the code under test, when it is not the installed one (a checkout on PYTHONPATH)
        **{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ},
        "HOME": str(tmp),
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": "octo/demo",
        "GITHUB_API_URL": "http://127.0.0.1:9",
        "GITHUB_SHA": "a" * 40,
        "GITHUB_REF": "refs/heads/main",
        "GITHUB_WORKFLOW_REF": "octo/demo/.github/workflows/gate.yml@refs/heads/main",
        "GITHUB_WORKSPACE": str(work),
        "GITHUB_STEP_SUMMARY": str(paths.get("summary", tmp / "summary.md")),
        "GITHUB_OUTPUT": str(paths.get("output", tmp / "output.txt")),
    }
    out_dir = paths.get("out_dir", tmp / "out")
    return subprocess.run(
        [CLI, "ci", "w.yaml", "--output-dir", str(out_dir)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("output", "cannot write the step outputs (GITHUB_OUTPUT)"),
        ("summary", "cannot write the job summary"),
        ("out_dir", "cannot create"),
    ],
    ids=["GITHUB_OUTPUT", "step-summary", "output-dir"],
)
def test_ci_cannot_write_a_file__exit_3_naming_it_never_a_traceback(
    tmp_path: Path, target: str, words: str
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    # a directory where a file must go, or a folder below a plain file: unwritable for anyone, root included
    bad = {"output": tmp_path, "summary": tmp_path, "out_dir": blocker / "out"}[target]
    done = _ci(tmp_path, **{target: bad})
    assert done.returncode == 3, done.stdout + done.stderr
    assert words in done.stderr and "Traceback" not in done.stderr, done.stderr
