"""The fault matrix: a hostile agent (exits, raises odd things, hangs, dies) never turns `run` or `ci` green.

Every row runs the real CLI in its own process with a timeout, for a YAML benchmark and for a code-first
eval file alike. Case ``c1`` carries the fault; its neighbours ``c0`` and ``c2`` answer ``ok``.
"""

from __future__ import annotations

import json
import os
import signal
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
    """Per-trial timeout, declared in the benchmark YAML and the @eval."""
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
    "str-raises": Fault(
        "raise Odd()",
        "Odd: <the message could not be read: its __str__ raised RuntimeError>",
        preamble="class Odd(Exception):\n    def __str__(self):\n        raise RuntimeError('no')\n",
    ),
    "lone-surrogate-in-message": Fault("raise ValueError('bad \\ud800 text')", "ValueError: bad \ufffd text"),
    "ten-mb-message": Fault("raise ValueError('x' * 10_000_000)", "characters in all]"),
    # a limit of 3 s, not 1 s: on a loaded machine the quick neighbours must still finish within it
    "sync-hang-past-timeout": Fault("time.sleep(30)", "timed out after 3s", timeout_s=3),
    "async-hang-past-timeout": Fault(
        "await asyncio.sleep(30)", "timed out after 3s", is_async=True, timeout_s=3
    ),
    "async-blocks-the-loop": Fault("time.sleep(6)", "timed out after 3s", is_async=True, timeout_s=3),
    "async-swallows-cancellation": Fault(
        "try:\n    await asyncio.sleep(30)\nexcept asyncio.CancelledError:\n    return 'ok'",
        "timed out after 3s",
        is_async=True,
        timeout_s=3,
    ),
}


def _agent_module(fault: Fault) -> str:
    head = "import asyncio\nimport os\nimport sys\nimport time\n\n" + fault.preamble + "\n\n"
    body = textwrap.indent(fault.code, "        ")
    prefix = "async " if fault.is_async else ""
    return head + f"{prefix}def answer(prompt):\n    if prompt == 'c1':\n{body}\n    return 'ok'\n"


def _benchmark(fault: Fault) -> str:
    lines = ["benchmark: faults", "agent: faulty:answer", "execution:", "  runs_per_scenario: 1"]
    lines += [f"  timeout_s: {fault.timeout_s:g}"] if fault.timeout_s else []
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
        f"@eval(cases=[{cases}], timeout={fault.timeout_s})\n{body}    assert ctx.output == 'ok'\n"
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
    """A folder with the faulty agent and either a benchmark YAML or an eval file using it.

    Its policy tolerates no errored trial (``max_error_rate: 0``), so one fault must fail the gate.
    """
    work = tmp / "ws"
    work.mkdir()
    (work / "agent-evals.yaml").write_text("gate:\n  max_error_rate: 0\n", encoding="utf-8")
    (work / "faulty.py").write_text(_agent_module(fault), encoding="utf-8")
    if kind == "benchmark":
        (work / "faults.yaml").write_text(_benchmark(fault), encoding="utf-8")
    else:
        (work / "eval_faults.py").write_text(_eval_file(fault), encoding="utf-8")
    return work


def run_cli(
    tmp: Path,
    work: Path,
    command: str,
    fault: Fault,
    *,
    signal_when_started: int = 0,
    kill_child: bool = False,
) -> Outcome:
    """``agent-evals run`` or ``agent-evals ci`` (a push to main in an Actions-like environment).

    With ``signal_when_started``, that signal is sent once the agent has written ``started``; with
    ``kill_child``, SIGKILL goes to the process whose id the agent wrote there (ci's child run).
    """
    target = "faults.yaml" if (work / "faults.yaml").exists() else "eval_faults.py"
    meta = tmp / "meta"
    meta.mkdir()
    record = meta / "run.json"
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp),
        "PYTHONDONTWRITEBYTECODE": "1",
        # the code under test, when it is not the installed one (a checkout on PYTHONPATH)
        **{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ},
    }
    if command == "run":
        args = [CLI, "run", target, "--output", str(record)]
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
        args = [CLI, "ci", target, "--output", str(record), "--output-dir", str(meta / "out")]
    started = time.monotonic()
    proc = subprocess.Popen(
        args, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        if signal_when_started or kill_child:
            while not (work / "started").exists() and proc.poll() is None:
                assert time.monotonic() - started < LIMIT_S, "the agent never started"
                time.sleep(0.05)
            time.sleep(0.3)
            if kill_child:
                os.kill(int((work / "started").read_text()), signal.SIGKILL)
            else:
                proc.send_signal(signal_when_started)
        stdout, stderr = proc.communicate(timeout=LIMIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    seconds = time.monotonic() - started
    out_file, summary_file = meta / "output.txt", meta / "summary.md"
    outputs = parse_outputs(out_file.read_text()) if out_file.exists() else {}
    summary = summary_file.read_text() if summary_file.exists() else ""
    return Outcome(proc.returncode, stdout, stderr, seconds, record, outputs, summary)


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
    assert outcome.seconds < 20, "a stuck trial kept the process alive"
    assert len(json.dumps(trials["c1"])) < 100_000
    if command == "ci":
        assert outcome.outputs["status"] == "failed"
        assert "error budget" in outcome.summary
    else:
        assert "max_error_rate" in outcome.stderr


PROCESS: dict[str, Fault] = {
    # the C library's _exit, as a native extension may call it (os._exit is a trial error: below)
    "native-exit-0": Fault("import ctypes\nctypes.CDLL(None)._exit(0)", ""),
    "native-exit-1": Fault("import ctypes\nctypes.CDLL(None)._exit(1)", ""),
    "killed-like-oom": Fault("os.kill(os.getpid(), 9)", ""),
    "native-crash": Fault("import ctypes\nctypes.string_at(0)", ""),
}


@pytest.mark.parametrize("kind", ["benchmark", "eval"])
@pytest.mark.parametrize("fault", list(PROCESS.values()), ids=list(PROCESS))
def test_process_dies_under_ci__exit_3_with_the_streamed_cases_summary_and_outputs_written(
    tmp_path: Path, fault: Fault, kind: str
) -> None:
    work = workspace(tmp_path, Fault("print('last words', flush=True)\n" + fault.code, ""), kind)
    outcome = run_cli(tmp_path, work, "ci", fault)
    assert outcome.code == 3, f"exit {outcome.code}\nstdout:\n{outcome.stdout}\nstderr:\n{outcome.stderr}"
    # the child streamed c0 before c1 killed it: ci reports what it saw, as an incomplete run
    record = outcome.record()
    assert record["run"]["complete"] is False
    trials = outcome.trials()
    assert set(trials) == {"c0"} and trials["c0"]["passed"] is True
    assert outcome.outputs["status"] == "incomplete" and outcome.outputs["upload-baseline"] == "false"
    assert "did not finish" in outcome.summary and "last words" in outcome.summary
    assert "after recording 1 case" in outcome.summary
    assert "::error::" in outcome.stdout and "did not finish" in outcome.stdout
    assert "Traceback" not in outcome.stderr


USER_RAISES: dict[str, Fault] = {
    # issue 30: only a real signal stops a run; whatever user code raises is its trial's error
    "generator-exit": Fault("raise GeneratorExit('closed')", "GeneratorExit: closed"),
    "generator-exit-async": Fault("raise GeneratorExit('closed')", "GeneratorExit: closed", is_async=True),
    "keyboard-interrupt-no-signal": Fault("raise KeyboardInterrupt('mine')", "KeyboardInterrupt: mine"),
    "keyboard-interrupt-no-signal-async": Fault(
        "raise KeyboardInterrupt('mine')", "KeyboardInterrupt: mine", is_async=True
    ),
    "stop-iteration": Fault("raise StopIteration('done')", "StopIteration"),
    "stop-iteration-async": Fault("raise StopIteration('done')", "StopIteration", is_async=True),
    # os._exit in the run's process: it ended the run at once, with exit 0 and no finished record
    "os-exit-0": Fault("import os\nos._exit(0)", "ExitRefused: os._exit(0)"),
    "os-exit-0-async": Fault("import os\nos._exit(0)", "ExitRefused: os._exit(0)", is_async=True),
}


@pytest.mark.parametrize("kind", ["benchmark", "eval"])
@pytest.mark.parametrize("fault", list(USER_RAISES.values()), ids=list(USER_RAISES))
def test_user_code_raises_a_stop_exception_without_a_signal__errored_trial_run_goes_on_record_whole(
    tmp_path: Path, fault: Fault, kind: str
) -> None:
    outcome = run_cli(tmp_path, workspace(tmp_path, fault, kind), "run", fault)
    assert outcome.code == 1, f"exit {outcome.code}\nstdout:\n{outcome.stdout}\nstderr:\n{outcome.stderr}"
    assert "internal error" not in outcome.stderr and "Traceback" not in outcome.stderr
    assert outcome.record()["run"]["complete"] is True
    trials = outcome.trials()
    assert fault.error in (trials["c1"]["error"] or ""), trials["c1"]["error"]
    assert trials["c1"]["passed"] is False
    assert [trials[c]["passed"] for c in ("c0", "c2")] == [True, True]
    assert outcome.seconds < 30


CHILD_AGENT = """
import os
import time
from pathlib import Path


def answer(prompt):
    if prompt == 'c1':
        Path('started').write_text(str(os.getpid()))
        time.sleep(60)
    return 'ok'
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("kind", ["benchmark", "eval"])
def test_child_killed_from_outside_mid_run__ci_exit_3_with_the_cases_it_streamed(
    tmp_path: Path, kind: str
) -> None:
    # as the OOM killer does: SIGKILL to the child `agent-evals run`, not to ci
    work = workspace(tmp_path, Fault("pass", ""), kind)
    (work / "faulty.py").write_text(CHILD_AGENT, encoding="utf-8")
    outcome = run_cli(tmp_path, work, "ci", Fault("", ""), kill_child=True)
    assert outcome.code == 3, f"exit {outcome.code}\nstdout:\n{outcome.stdout}\nstderr:\n{outcome.stderr}"
    assert set(outcome.trials()) == {"c0"}
    assert outcome.record()["run"]["complete"] is False
    assert outcome.outputs["status"] == "incomplete"
    assert "was killed by SIGKILL" in outcome.summary


@pytest.mark.parametrize("kind", ["benchmark", "eval"])
def test_child_dies_on_its_first_case__ci_exit_3_never_0(tmp_path: Path, kind: str) -> None:
    work = workspace(tmp_path, Fault("pass", ""), kind)
    (work / "faulty.py").write_text(
        "import ctypes\n\n\ndef answer(prompt):\n    ctypes.CDLL(None)._exit(0)\n", encoding="utf-8"
    )
    outcome = run_cli(tmp_path, work, "ci", Fault("", ""))
    assert outcome.code == 3, f"exit {outcome.code}\nstdout:\n{outcome.stdout}\nstderr:\n{outcome.stderr}"
    assert outcome.outputs["status"] in ("error", "incomplete")
    assert outcome.outputs["upload-baseline"] == "false"
    assert outcome.summary


WORKFLOW_COMMANDS = ("::add-mask::c0", "::error::pwned", "::stop-commands::agent", "::agent::")


@pytest.mark.parametrize("kind", ["benchmark", "eval"])
def test_child_output_under_ci__inside_a_stop_commands_block_with_an_unguessable_token(
    tmp_path: Path, kind: str
) -> None:
    code = "\n".join(f"print({line!r}, file=sys.stderr)" for line in WORKFLOW_COMMANDS) + "\nreturn 'ok'"
    outcome = run_cli(tmp_path, workspace(tmp_path, Fault(code, ""), kind), "ci", Fault(code, ""))
    assert outcome.code == 0, outcome.stdout + outcome.stderr
    lines = outcome.stdout.splitlines()
    inside: set[int] = set()
    i = 0
    while i < len(lines):
        if lines[i].startswith("::stop-commands::"):
            token = lines[i].removeprefix("::stop-commands::")
            assert len(token) >= 32 and token not in "".join(WORKFLOW_COMMANDS)
            end = lines.index(f"::{token}::", i + 1)
            inside.update(range(i + 1, end))
            i = end
        i += 1
    for command in WORKFLOW_COMMANDS:
        where = [n for n, line in enumerate(lines) if line == command]
        assert where and set(where) <= inside, f"{command!r} outside a stop-commands block"


SLOW_AGENT = """
import asyncio
import sys
from pathlib import Path


async def answer(prompt):
    if prompt == 'c1':
        Path('started').write_text('x')
        await asyncio.sleep(60)
    return 'ok'
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize(("signum", "code"), [(2, 130), (15, 143)], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("command", ["run", "ci"])
@pytest.mark.parametrize("kind", ["benchmark", "eval"])
def test_cancelled_mid_run__partial_record_complete_false_exit_130_or_143(
    tmp_path: Path, kind: str, command: str, signum: int, code: int
) -> None:
    work = workspace(tmp_path, Fault("pass", ""), kind)
    (work / "faulty.py").write_text(SLOW_AGENT, encoding="utf-8")
    if kind == "eval":
        (work / "eval_faults.py").write_text(_eval_file(Fault("", "", is_async=True)), encoding="utf-8")
    outcome = run_cli(tmp_path, work, command, Fault("", ""), signal_when_started=signum)
    assert outcome.code == code, f"exit {outcome.code}\nstdout:\n{outcome.stdout}\nstderr:\n{outcome.stderr}"
    record = outcome.record()
    assert record["run"]["complete"] is False
    trials = outcome.trials()
    assert trials["c0"]["passed"] is True and "c1" not in trials
    if command == "ci":
        assert outcome.outputs["status"] == "incomplete" and outcome.outputs["upload-baseline"] == "false"


@pytest.mark.parametrize("kind", ["benchmark", "eval"])
def test_agent_exception__trimmed_user_frame_traceback_in_the_record_and_in_verbose_output(
    tmp_path: Path, kind: str
) -> None:
    fault = Fault("raise ValueError('boom')", "ValueError: boom")
    work = workspace(tmp_path, fault, kind)
    outcome = run_cli(tmp_path, work, "run", fault)
    trace = outcome.trials()["c1"]["traceback"] or ""
    assert trace.startswith("Traceback (user frames only):") and "faulty.py" in trace
    assert "agent_evals" not in trace and trace.endswith("ValueError: boom")
    target = "faults.yaml" if kind == "benchmark" else "eval_faults.py"
    verbose = subprocess.run(
        [CLI, "run", target, "-v"], cwd=work, capture_output=True, text=True, timeout=LIMIT_S
    )
    assert "Traceback (user frames only):" in verbose.stdout and "faulty.py" in verbose.stdout


SCORER_FAULTS: dict[str, tuple[str, str]] = {
    # a sync scorer stuck past the trial's limit: errored at the limit, the process still exits promptly
    "sync-scorer-hangs": ("def check(result, expected=None):\n    time.sleep(60)\n", "timed out after 1s"),
    # an async scorer that blocks the event loop: errored with the time it took, never passed
    "async-scorer-blocks-the-loop": (
        "async def check(result, expected=None):\n    time.sleep(4)\n    return Score(name='check', value=1.0, passed=True)\n",
        "timed out after 1s",
    ),
    "async-scorer-hangs": (
        "async def check(result, expected=None):\n    await asyncio.sleep(60)\n",
        "timed out after 1s",
    ),
    "sync-scorer-exits": ("def check(result, expected=None):\n    sys.exit(0)\n", "SystemExit: 0"),
}


@pytest.mark.parametrize("command", ["run", "ci"])
@pytest.mark.parametrize("fault", list(SCORER_FAULTS), ids=list(SCORER_FAULTS))
def test_benchmark_scorer_fault__through_the_executor_with_the_trial_limit__errored_not_hung(
    tmp_path: Path, fault: str, command: str
) -> None:
    code, error = SCORER_FAULTS[fault]
    work = workspace(tmp_path, Fault("pass", "", timeout_s=1), "benchmark")
    (work / "slow_scorer.py").write_text(
        "import asyncio\nimport sys\nimport time\n\nfrom agent_evals import Score\n\n\n" + code,
        encoding="utf-8",
    )
    bench = (work / "faults.yaml").read_text(encoding="utf-8")
    lines = bench.splitlines()
    at = lines.index("      - id: c1")  # then its prompt, `success:` and the output check
    lines.insert(at + 4, "          scorers: [{type: 'slow_scorer:check'}]")  # beside the output check
    (work / "faults.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    outcome = run_cli(tmp_path, work, command, Fault("", ""))
    assert outcome.code == 1, f"exit {outcome.code}\nstdout:\n{outcome.stdout}\nstderr:\n{outcome.stderr}"
    trials = outcome.trials()
    assert error in (trials["c1"]["error"] or ""), trials["c1"]
    assert trials["c1"]["passed"] is False
    assert [trials[c]["passed"] for c in ("c0", "c2")] == [True, True]
    assert outcome.seconds < 30, "a stuck scorer kept the process alive"
