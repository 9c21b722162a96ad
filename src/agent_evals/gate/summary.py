"""Compact summary of one side of a comparison: per-suite case views without the trial objects."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_evals.gate.align import CaseView, RawCase, SuiteView, view_suite
from agent_evals.gate.reader import Document, check_document, gc_paused, read_document
from agent_evals.gate.usage import UsageSums

Details = tuple[Any, ...]
"""A case side's usage sums and first output as a plain tuple (see :func:`details_of`)."""

CaseRequest = tuple[str, list[str], list[str]]
"""(suite id, ids of cases whose details are needed, ids of cases whose raw case is needed)."""

CaseAnswer = tuple[dict[str, Details], dict[str, RawCase]]
"""(details by case id, raw cases by case id) for one :data:`CaseRequest`."""

FetchCases = Callable[[list[CaseRequest]], Callable[[], list[CaseAnswer]]]
"""Start fetching what the requests ask for, for summaries whose views hold no raw cases; the
returned function waits for the answers (in request order), so the caller can work meanwhile."""


def details_of(case: RawCase) -> Details:
    """What a case diff reads of the other side of a case (usage sums, first output), as a plain tuple."""
    view = CaseView(case, "", "", (0, 0, 0), None, False)
    u = view.usage()
    return (
        u.input_tokens,
        u.output_tokens,
        u.cost_usd,
        u.duration_s,
        u.trials,
        u.recorded,
        view.first_output(),
    )


def with_details(view: CaseView, details: Details) -> None:
    """Attach details made by :func:`details_of` to a view."""
    *sums, output = details
    view.details = (UsageSums(*sums), output)


HEADER_FIELDS = ("id", "kind", "source", "fingerprint", "agent", "gate")
"""The fields of a suite (besides its cases) that a comparison reads."""

NO_RAW: dict[str, Any] = {}
"""Stand-in raw case of a view unpacked from another process (the real one is fetched when needed)."""


@dataclass
class SuiteSummary:
    """One suite of a run record: its fields but the cases, its case views and trials per case."""

    header: dict[str, Any]
    """The suite's fields the gate reads (:data:`HEADER_FIELDS`), those the record has."""
    view: SuiteView
    """Per-case views (critical only as recorded; the comparison applies the policy's globs)."""
    trial_counts: list[int]
    """Distinct numbers of trials per case, sorted."""


@dataclass
class RunSummary:
    """A run record as the comparison reads it: the ``run`` block and every suite's summary."""

    run: dict[str, Any]
    """The record's ``run`` block (provenance, completeness)."""
    suites: list[SuiteSummary]
    """Suites in record order."""
    fetch: FetchCases | None = None
    """Where raw cases come from when the views hold none (a summary made in another process)."""


def summarise_document(doc: Document, *, recheck: Callable[[], None] | None = None) -> RunSummary:
    """Summarise a checked run-record document in this process (views keep their raw cases).

    ``recheck``: the document's cases are not checked yet; see ``align.view_suite``."""
    suites = []
    for suite in doc.get("suites", []):
        cases = suite.get("cases", [])
        view = view_suite(suite, recheck=recheck)
        suites.append(
            SuiteSummary(
                header={k: suite[k] for k in HEADER_FIELDS if k in suite},
                view=view,
                trial_counts=sorted({len(c.get("trials", [])) for c in cases}),
            )
        )
    run = doc.get("run")
    return RunSummary(run if isinstance(run, dict) else {}, suites)


def read_summary(path: str | os.PathLike[str]) -> RunSummary:
    """Read a run record file and summarise it, checking its cases in the same walk: the summary, or
    the RunRecordError ``reader.read_document`` raises, word for word.

    With msgspec installed (the ``speed`` extra) the file is decoded straight into typed structs
    (``gate.native``), which the views keep as their raw cases; a record those structs refuse is read
    the standard way, so the outcome never depends on the extra."""
    p = Path(path)
    if native_available():
        from agent_evals.gate.native import read_native

        try:
            raw = p.read_bytes()
        except OSError:
            raw = None  # read_document words the error
        if raw is not None:
            with gc_paused():
                summary = read_native(raw, str(p))
            if summary is not None:
                return summary
    doc = read_document(p, cases=False)
    source = str(p)

    def recheck() -> None:
        check_document(doc, source=source)  # raises the located error of the first problem

    with gc_paused():
        return summarise_document(doc, recheck=recheck)


def native_available() -> bool:
    """Whether msgspec (the ``speed`` extra) is installed; ``AGENT_EVALS_NATIVE=0`` turns its use off."""
    if os.environ.get("AGENT_EVALS_NATIVE", "1") == "0":
        return False
    return importlib.util.find_spec("msgspec") is not None


def local_fetch(summary: RunSummary) -> FetchCases:
    """The summary's own ``fetch``, or one that reads the raw cases its views hold."""
    if summary.fetch is not None:
        return summary.fetch
    by_suite = {s.header["id"]: s.view.cases for s in summary.suites}

    def answer(suite_id: str, detail_ids: list[str], raw_ids: list[str]) -> CaseAnswer:
        views = by_suite[suite_id]
        details = {cid: details_of(views[cid].raw) for cid in detail_ids}
        return details, {cid: views[cid].raw for cid in raw_ids}

    def fetch(requests: list[CaseRequest]) -> Callable[[], list[CaseAnswer]]:
        answers = [answer(*request) for request in requests]
        return lambda: answers

    return fetch
