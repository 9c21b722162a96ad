"""A real SIGINT or SIGTERM ends `agent-evals run` (and `ci`) within 5 s, whatever the trial is doing.

Every row starts the real CLI in its own process. Case ``c0`` answers at once; case ``c1`` gets stuck
(a sync call that never returns, on its own or in the loop's pool or in a thread of its own, an await
that never ends, a retry waiting on ``Retry-After: 60``)
after writing ``started``. The signal goes out then; the process must end on its own, with the
signal's exit code and a readable partial record holding ``c0``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent_evals.github.actions_io import parse_outputs
from agent_evals.record.read import read_record

CLI = str(Path(sys.executable).with_name("agent-evals"))
BOUND_S = 5.0
"""How long the process may take to end once the signal is sent."""
HARD_LIMIT_S = 25.0
"""The row gives up (and kills the process) after this long in all."""

STUCK_SYNC = "threading.Event().wait()"
"""A sync call that never returns."""

HEAD = "import asyncio\nimport threading\nfrom pathlib import Path\n\n"

LIMITED = """
class Limited(Exception):
    status_code = 429
    headers = {"retry-after": "60"}
"""


@dataclass(frozen=True)
class Stuck:
    """How case c1 gets stuck, and the files that make the suite."""

    files: dict[str, str]
    """File name -> text, written in the workspace."""
    target: str
    """What `run` is given."""
    flags: tuple[str, ...] = ()


def _eval_file(body: str, *, is_async: bool, preamble: str = "") -> str:
    prefix = "async " if is_async else ""
    return (
        HEAD
        + "from agent_evals import EvalContext, eval\n"
        + preamble
        + "\n\n@eval(cases=[{'id': 'c0', 'input': 'c0'}, {'id': 'c1', 'input': 'c1'}])\n"
        + f"{prefix}def test_agent(ctx: EvalContext):\n"
        + "    if ctx.input == 'c1':\n"
        + "        Path('started').write_text('x')\n"
        + f"        {body}\n"
        + "    ctx.output = 'ok'\n"
        + "    assert ctx.output == 'ok'\n"
    )


BENCHMARK = """benchmark: signals
agent: stuck_agent:answer
execution: {runs_per_scenario: 1, n_parallel_runs: 1}
capabilities:
  - name: talk
    scenarios:
      - {id: c0, prompt: c0, success: {output: {contains: ok}}}
      - {id: c1, prompt: c1, success: {output: {contains: ok}}}
"""

STUCK_IN_TO_THREAD = "await asyncio.to_thread(threading.Event().wait)"
"""An async caller waiting on a sync call (an SDK without async) that never returns, in the loop's pool."""

STUCK_IN_OWN_THREAD = "worker = threading.Thread(target=threading.Event().wait, daemon=False)\n        worker.start()\n        worker.join()"
"""User code waiting on a (non-daemon) thread of its own that never ends."""


SWALLOWS_CANCEL = (
    "while True:\n            try:\n                await asyncio.sleep(1000)\n"
    "            except BaseException:\n                pass"
)
"""A retry loop that takes its cancellation for one more error: asyncio.run waited for it forever."""


def _agent(body: str, *, is_async: bool) -> str:
    return (
        HEAD
        + f"{'async ' if is_async else ''}def answer(prompt):\n"
        + "    if prompt == 'c1':\n"
        + "        Path('started').write_text('x')\n"
        + f"        {body}\n"
        + "    return 'ok'\n"
    )


STUCK: dict[str, Stuck] = {
    "sync-eval-call-never-returns": Stuck(
        {"eval_stuck.py": _eval_file(STUCK_SYNC, is_async=False)}, "eval_stuck.py"
    ),
    "async-eval-awaits-forever": Stuck(
        {"eval_stuck.py": _eval_file("await asyncio.Event().wait()", is_async=True)}, "eval_stuck.py"
    ),
    "async-eval-to-thread-never-returns": Stuck(
        {"eval_stuck.py": _eval_file(STUCK_IN_TO_THREAD, is_async=True)}, "eval_stuck.py"
    ),
    "sync-eval-own-thread-never-ends": Stuck(
        {"eval_stuck.py": _eval_file(STUCK_IN_OWN_THREAD, is_async=False)}, "eval_stuck.py"
    ),
    "benchmark-agent-stuck-in-sync-code": Stuck(
        {"stuck_agent.py": _agent(STUCK_SYNC, is_async=False), "signals.yaml": BENCHMARK}, "signals.yaml"
    ),
    "benchmark-async-agent-to-thread-never-returns": Stuck(
        {"stuck_agent.py": _agent(STUCK_IN_TO_THREAD, is_async=True), "signals.yaml": BENCHMARK},
        "signals.yaml",
    ),
    "async-eval-swallows-its-cancellation": Stuck(
        {"eval_stuck.py": _eval_file(SWALLOWS_CANCEL, is_async=True)}, "eval_stuck.py"
    ),
    "benchmark-async-agent-swallows-its-cancellation": Stuck(
        {"stuck_agent.py": _agent(SWALLOWS_CANCEL, is_async=True), "signals.yaml": BENCHMARK}, "signals.yaml"
    ),
    "sync-eval-retry-after-60": Stuck(
        {"eval_stuck.py": _eval_file("raise Limited('slow down')", is_async=False, preamble=LIMITED)},
        "eval_stuck.py",
        ("--retry-errors", "2"),
    ),
    "async-eval-retry-after-60": Stuck(
        {"eval_stuck.py": _eval_file("raise Limited('slow down')", is_async=True, preamble=LIMITED)},
        "eval_stuck.py",
        ("--retry-errors", "2"),
    ),
}

SIGNALS = {"SIGINT": (signal.SIGINT, 130), "SIGTERM": (signal.SIGTERM, 143)}


def _environment(tmp: Path) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp),
        "PYTHONDONTWRITEBYTECODE": "1",
        # the code under test, when it is not the installed one (a checkout on PYTHONPATH)
        **{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ},
    }


def _ci_environment(tmp: Path, work: Path) -> dict[str, str]:
    """A push to main in an Actions-like environment (no GitHub reachable: none is needed on a push)."""
    event = tmp / "event.json"
    event.write_text(json.dumps({"repository": {"full_name": "octo/demo", "default_branch": "main"}}))
    return {
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
        "GITHUB_STEP_SUMMARY": str(tmp / "summary.md"),
        "GITHUB_OUTPUT": str(tmp / "output.txt"),
    }


def _signalled(args: list[str], work: Path, env: dict[str, str], signum: int) -> tuple[int, float, str]:
    """Start ``args`` in ``work``, send ``signum`` once c1 started; (exit code, seconds after the signal, stderr)."""
    began = time.monotonic()
    proc = subprocess.Popen(
        args, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        while not (work / "started").exists():
            assert proc.poll() is None, f"exited {proc.returncode} before c1 started: {proc.communicate()}"
            assert time.monotonic() - began < HARD_LIMIT_S - BOUND_S, "case c1 never started"
            time.sleep(0.05)
        time.sleep(0.3)  # into the stuck call (or the retry's wait)
        sent = time.monotonic()
        proc.send_signal(signum)
        try:
            _, stderr = proc.communicate(timeout=max(BOUND_S * 2, HARD_LIMIT_S - (sent - began)))
        except subprocess.TimeoutExpired:
            pytest.fail("the process did not end after the signal (it needed SIGKILL)")
        return proc.returncode, time.monotonic() - sent, stderr
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def _workspace(tmp: Path, stuck: Stuck) -> Path:
    work = tmp / "ws"
    work.mkdir()
    for name, text in stuck.files.items():
        (work / name).write_text(text, encoding="utf-8")
    return work


def _finished_cases(record: Path) -> list[str]:
    run = read_record(record)
    assert run.run.complete is False
    return sorted(c.id.rstrip("]")[-2:] for s in run.suites for c in s.cases)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("name", list(SIGNALS))
@pytest.mark.parametrize("stuck", list(STUCK.values()), ids=list(STUCK))
def test_run__signal_while_a_trial_is_stuck__ends_within_5s_with_its_code_and_a_readable_record(
    tmp_path: Path, stuck: Stuck, name: str
) -> None:
    signum, code = SIGNALS[name]
    work = _workspace(tmp_path, stuck)
    record = tmp_path / "run.json"
    args = [CLI, "run", stuck.target, "--output", str(record), *stuck.flags]
    exit_code, seconds, stderr = _signalled(args, work, _environment(tmp_path), signum)
    assert exit_code == code, stderr
    assert seconds < BOUND_S, f"ended {seconds:.1f}s after the signal"
    assert "Traceback" not in stderr
    assert _finished_cases(record) == ["c0"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("name", list(SIGNALS))
@pytest.mark.parametrize(
    "stuck",
    [STUCK["sync-eval-call-never-returns"], STUCK["benchmark-agent-stuck-in-sync-code"]],
    ids=["sync-eval-call-never-returns", "benchmark-agent-stuck-in-sync-code"],
)
def test_ci__signal_while_its_child_run_is_stuck__both_end_within_5s_with_its_code(
    tmp_path: Path, stuck: Stuck, name: str
) -> None:
    signum, code = SIGNALS[name]
    work = _workspace(tmp_path, stuck)
    record = tmp_path / "run.json"
    args = [CLI, "ci", stuck.target, "--output", str(record), "--output-dir", str(tmp_path / "out")]
    env = _environment(tmp_path) | _ci_environment(tmp_path, work)
    exit_code, seconds, stderr = _signalled(args, work, env, signum)
    assert exit_code == code, stderr
    assert seconds < BOUND_S, f"ended {seconds:.1f}s after the signal"
    assert _finished_cases(record) == ["c0"]
    outputs = parse_outputs((tmp_path / "output.txt").read_text(encoding="utf-8"))
    assert outputs["status"] == "incomplete"
