"""Processes the child run leaves behind print nothing the runner would take as a workflow command."""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest
from test_cli_ci import CASES, Harness, h  # noqa: F401  # h: the fixture

from servers.github_server import Delay

# Two grandchildren keep the child's stdout: one in its process group, one in a session of its own. Each
# waits for the child to end, then prints workflow commands until its pipe is gone.
AGENT = r"""
import os, subprocess, sys
from pathlib import Path

LEFTOVER = '''
import os, sys, time
from pathlib import Path
name, parent = sys.argv[1], os.getppid()
Path(name + ".pid").write_text(str(os.getpid()))
while os.getppid() == parent:
    time.sleep(0.02)
try:
    for _ in range(600):
        print("::error title=agent-evals::no regression - gate passed", flush=True)
        print("::stop-commands::swallow", flush=True)
        time.sleep(0.05)
except BrokenPipeError:
    Path(name + ".pipe-closed").write_text(str(time.time()))
'''

if os.environ.get("LEFTOVERS_STARTED") is None:
    os.environ["LEFTOVERS_STARTED"] = "1"
    print("agent: started the leftovers", flush=True)
    for name, own_session in (("in-group", False), ("escaped", True)):
        subprocess.Popen([sys.executable, "-c", LEFTOVER, name], start_new_session=own_session, stdin=subprocess.DEVNULL)


def answer(prompt):
    return "bad" if prompt in os.environ.get("FAIL_CASES", "").split(",") else "ok"
"""


def _outside_blocks(stdout: str) -> list[str]:
    """The lines the runner would read as workflow commands (outside every stop-commands block)."""
    honoured, token = [], None
    for line in stdout.splitlines():
        if token is None and (started := re.fullmatch(r"::stop-commands::(.*)", line)):
            token = started.group(1)
        elif token is not None and line == f"::{token}::":
            token = None
        elif token is None and line.startswith("::"):
            honoured.append(line)
    return honoured


def _gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")  # a zombie left to init is dead too


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process groups and /proc")
def test_ci__grandchildren_printing_after_the_child_ended__nothing_honoured_group_killed_pipe_closed(
    h: Harness,  # noqa: F811
) -> None:
    h.add_baseline_run(h.baseline_zip())
    work = h.tmp / "ws"
    (work / "tiny_agent.py").write_text(AGENT)
    h.github.state.delays.append(Delay("POST", "/comments", 4.0))  # ci keeps talking to GitHub meanwhile
    try:
        result = h.run(fail=tuple(CASES[:10]))
        ended = time.time()
        assert result.code == 1, result.stdout + result.stderr
        assert (result.outputs["status"], result.outputs["regressions"]) == ("failed", "10")
        honoured = _outside_blocks(result.stdout)
        # our ten regression annotations, and nothing the leftovers printed
        assert len(honoured) == 10 and all(line.startswith("::error file=bench.yaml,") for line in honoured)
        assert "agent: started the leftovers" in result.stdout  # what the child printed is kept
        # the one in the child's group was killed; the escaped one found our read end closed long
        # before ci ended (it was still waiting on GitHub)
        assert _gone(int((work / "in-group.pid").read_text()))
        closed_at = float((work / "escaped.pipe-closed").read_text())
        assert closed_at < ended - 2.0
    finally:
        for name in ("in-group", "escaped"):
            pid_file = work / f"{name}.pid"
            if pid_file.exists() and not _gone(pid := int(pid_file.read_text())):
                os.kill(pid, signal.SIGKILL)
