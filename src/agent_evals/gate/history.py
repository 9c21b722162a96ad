"""Which earlier run records may stand as the gate's history (``compare --history``, ``ci``'s store)."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_evals.errors import UsageError
from agent_evals.record.model import RunRecord
from agent_evals.record.summary import RunSummary

log = logging.getLogger(__name__)

Recordish = RunRecord | RunSummary | Mapping[str, Any]
"""A run record as a model, a summary or its plain document."""


def _facts(record: Recordish) -> tuple[Mapping[str, Any], dict[str, tuple[Any, Any]]]:
    """A record's ``run`` block, and per suite id what identifies its results: the fingerprint, and
    (from a summary) each case's trial tallies."""
    if isinstance(record, RunRecord):
        return record.run.model_dump(mode="json"), {s.id: (s.fingerprint, None) for s in record.suites}
    if isinstance(record, RunSummary):
        return record.run, {
            str(s.header.get("id")): (
                s.header.get("fingerprint"),
                sorted((cid, view.key) for cid, view in s.view.cases.items()),
            )
            for s in record.suites
        }
    suites = [s for s in record.get("suites") or [] if isinstance(s, Mapping)]
    return record.get("run") or {}, {str(s.get("id")): (s.get("fingerprint"), None) for s in suites}


def _same_run(
    a: tuple[Mapping[str, Any], dict[str, tuple[Any, Any]]],
    b: tuple[Mapping[str, Any], dict[str, tuple[Any, Any]]],
) -> bool:
    """Whether two records are one run: the same start and end, commit, CI run and suites (with the
    same results where both are summaries). Times have a second's resolution, hence the rest."""
    (run_a, suites_a), (run_b, suites_b) = a, b
    if suites_a.keys() != suites_b.keys():
        return False
    for key in ("started_at", "finished_at"):
        if run_a.get(key) != run_b.get(key):
            return False
    for block, key in (("git", "sha"), ("ci", "run_id")):
        first, second = run_a.get(block) or {}, run_b.get(block) or {}
        if first.get(key) != second.get(key):
            return False
    for sid, (fingerprint, cases) in suites_a.items():
        other_fingerprint, other_cases = suites_b[sid]
        if fingerprint != other_fingerprint or (
            cases is not None and other_cases is not None and cases != other_cases
        ):
            return False
    return True


def unfit_history(candidate: Recordish, earlier: Recordish) -> str | None:
    """Why ``earlier`` cannot be history for ``candidate``, None when it can.

    History weighs the candidate's failures against earlier ones (a case that failed before weighs
    less), so the candidate's own run, a slice of a run (a shard), a run that did not finish, or a run
    of other suites would let the candidate vouch for itself or tell nothing."""
    facts, cand = _facts(earlier), _facts(candidate)
    run, suites = facts
    if run.get("shard") is not None:
        return "it is a shard record (one slice of a run; merge the shards into one record first)"
    if run.get("complete", True) is not True:
        return "it is an incomplete record (run.complete: false: some of its cases never ran)"
    if _same_run(facts, cand):
        return "it is the candidate's own run (the same start, end, commit, suites and results)"
    if not suites.keys() & cand[1].keys():
        return "it shares no suite with the candidate"
    return None


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def check_history_files(
    candidate_path: Path, candidate: RunSummary, history: Sequence[tuple[Path, RunSummary]]
) -> None:
    """``compare --history``: refuse (UsageError, exit 2, naming the file) a history file that is the
    candidate itself (the same file, the same bytes, or the same run), a shard record, an incomplete
    record, or a record that shares no suite with the candidate; so ``--history out/*.json`` is safe."""
    own: str | None = None
    for path, earlier in history:
        reason = None
        if path.resolve() == candidate_path.resolve():
            reason = "it is the candidate itself"
        else:
            reason = unfit_history(candidate, earlier)
            if reason is None:
                own = own or _digest(candidate_path)
                if _digest(path) == own:
                    reason = "it has the same content as the candidate"
        if reason is not None:
            raise UsageError(
                f"--history {path}: {reason}; pass only earlier complete baseline records of the same "
                "suites (the candidate's own failures must not count as known ones)"
            )


def fit_history(candidate: Recordish, earlier: Iterable[RunRecord]) -> tuple[list[RunRecord], list[str]]:
    """``ci``: the earlier baselines of the store that may stand as history, and why each other one
    was left out (they come from the trusted store, so one that does not fit is skipped, not an error)."""
    kept: list[RunRecord] = []
    reasons: list[str] = []
    for record in earlier:
        reason = unfit_history(candidate, record)
        if reason is None:
            kept.append(record)
        else:
            sha = record.run.git.sha
            log.info("earlier baseline %s left out of the history: %s", sha or record.run.started_at, reason)
            reasons.append(reason.split(" (")[0].removeprefix("it is ").removeprefix("it "))
    return kept, reasons


def history_note(note: str | None, read: int, reasons: Sequence[str]) -> str:
    """The baseline's selection note with the earlier baselines left out of the history said (and the
    count of those read corrected)."""
    said = f"{read} earlier baseline(s) read as the gate's history"
    counts: dict[str, int] = {}
    for reason in reasons:
        counts[reason] = counts.get(reason, 0) + 1
    why = ", ".join(f"{reason} ({n})" if n > 1 else reason for reason, n in counts.items())
    left = f"{len(reasons)} earlier baseline(s) left out of the history: {why}"
    kept = read - len(reasons)
    rest = (note or "").replace(f"; {said}", "").replace(said, "")
    if kept:
        rest = "; ".join(filter(None, [rest, f"{kept} earlier baseline(s) read as the gate's history"]))
    return "; ".join(filter(None, [left, rest]))  # first: a report shortens a long note at its end
