"""The fault matrix: a hostile agent (exits, raises odd things, hangs, dies) never turns `run` or `ci` green.

Every row runs the real CLI in its own process with a timeout, for a YAML benchmark and for a code-first
eval file alike. Case ``c1`` carries the fault; its neighbours ``c0`` and ``c2`` answer ``ok``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agent_evals.github.actions_io import parse_outputs
from agent_evals.schemas import load_run_schema

CLI = str(Path(sys.executable).with_name("agent-evals"))
CASES = ("c0", "c1", "c2")
LIMIT_S = 90
"""No row may take longer than this (a hang is a failure, not a wait)."""


@dataclass(frozen=True)
class Fault:
    """What case c1's agent does, and what the trial's error must then say."""

    code: str
    """Python statements run for case c1 (inside the agent function)."""
    error: str
    """Text the errored trial's error contains."""
    is_async: bool = False
    """The agent is ``async def``."""
    timeout_s: float | None = None
    """Per-trial timeout given on the command line."""
    preamble: str = ""
    """Module-level code of the agent module."""


IN_PROCESS: dict[str, Fault] = {
    "sys-exit-0": Fault("sys.exit(0)", "SystemExit: 0"),
    "sys-exit-0-async": Fault("sys.exit(0)", "SystemExit: 0", is_async=True),
    "sys-exit-3": Fault("sys.exit(3)", "SystemExit: 3"),
    "sys-exit-message": Fault("sys.exit('bye')", "SystemExit: bye"),
    "base-exception-subclass": Fault(
        "raise Fatal('deep')", "Fatal: deep", preamble="class Fatal(BaseException):\n    pass\n"
    ),
    "base-exception-subclass-async": Fault(
        "raise Fatal('deep')",
        "Fatal: deep",
        is_async=True,
        preamble="class Fatal(BaseException):\n    pass\n",
    ),
    "plain-exception": Fault("raise ValueError('boom')", "ValueError: boom"),
}


def _agent_module(fault: Fault) -> str:
    head = "import asyncio\nimport os\nimport sys\nimport time\n\n" + fault.preamble + "\n\n"
    body = textwrap.indent(fault.code, "        ")
    prefix = "async " if fault.is_async else ""
    return head + f"{prefix}def answer(prompt):\n    if prompt == 'c1':\n{body}\n    return 'ok'\n"


def _benchmark() -> str:
    lines = ["benchmark: faults", "agent: faulty:answer", "execution:", "  runs_per_scenario: 1"]
    lines += ["capabilities:", "  - name: talk", "    scenarios:"]
    for case in CASES:
        lines += [f"      - id: {case}", f"        prompt: {case}", "        success:"]
        lines += ["          output: {contains: ok}"]
    return "\n".join(lines) + "\n"


def _eval_file(fault: Fault) -> str:
    cases = ", ".join(f'{{"id": "{c}", "input": "{c}"}}' for c in CASES)
    if fault.is_async:
        body = "async def test_agent(ctx: EvalContext):\n    ctx.output = await faulty.answer(ctx.input)\n"
    else:
        body = "def test_agent(ctx: EvalContext):\n    ctx.output = faulty.answer(ctx.input)\n"
    return (
        "import faulty\n\nfrom agent_evals import EvalContext, eval\n\n\n"
        f"@eval(cases=[{cases}])\n{body}    assert ctx.output == 'ok'\n"
    )


@dataclass
class Outcome:
    """One finished CLI process and what it left behind."""

    code: int
    stdout: str
    stderr: str
    seconds: float
    record_path: Path
    outputs: dict[str, str]
    summary: str

    def record(self) -> dict[str, Any]:
        assert self.record_path.is_file(), f"no run record; stderr:\n{self.stderr}"
        doc: dict[str, Any] = json.loads(self.record_path.read_text(encoding="utf-8"))
        jsonschema.validate(doc, load_run_schema())
        return doc

    def trials(self) -> dict[str, dict[str, Any]]:
        """Case name (c0, c1, c2) -> its one trial."""
        found = {}
        for suite in self.record()["suites"]:
            for case in suite["cases"]:
                name = next(c for c in CASES if case["id"].rstrip("]").endswith(c))
                [found[name]] = case["trials"]
        return found


def workspace(tmp: Path, fault: Fault, kind: str) -> Path:
    """A folder with the faulty agent and either a benchmark YAML or an eval file using it."""
    work = tmp / "ws"
    work.mkdir()
    (work / "faulty.py").write_text(_agent_module(fault), encoding="utf-8")
    if kind == "benchmark":
        (work / "faults.yaml").write_text(_benchmark(), encoding="utf-8")
    else:
        (work / "eval_faults.py").write_text(_eval_file(fault), encoding="utf-8")
    return work


def run_cli(tmp: Path, work: Path, command: str, fault: Fault) -> Outcome:
    """``agent-evals run`` or ``agent-evals ci`` (a push to main in an Actions-like environment)."""
    target = "faults.yaml" if (work / "faults.yaml").exists() else "eval_faults.py"
    meta = tmp / "meta"
    meta.mkdir()
    record = meta / "run.json"
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp), "PYTHONDONTWRITEBYTECODE": "1"}
    extra = ["--timeout", f"{fault.timeout_s:g}"] if fault.timeout_s else []
    if command == "run":
        args = [CLI, "run", target, "--output", str(record), *extra]
    else:
        event = meta / "event.json"
        event.write_text(json.dumps({"repository": {"full_name": "octo/demo", "default_branch": "main"}}))
        env |= {
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": "push",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": "octo/demo",
            "GITHUB_API_URL": "http://127.0.0.1:9",
            "GITHUB_SHA": "a" * 40,
            "GITHUB_REF": "refs/heads/main",
            "GITHUB_RUN_ID": "1",
            "GITHUB_JOB": "gate",
            "GITHUB_WORKFLOW_REF": "octo/demo/.github/workflows/gate.yml@refs/heads/main",
            "GITHUB_WORKSPACE": str(work),
            "GITHUB_STEP_SUMMARY": str(meta / "summary.md"),
            "GITHUB_OUTPUT": str(meta / "output.txt"),
        }
        if fault.timeout_s:
            env["AGENT_EVALS_TIMEOUT"] = f"{fault.timeout_s:g}"
        args = [CLI, "ci", target, "--output", str(record), "--output-dir", str(meta / "out")]
    started = time.monotonic()
    proc = subprocess.run(args, cwd=work, env=env, capture_output=True, text=True, timeout=LIMIT_S)
    seconds = time.monotonic() - started
    out_file, summary_file = meta / "output.txt", meta / "summary.md"
    outputs = parse_outputs(out_file.read_text()) if out_file.exists() else {}
    summary = summary_file.read_text() if summary_file.exists() else ""
    return Outcome(proc.returncode, proc.stdout, proc.stderr, seconds, record, outputs, summary)


@pytest.mark.parametrize("command", ["run", "ci"])
@pytest.mark.parametrize("kind", ["benchmark", "eval"])
@pytest.mark.parametrize("fault", list(IN_PROCESS.values()), ids=list(IN_PROCESS))
def test_fault_in_one_trial__that_trial_errored_neighbours_run_record_written_gate_not_green(
    tmp_path: Path, fault: Fault, kind: str, command: str
) -> None:
    outcome = run_cli(tmp_path, workspace(tmp_path, fault, kind), command, fault)
    assert outcome.code == 1, f"exit {outcome.code}\nstdout:\n{outcome.stdout}\nstderr:\n{outcome.stderr}"
    assert "Traceback" not in outcome.stderr
    assert outcome.record()["run"]["complete"] is True
    trials = outcome.trials()
    assert fault.error in (trials["c1"]["error"] or "")
    assert trials["c1"]["passed"] is False
    assert [trials[c]["passed"] for c in ("c0", "c2")] == [True, True]
    if command == "ci":
        assert outcome.outputs["status"] == "failed"
        assert "error budget" in outcome.summary
    else:
        assert "max_error_rate" in outcome.stderr
