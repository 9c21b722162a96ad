"""Eval suite ids of records written before ids were relative to the project root, read as the new ones."""

from __future__ import annotations

from agent_evals.record.summary import RunSummary, SuiteSummary
from agent_evals.record.views import CaseView, SuiteView

NEW_IDS = "project-root"
"""``run.suite_ids`` of records whose eval suite ids are relative to the project root."""


def same_file(old: str, new: str) -> bool:
    """Whether an old-style eval suite id (the file's path relative to the working directory of that
    run, or absolute when the file was outside it) can name the file whose new id is ``new``: the same
    path, or one ends with the other at a folder boundary."""
    return old == new or new.endswith("/" + old) or old.endswith("/" + new)


def map_legacy_ids(baseline: RunSummary, candidate: RunSummary) -> RunSummary:
    """The baseline with the eval suite ids of an older record renamed to the candidate's new ones.

    Only when the baseline predates project-root ids and the candidate has them; only eval suites the
    candidate has no suite of the same id for; only when exactly one candidate suite names the same
    file (no guessing between two). The suite's case ids (``<suite id>::<function>[case]``) follow."""
    if baseline.run.get("suite_ids") == NEW_IDS or candidate.run.get("suite_ids") != NEW_IDS:
        return baseline
    base_ids = {s.header["id"] for s in baseline.suites}
    open_ids = [
        s.header["id"]
        for s in candidate.suites
        if s.header.get("kind") == "evals" and s.header["id"] not in base_ids
    ]
    claimed: set[str] = set()
    for suite in baseline.suites:
        old = suite.header["id"]
        if suite.header.get("kind") != "evals" or any(old == s.header["id"] for s in candidate.suites):
            continue
        matches = [new for new in open_ids if same_file(old, new)]
        if len(matches) == 1 and matches[0] not in claimed:
            claimed.add(matches[0])
            _rename(suite, old, matches[0])
    return baseline


def _rename(suite: SuiteSummary, old: str, new: str) -> None:
    suite.header = {**suite.header, "id": new}
    prefix = old + "::"

    def renamed(cid: str) -> str:
        return new + "::" + cid[len(prefix) :] if cid.startswith(prefix) else cid

    view = suite.view
    cases: dict[str, CaseView] = {}
    for cid, case in view.cases.items():
        case.id = renamed(cid)
        cases[case.id] = case
    suite.view = SuiteView(
        cases=cases,
        scorers={
            name: {renamed(cid): tally for cid, tally in per_case.items()}
            for name, per_case in view.scorers.items()
        },
        usage=view.usage,
        groups={g: list(map(renamed, ids)) for g, ids in view.groups.items()},
        dimensions={d: list(map(renamed, ids)) for d, ids in view.dimensions.items()},
    )
