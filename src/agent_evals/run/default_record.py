"""Where ``agent-evals run`` keeps its record when no ``--output`` is given: a new file per run."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

RUNS_DIR = Path(".agent-evals") / "runs"
"""The default folder, relative to the working directory; it ignores itself in git."""

KEEP = 20
"""Default records kept: reserving a new one removes the oldest beyond this many (``-o`` keeps one for good)."""


def reserve_default_record(cwd: Path, now: datetime | None = None) -> Path:
    """A new, empty record file ``.agent-evals/runs/run-YYYYMMDD-HHMMSS.json`` under ``cwd`` (UTC; a
    second run within the same second gets ``-2``, ``-3``...), relative to ``cwd``.

    The file is created here, so two runs started at once never share it; a run that fails before its
    record opens removes it (``RunBuilder.abandon``). Each run gets a file of its own: no later command
    can take an earlier run's record for this one's. The folder holds a ``.gitignore`` of ``*`` so the
    records stay out of commits, and only the :data:`KEEP` newest records (this one included) stay.
    Raises OSError when the folder or the file cannot be created."""
    folder = cwd / RUNS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# run records kept by `agent-evals run` without -o\n*\n", "utf-8")
    stamp = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).strftime("%Y%m%d-%H%M%S")
    for n in range(1, 1000):
        name = f"run-{stamp}.json" if n == 1 else f"run-{stamp}-{n}.json"
        if (folder / f"{name}.partial").exists():  # a run started this second is writing it
            continue
        try:
            with (folder / name).open("x", encoding="utf-8"):
                pass
        except FileExistsError:
            continue
        _prune(folder)
        return RUNS_DIR / name
    raise FileExistsError(f"{folder}: a thousand run records named after {stamp} already exist")


def _prune(folder: Path) -> None:
    """Remove the oldest default records beyond :data:`KEEP` (names sort by time; best effort)."""
    records = sorted(folder.glob("run-*.json"), key=lambda p: (p.name[:19], len(p.name), p.name))
    for old in records[:-KEEP]:
        old.unlink(missing_ok=True)


def default_output(cwd: Path, say: Callable[[str], None] | None) -> str | None:
    """The record's file for a run without ``--output`` (:func:`reserve_default_record`), or None when
    it cannot be created: the run goes on without a record, and ``say`` is told so."""
    try:
        return str(reserve_default_record(cwd))
    except OSError as exc:
        if say is not None:
            say(
                f"note: no run record kept (cannot write {cwd / RUNS_DIR}: {exc.strerror or exc}); pass -o RUN.json"
            )
        return None
