"""Issue 31: a sync trial stuck past its limit holds one worker, which is replaced: at concurrency 1 the
next trials start at the limit, not when the stuck call returns, and the process exits promptly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

CLI = str(Path(sys.executable).with_name("agent-evals"))
LIMIT_S = 1.0
"""The trial limit; case c1 sleeps 30 s, far past it."""
SLACK_S = 0.1
"""How much earlier than the limit c2's written start may be than c1's (each is written late by a bit)."""
CASES = ("c0", "c1", "c2", "c3", "c4")

AGENT = """
import os
import time

def answer(prompt):
    with open(os.path.join(os.path.dirname(__file__), "starts.txt"), "a") as out:
        out.write(f"{prompt} {time.time()}\\n")
    if prompt == "c1":
        time.sleep(30)
    return "ok"
"""


def _benchmark() -> str:
    lines = ["benchmark: stuck", "agent: agent:answer", "execution:", "  n_parallel_runs: 1"]
    lines += [f"  timeout_s: {LIMIT_S:g}", "capabilities:", "  - name: talk", "    scenarios:"]
    for case in CASES:
        lines += [
            f"      - id: {case}",
            f"        prompt: {case}",
            "        success: {output: {contains: ok}}",
        ]
    return "\n".join(lines) + "\n"


def _eval_file() -> str:
    cases = ", ".join(f'{{"id": "{c}", "input": "{c}"}}' for c in CASES)
    return (
        "import agent\n\nfrom agent_evals import EvalContext, eval\n\n\n"
        f"@eval(cases=[{cases}], timeout={LIMIT_S})\n"
        "def test_agent(ctx: EvalContext):\n    ctx.output = agent.answer(ctx.input)\n"
    )


@pytest.mark.parametrize("kind", ["benchmark", "eval"])
def test_sync_trial_stuck_past_its_limit__concurrency_1__next_trials_start_at_the_limit_and_process_exits(
    tmp_path: Path, kind: str
) -> None:
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    target = tmp_path / ("stuck.yaml" if kind == "benchmark" else "eval_stuck.py")
    target.write_text(_benchmark() if kind == "benchmark" else _eval_file(), encoding="utf-8")
    record = tmp_path / "run.json"
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "PYTHONDONTWRITEBYTECODE": "1",
        **{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ},  # a checkout under test
    }
    started = time.monotonic()
    proc = subprocess.run(
        [CLI, "run", target.name, "--concurrency", "1", "--output", str(record)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=25,  # the stuck call sleeps 30 s: waiting for it would fail here
    )
    seconds = time.monotonic() - started
    assert proc.returncode == 1, proc.stderr  # the errored trial fails the run, nothing else
    assert seconds < 15, "the stuck trial delayed the run or kept the process alive"
    starts = dict(line.split() for line in (tmp_path / "starts.txt").read_text().splitlines())
    assert sorted(starts) == list(CASES)
    waited = float(starts["c2"]) - float(starts["c1"])
    # each start is written a little after its trial began (a thread hand-off, opening the file), and
    # c1's delay may exceed c2's on a busy machine: c2 starts at the limit, within that slack
    assert LIMIT_S - SLACK_S <= waited < LIMIT_S + 1.5, f"c2 started {waited:.3f}s after the stuck c1"
    trials = {}
    for suite in json.loads(record.read_text(encoding="utf-8"))["suites"]:
        for case in suite["cases"]:
            [trials[next(c for c in CASES if case["id"].rstrip("]").endswith(c))]] = case["trials"]
    assert "timed out after 1s" in (trials["c1"]["error"] or "")
    assert [trials[c]["passed"] for c in CASES] == [True, False, True, True, True]
