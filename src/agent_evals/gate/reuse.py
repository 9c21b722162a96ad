"""Reused suites (`ci --reuse-unchanged`) set apart before the comparison: never tested, never evidence."""

from __future__ import annotations

from dataclasses import replace

from agent_evals.gate.model import ReusedSuite
from agent_evals.record.summary import RunSummary, SuiteSummary


def split_reused(
    base: RunSummary | None, cand: RunSummary
) -> tuple[RunSummary | None, RunSummary, list[ReusedSuite], list[str]]:
    """Take the candidate's reused suites out of both sides; returns both sides, the reused suites and notes.

    A suite marked ``reused`` is set apart when its mark holds: the baseline has the suite, its input
    digest is the one the mark names, and every case has the baseline's trial outcomes (a copy). A mark
    that does not hold is dropped with a note and the suite is compared as if it ran. Without a
    baseline no mark can hold: there is nothing to check it against, and setting the suites apart would
    turn a record with every suite marked into a "reused" pass that skips ``on_missing_baseline``.
    """
    marked = [s for s in cand.suites if s.header.get("reused")]
    if not marked:
        return base, cand, [], []
    base_by_id = {s.header["id"]: s for s in base.suites} if base is not None else {}
    reused: list[ReusedSuite] = []
    notes: list[str] = []
    apart: set[str] = set()
    for suite in marked:
        sid = suite.header["id"]
        problem = _mark_problem(suite, base_by_id.get(sid)) if base is not None else "there is no baseline"
        if problem:
            notes.append(f"Suite {sid} is marked reused but {problem}: it is compared as a run.")
            continue
        mark = suite.header["reused"]
        apart.add(sid)
        reused.append(
            ReusedSuite(
                suite_id=sid,
                source=suite.header.get("source"),
                cases=len(suite.view.cases),
                reason=str(mark.get("reason") or "its inputs are unchanged since the baseline"),
                baseline_run_id=_text(mark.get("run_id")),
                baseline_sha=_text(mark.get("sha")),
            )
        )
    cand = replace(cand, suites=[s for s in cand.suites if s.header["id"] not in apart])
    if base is not None:
        base = replace(base, suites=[s for s in base.suites if s.header["id"] not in apart])
    return base, cand, reused, notes


def _mark_problem(suite: SuiteSummary, base_suite: SuiteSummary | None) -> str | None:
    if base_suite is None:
        return "the baseline has no such suite"
    digest = (suite.header.get("reused") or {}).get("digest")
    if not digest or digest != (base_suite.header.get("inputs") or {}).get("digest"):
        return "its input digest is not the baseline's"
    mine = {cid: case.key for cid, case in suite.view.cases.items()}
    theirs = {cid: case.key for cid, case in base_suite.view.cases.items()}
    if mine != theirs:
        return "its cases are not the baseline's"
    return None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
