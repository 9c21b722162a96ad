"""Ctrl-C during a YAML benchmark: `agent-evals run --output` keeps the finished cases, marked incomplete."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import jsonschema

from agent_evals.schemas import load_run_schema

CLI = str(Path(sys.executable).with_name("agent-evals"))

AGENT = """
import asyncio
from pathlib import Path

from agent_evals import BaseAgent, TaskResult


class SlowAgent(BaseAgent):
    name = "slow"

    async def run_case(self, prompt, **context):
        if prompt == "wait":
            Path("started").write_text("x")
            await asyncio.sleep(60)
        return TaskResult(output="hi")
"""

BENCH = """
benchmark: patience
agent: slow_agent:SlowAgent
execution: {runs_per_scenario: 2, n_parallel_runs: 1}
capabilities:
  - name: talk
    scenarios:
      - id: first
        prompt: "say hi"
        success: {output: {contains: hi}}
      - id: second
        prompt: "hi again"
        success: {output: {contains: hi}}
      - id: stuck
        prompt: "wait"
        success: {output: {contains: hi}}
"""


def test_ctrl_c_during_benchmark__record_keeps_finished_cases_marked_incomplete(tmp_path: Path) -> None:
    (tmp_path / "slow_agent.py").write_text(textwrap.dedent(AGENT), encoding="utf-8")
    (tmp_path / "bench.yaml").write_text(textwrap.dedent(BENCH).lstrip(), encoding="utf-8")
    out = tmp_path / "run.json"
    proc = subprocess.Popen(
        [CLI, "run", "bench.yaml", "--output", str(out)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    deadline = time.monotonic() + 30
    while not (tmp_path / "started").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "(interrupted: partial results)" in stdout
    record = json.loads(out.read_text(encoding="utf-8"))
    jsonschema.validate(record, load_run_schema())
    assert record["run"]["complete"] is False
    [suite] = record["suites"]
    assert (suite["id"], suite["kind"]) == ("patience", "benchmark")
    assert [(c["id"], len(c["trials"])) for c in suite["cases"]] == [("talk/first", 2), ("talk/second", 2)]
    assert all(t["passed"] for c in suite["cases"] for t in c["trials"])
