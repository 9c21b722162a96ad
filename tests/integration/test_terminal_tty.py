"""`agent-evals run` on a real terminal (a pseudo-TTY): live counts and an estimate, colours and their switches."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agent_evals.cli.progress import ProgressLine
from agent_evals.report.colour import use_colour

CLI = str(Path(sys.executable).with_name("agent-evals"))
RED = "\x1b[31m"
MAGENTA = "\x1b[35m"

EVALS = """
import time
from agent_evals import EvalContext, eval

@eval(cases=[{"id": str(i), "input": i} for i in range(6)])
def test_slow(ctx: EvalContext) -> None:
    time.sleep(0.35)
    if ctx.input == 4:
        raise RuntimeError("tool server down")
    assert ctx.input != 5
"""


def _in_pty(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Run the CLI with a pseudo-terminal as stdout and stderr; return everything it wrote."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([CLI, *args], cwd=cwd, stdout=follower, stderr=follower, env=env, close_fds=True)
    os.close(follower)
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            proc.kill()
            raise AssertionError("the command wrote nothing for 60s")
        try:
            data = os.read(leader, 65536)
        except OSError:  # the follower side closed: the process is done
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    assert proc.wait(timeout=60) in (0, 1)
    return b"".join(chunks).decode("utf-8", errors="replace")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    return {**env, "TERM": "xterm-256color", **extra}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "eval_slow.py").write_text(textwrap.dedent(EVALS), encoding="utf-8")
    return tmp_path


def test_tty__progress_shows_outcome_counts_and_an_estimate_then_a_coloured_summary(project: Path) -> None:
    out = _in_pty(["run", "eval_slow.py"], project, _env())
    progress = [chunk for chunk in out.split("\r") if chunk.startswith("\x1b[Krunning: ")]
    assert progress, out
    assert any("trials" in p and " passed, " in p and "errored" in p for p in progress)
    assert any("left" in p for p in progress)  # an estimate while trials remain
    assert f"{RED}FAIL\x1b[0m eval_slow.py::test_slow[5]" in out
    assert f"{MAGENTA}ERROR\x1b[0m eval_slow.py::test_slow[4]" in out
    assert "Failures: 2 (use -v for tracebacks)" in out


@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {"TERM": "dumb"}])
def test_tty__no_color_or_dumb_terminal__no_colour(project: Path, env: dict[str, str]) -> None:
    out = _in_pty(["run", "eval_slow.py"], project, _env(**env))
    assert "FAIL eval_slow.py::test_slow[5]" in out
    assert RED not in out and MAGENTA not in out


def test_pipe__force_color__colours_and_no_progress_line(project: Path) -> None:
    done = subprocess.run(
        [CLI, "run", "eval_slow.py"],
        cwd=project,
        capture_output=True,
        text=True,
        env=_env(FORCE_COLOR="1"),
        check=False,
    )
    assert f"{RED}FAIL\x1b[0m" in done.stdout
    assert "running:" not in done.stderr


def test_pipe__plain_by_default_and_verbose_drops_the_traceback_hint(project: Path) -> None:
    done = subprocess.run(
        [CLI, "run", "eval_slow.py", "-v"],
        cwd=project,
        capture_output=True,
        text=True,
        env=_env(),
        check=False,
    )
    assert "\x1b[" not in done.stdout
    assert "Failures: 2\n" in done.stdout and "use -v" not in done.stdout
    assert "RuntimeError: tool server down" in done.stdout


@pytest.mark.parametrize(
    ("env", "tty", "expected"),
    [
        ({}, True, True),
        ({}, False, False),
        ({"NO_COLOR": "1"}, True, False),
        ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, True, False),
        ({"FORCE_COLOR": "1"}, False, True),
        ({"FORCE_COLOR": "0"}, True, True),
        ({"FORCE_COLOR": "0"}, False, False),
        ({"TERM": "dumb"}, True, False),
        ({"TERM": "dumb", "FORCE_COLOR": "1"}, False, True),
        ({"NO_COLOR": ""}, True, True),
    ],
)
def test_use_colour__switches_in_order(env: dict[str, str], tty: bool, expected: bool) -> None:
    class Stream:
        def isatty(self) -> bool:
            return tty

    assert use_colour(Stream(), env) is expected  # type: ignore[arg-type]


def test_progress_line__counts_and_estimate_from_the_tally() -> None:
    import io

    line = ProgressLine(io.StringIO(), tally=lambda: (7, 2, 1)).line(10, 40, 5.0)
    assert line == "running: 10/40 trials 25% | 7 passed, 2 failed, 1 errored | 5s, about 15s left"
    assert ProgressLine(io.StringIO()).line(40, 40, 9.0) == "running: 40/40 trials 100% | 9s"


ROOT = Path(__file__).resolve().parents[2]

WIDE_EVALS = """
import os
from agent_evals import EvalContext, eval

CASES = [
    {"id": f"客厅的灯/一个很长的用例名称-{i}-" + "x" * 70, "input": i} for i in range(8)
]

@eval(cases=CASES)
def test_a_function_name_that_is_rather_long_for_a_terminal(ctx: EvalContext) -> None:
    if os.environ.get("VARIANT") == "candidate" and ctx.input < 5:
        if ctx.input == 0:
            raise RuntimeError("tool server down: " + "connection refused " * 12)
        assert False, "expected the kitchen light on, got " + "漢字" * 60
"""


def _lines(out: str) -> list[str]:
    return [line.rstrip("\r") for line in out.replace("\r\n", "\n").split("\n")]


def _too_wide(out: str) -> list[str]:
    from agent_evals.report.width import display_width

    return [line for line in _lines(out) if display_width(line) > 80]


def test_tty__compare_of_two_real_demo_runs__every_line_fits_80_columns(tmp_path: Path) -> None:
    for agent, name in (("HomeAgent", "base.json"), ("HomeAgentV2", "cand.json")):
        subprocess.run(
            [
                CLI,
                "run",
                "benchmarks/home.yaml",
                "--agent",
                f"home_agent:{agent}",
                "-q",
                "-o",
                str(tmp_path / name),
            ],
            cwd=ROOT,
            check=False,
            capture_output=True,
        )
    out = _in_pty(
        ["compare", str(tmp_path / "base.json"), str(tmp_path / "cand.json")], ROOT, _env(COLUMNS="80")
    )
    assert "Regressed cases (6):" in out and "lights/all-off" in out
    assert f"{RED}" in out  # a real terminal: coloured
    assert not _too_wide(out), "\n".join(_too_wide(out))


def test_tty__run_and_compare_with_long_wide_character_ids__every_line_fits_80_columns(project: Path) -> None:
    (project / "eval_wide.py").write_text(textwrap.dedent(WIDE_EVALS), encoding="utf-8")
    for variant in ("baseline", "candidate"):
        out = _in_pty(["run", "eval_wide.py", "-o", f"{variant}.json"], project, _env(VARIANT=variant))
        summary = [line for line in _lines(out) if not line.startswith("Run: ") and "running: " not in line]
        assert not _too_wide("\n".join(summary)), "\n".join(_too_wide("\n".join(summary)))
    assert "Failures: 5 (use -v for tracebacks)" in out
    out = _in_pty(["compare", "baseline.json", "candidate.json"], project, _env())
    assert "Regressed cases (4):" in out and "Cases with errored trials (1):" in out
    assert "一个很长的用例名称" in out
    assert not _too_wide(out), "\n".join(_too_wide(out))
