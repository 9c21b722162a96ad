"""`ci` runs the suites as a child `agent-evals run --output FILE`: an agent that exits or crashes kills only it."""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import IO, TYPE_CHECKING

from agent_evals.errors import EXIT_INTERNAL, OutputWriteError, RunRecordError

if TYPE_CHECKING:
    from agent_evals.ci.record import CIRecord
    from agent_evals.github.settings import ActionsSettings

TAIL_LINES = 20
"""Last lines of the child's output kept for the report of a run that died."""

CHILD_GRACE_S = 3.5
"""How long the child run has, after ``ci`` passed a signal on, to write its partial record and end
(it takes about a second; ``ci`` as a whole ends within 5 s of the signal)."""
POLL_S = 0.1
"""How often ``ci`` looks whether a signal came while it waits for the child."""
DRAIN_S = 1.0
"""How long, after the child ended and its process group was killed, its pipes have to reach their end
(only a process that escaped the group keeps them open), and again to be read out; half that when a
signal came."""
DRAIN_BYTES = 1 << 20
"""At most this much is read out of a pipe still held open by such a process before relaying stops."""
CHUNK = 1 << 16
"""Bytes read from a pipe at a time."""

Emit = Callable[[str], None]


@dataclass
class ChildRun:
    """How the child run ended and the record it left (None when it left none)."""

    code: int
    """The child's exit code; negative when a signal killed it (``-9``: SIGKILL, e.g. the OOM killer)."""
    record: CIRecord | None
    """The record it wrote, when one could be read (read, checked and summarised once)."""
    problem: str | None = None
    """Why the record is missing or unreadable."""
    interrupted: int | None = None
    """The signal (SIGINT/SIGTERM) that reached ``ci`` and was passed on to the child."""
    tail: list[str] = field(default_factory=list)
    """Its last output lines (stdout and stderr)."""
    streamed: bool = False
    """The record is the one it streamed while running (``<output>.partial``): it never wrote its final
    record, so it holds the cases finished before the child died, ``complete: false``."""

    @property
    def died(self) -> bool:
        """The child ended some other way than a finished run: 0, 1 (a failed budget) or 3 with its record
        written (an agent whose setup failed: its cases are recorded as errored). A child that left only
        its streamed record died, whatever its exit code."""
        finished = self.code in (0, 1) or (self.code == EXIT_INTERNAL and self.record is not None)
        return self.interrupted is None and (self.streamed or not finished)

    def how(self) -> str:
        """The child's end in words."""
        if self.code < 0:
            try:
                name = signal.Signals(-self.code).name
            except ValueError:
                name = f"signal {-self.code}"
            hint = " (the OOM killer sends SIGKILL)" if -self.code == signal.SIGKILL else ""
            return f"was killed by {name}{hint}"
        return f"exited with code {self.code}"


CHILD_MAIN = (
    "import sys\n"
    "tree = sys.path.pop(0) if sys.path[:1] == [''] else None\n"
    "from agent_evals.cli.main import main\n"
    "if tree is not None:\n"
    "    sys.path.insert(0, tree)\n"
    "main()\n"
)
"""The child's program: ``python -m agent_evals`` with the tool imported before the working directory
(the tree under test) goes first on the path, so a folder named ``agent_evals`` there cannot stand in
for the tool, while the tree's own modules are found as before (``agent: pkg.module:Agent``)."""


def run_command(
    paths: Sequence[str],
    output: Path,
    *,
    agent: str | None,
    trials: int | None,
    concurrency: int | None,
    extra: Sequence[str] = (),
) -> list[str]:
    """The child's command line: this Python running ``agent-evals run`` (:data:`CHILD_MAIN`), the same
    options (``extra``: further ``run`` flags, e.g. ``--retry-errors 2``)."""
    args = [sys.executable, "-c", CHILD_MAIN, "run", *paths, "--output", str(output), "--quiet"]
    if agent:
        args += ["--agent", agent]
    if trials is not None:
        args += ["--trials", str(trials)]
    if concurrency is not None:
        args += ["--concurrency", str(concurrency)]
    return [*args, *extra]


def run_child(
    args: Sequence[str],
    output: Path,
    *,
    env: Mapping[str, str],
    cwd: Path,
    emit: Emit,
    emit_err: Emit,
    in_actions: bool,
    scrub: Callable[[str], str],
) -> ChildRun:
    """Run ``args``, relaying its output, then read the record it wrote at ``output``.

    In GitHub Actions its output is relayed inside a stop-commands block whose token the child never
    sees, so nothing it prints (``::add-mask::``, ``::error::``, ``::stop-commands::``) acts as a
    workflow command. Once the child has ended, its process group is killed and the relay stops
    before the block ends: a line that arrives later (from a process that left the group) is dropped.
    SIGINT and SIGTERM received meanwhile are passed on to the child, which then writes its partial
    record (``complete: false``).
    """
    from agent_evals.record.stream import partial_path

    streamed = partial_path(output)
    for stale in (output, streamed):  # a stale record must never stand in for this run's
        stale.unlink(missing_ok=True)
    pause = f"agent-evals-{uuid.uuid4().hex}"
    if in_actions:
        emit(f"::stop-commands::{pause}")
    tail: deque[str] = deque(maxlen=TAIL_LINES)
    received: list[int] = []
    proc = subprocess.Popen(
        list(args),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # a signal to our group reaches the child once: through us
    )
    assert proc.stdout is not None and proc.stderr is not None
    relay = _Relay([(proc.stdout, emit), (proc.stderr, emit_err)], tail, scrub)

    def forward(signum: int, _frame: FrameType | None) -> None:
        received.append(signum)
        _signal(proc, signal.SIGINT if signum == signal.SIGINT else signal.SIGTERM)

    previous = _install({signal.SIGINT: forward, signal.SIGTERM: forward})
    try:
        code = _wait(proc, received)  # what it left running in its group is killed: no pipe is held
        relay.finish(DRAIN_S / 2 if received else DRAIN_S)  # within the bound of a signal, too
    finally:
        _install(previous)
        # nothing read from here on is relayed: the block ends only once the relay has stopped
        relay.close(lambda: emit(f"::{pause}::") if in_actions else None)
    result = ChildRun(code=code, record=None, interrupted=received[0] if received else None, tail=list(tail))
    for written in (output, streamed):  # a secret it read from elsewhere (a parent's environment)
        redact_file(written, scrub)
    try:
        from agent_evals.ci.record import CIRecord

        if output.is_file():
            result.record = CIRecord.read(output)
        elif streamed.is_file():  # it died mid-run: the cases it finished are in its streamed record
            result.record = CIRecord.read(streamed)
            result.streamed = True
        else:
            result.problem = "it wrote no run record"
    except RunRecordError as exc:
        result.problem = f"its run record is unreadable: {exc}"
    return result


def _wait(proc: subprocess.Popen[bytes], received: list[int]) -> int:
    """The child's exit code, once its process group is killed. Once a signal was passed on, it has
    :data:`CHILD_GRACE_S` to write its partial record and end; one that does not is killed (its
    streamed record stays), so ``ci`` ends within the bound an interrupted ``run`` keeps."""
    signalled: float | None = None
    while not _ended(proc):
        if received and signalled is None:
            signalled = time.monotonic()
        if signalled is not None and time.monotonic() - signalled > CHILD_GRACE_S:
            _signal(proc, signal.SIGKILL)
        time.sleep(POLL_S / 4)
    # the child is not reaped yet (where waitid can wait without reaping): its pid, the id of the group
    # it leads, cannot have been given to another process, so this kills only what it left behind
    _kill_group(proc.pid)
    return proc.wait()


def _ended(proc: subprocess.Popen[bytes]) -> bool:
    """Whether the child has exited, leaving it unreaped where the system can (``waitid`` with
    ``WNOWAIT``); elsewhere it is reaped."""
    if _NO_REAP:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    return proc.poll() is not None


def _signal(proc: subprocess.Popen[bytes], signum: int) -> None:
    """Send ``signum`` to the child without reaping it (``Popen.send_signal`` polls, which reaps)."""
    if not _NO_REAP:
        if proc.poll() is None:
            proc.send_signal(signum)
        return
    with contextlib.suppress(ProcessLookupError):  # a zombie still takes a signal; a reaped child is gone
        os.kill(proc.pid, signum)


_NO_REAP = hasattr(os, "waitid") and hasattr(os, "WNOWAIT")


def redact_file(path: Path, scrub: Callable[[str], str]) -> None:
    """Mask the secrets ``scrub`` knows in the record file at ``path`` (its raw text, as ``run`` masks
    the secrets of its own environment); an unreadable file is left to the reader to report."""
    if not getattr(scrub, "active", True):
        return
    try:
        text = path.read_text("utf-8", "surrogateescape")
    except (OSError, UnicodeDecodeError):
        return
    clean = scrub(text)
    if clean != text:
        writing("the run record", path, lambda: path.write_text(clean, "utf-8", "surrogateescape"))


def died_markdown(child: ChildRun) -> str:
    """What a report adds about a child that died after recording some cases: how it ended, how many
    cases it finished, and its last output lines."""
    from agent_evals.report.escape import escape_code_block

    cases = child.record.case_count() if child.record is not None else 0
    lines = [
        f"The suites did not finish: `agent-evals run` {child.how()} after recording {cases:,} "
        f"case{'' if cases == 1 else 's'}. Those are reported; the rest did not run. This is an "
        "infrastructure error (exit 3), not a pass: rerun the job, or run `agent-evals run` locally "
        "to find the case."
    ]
    if child.tail:
        lines += ["", "<details><summary>Its last output lines</summary>", "", "<pre>"]
        lines += [escape_code_block("\n".join(child.tail)), "</pre>", "", "</details>"]
    return "\n".join(lines) + "\n"


def with_died(comment: str, died: str) -> str:
    """The comment with the died-mid-run note (its first line alone when the rest does not fit)."""
    from agent_evals.report.markdown import fits

    for extra in (died, died.splitlines()[0] + "\n"):
        longer = comment.rstrip("\n") + "\n\n" + extra
        if fits(longer, "comment"):
            return longer
    return comment


def _kill_group(pgid: int) -> None:
    """SIGKILL the child's process group (the child leads its own session), once the child has ended:
    a process it left behind there can neither print into the log nor keep our pipes open."""
    if hasattr(os, "killpg"):
        with contextlib.suppress(ProcessLookupError, PermissionError):  # none left
            os.killpg(pgid, signal.SIGKILL)


class _Relay:
    """Relays the child's stdout and stderr, line by line, until :meth:`close`; nothing after it.

    One thread reads both pipes (and a wake-up pipe) with a selector, so it can be stopped while a
    process that escaped the child's group (its own ``setsid``) still holds them open: it then closes
    our read ends, and what that process prints later is never read, let alone relayed.
    """

    def __init__(
        self, streams: Sequence[tuple[IO[bytes], Emit]], tail: deque[str], scrub: Callable[[str], str]
    ):
        self._tail, self._scrub = tail, scrub
        self._lock = threading.Lock()
        self._open = True
        self._wake_read, self._wake_write = os.pipe()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(list(streams),), daemon=True)
        self._thread.start()

    def finish(self, wait_s: float) -> None:
        """Give the pipes ``wait_s`` to reach their end, then have the thread relay what they hold now
        and stop."""
        self._thread.join(timeout=wait_s)
        self._stop.set()
        with contextlib.suppress(OSError):
            os.write(self._wake_write, b"x")
        self._thread.join(timeout=wait_s or DRAIN_S)

    def close(self, last: Callable[[], object]) -> None:
        """Stop relaying, then run ``last`` (the end of the stop-commands block) with no line in between;
        a line the thread still reads after this is dropped."""
        if not self._stop.is_set():
            self.finish(0)
        with self._lock:
            self._open = False
            last()
        if not self._thread.is_alive():
            with contextlib.suppress(OSError):
                os.close(self._wake_write)
                os.close(self._wake_read)

    def _emit(self, emit: Emit, raw: bytes) -> None:
        line = self._scrub(raw.decode("utf-8", "replace").rstrip("\r\n"))
        with self._lock:
            if self._open:
                self._tail.append(line)
                emit(line)

    def _run(self, streams: list[tuple[IO[bytes], Emit]]) -> None:
        selector = selectors.DefaultSelector()
        pending: dict[int, bytearray] = {}
        for stream, emit in streams:
            os.set_blocking(stream.fileno(), False)
            selector.register(stream.fileno(), selectors.EVENT_READ, (stream, emit))
            pending[stream.fileno()] = bytearray()
        selector.register(self._wake_read, selectors.EVENT_READ, None)
        try:
            while len(selector.get_map()) > 1 and not self._stop.is_set():
                for key, _ in selector.select():
                    if key.data is not None and not self._read(key.data, pending[key.fd], CHUNK):
                        selector.unregister(key.fd)
            for key in [k for k in selector.get_map().values() if k.data is not None]:
                self._read(key.data, pending[key.fd], DRAIN_BYTES)  # what is there now, no more
        finally:
            for stream, emit in streams:
                rest = pending.pop(stream.fileno(), b"")
                if rest:
                    self._emit(emit, bytes(rest))
                stream.close()
            selector.close()

    def _read(self, source: tuple[IO[bytes], Emit], buffer: bytearray, limit: int) -> bool:
        """Relay the whole lines read from the pipe, about ``limit`` bytes at most, until it is empty for
        now (True) or at its end (False)."""
        stream, emit = source
        total = 0
        while True:
            try:
                chunk = os.read(stream.fileno(), CHUNK)
            except BlockingIOError:
                return True
            buffer += chunk
            *lines, rest = buffer.split(b"\n")
            for line in lines:
                self._emit(emit, bytes(line))
            buffer[:] = rest
            total += len(chunk)
            if not chunk:
                return False
            if total >= limit:
                return True


Handler = Callable[[int, FrameType | None], object] | int | None


def _install(handlers: Mapping[int, Handler]) -> dict[int, Handler]:
    """Set signal handlers (main thread only; elsewhere nothing changes) and return the old ones."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    old: dict[int, Handler] = {}
    for signum, handler in handlers.items():
        old[signum] = signal.getsignal(signum)
        signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
    return old


def writing(what: str, path: str | Path, write: Callable[[], object]) -> None:
    """Run ``write``; an OSError (full disk, no permission) becomes an OutputWriteError naming the file."""
    try:
        write()
    except OSError as exc:
        raise OutputWriteError(f"cannot write {what} to {path}: {exc.strerror or exc}") from exc


def make_dirs(folder: Path, what: str) -> None:
    """Create ``folder`` (and parents); a failure is an OutputWriteError naming ``what`` and the path."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputWriteError(f"cannot create {what} {folder}: {exc.strerror or exc}") from exc


def lost_run_markdown(child: ChildRun, gate_id: str) -> str:
    """The report of a run that left no usable record: what happened, and its last output lines."""
    from agent_evals.report.escape import escape_code_block

    if child.interrupted is not None:
        head = f"the run was cancelled ({signal.Signals(child.interrupted).name}) before it wrote a record"
    else:
        head = f"the suites did not finish: `agent-evals run` {child.how()}, and {child.problem}"
    lines = [
        f"<!-- agent-evals:gate:{gate_id} -->",
        f"### ⛔ agent-evals: no verdict: {head}",
        "",
        "This is an infrastructure error (exit 3), not a pass. An agent or eval that ends the process "
        "(a native crash or exit, the OOM killer, a signal) takes the run down with it; rerun the job, or run "
        "`agent-evals run` locally to find the case.",
    ]
    if child.tail:
        lines += ["", "<details><summary>Its last output lines</summary>", "", "<pre>"]
        lines += [escape_code_block("\n".join(child.tail)), "</pre>", "", "</details>"]
    return "\n".join(lines) + "\n"


def report_lost_run(
    child: ChildRun, settings: ActionsSettings, out_dir: Path, gate_id: str, emit: Emit
) -> tuple[dict[str, str], str]:
    """Report a run that left no usable record in the report file and the log (``ci`` decides the exit
    code and publishes the rest: step outputs, job summary, comment).

    Returns the step outputs (status ``error``) and the Markdown.
    """
    from agent_evals.github.actions_io import Annotation

    markdown = lost_run_markdown(child, gate_id)
    report_path = out_dir / "report.md"
    make_dirs(out_dir, "the report folder")
    writing("the report", report_path, lambda: report_path.write_text(markdown, "utf-8", "replace"))
    title = markdown.splitlines()[1].removeprefix("### ⛔ ")
    emit(Annotation("error", title).render() if settings.in_actions else f"error: {title}")
    outputs = {
        "status": "error",
        "pass-rate": "",
        "baseline-pass-rate": "",
        "regressions": "",
        "run-record": "",
        "report": str(report_path),
        "report-dir": str(out_dir),
        "comment-url": "",
        "gate-id": gate_id,
        "upload-baseline": "false",
        "accepted-regression": "false",
        "baseline-run-id": "",
        "baseline-sha": "",
        "baseline-url": "",
    }
    return outputs, markdown
