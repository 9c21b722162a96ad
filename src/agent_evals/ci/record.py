"""The run record `ci` gates on: read once, checked and summarised once, edited as plain JSON objects."""

from __future__ import annotations

import gc
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_evals.record.model import RunRecord
    from agent_evals.record.read import Document
    from agent_evals.record.summary import RunSummary, SuiteSummary


@dataclass
class CIRecord:
    """A run record as ``ci`` holds it: the decoded document (what is written back and uploaded) and its
    summary (what the comparison reads), built in one walk and kept in step by the edits below.

    The summary's ``run`` block is the document's own object; each suite summary's header is a copy of
    its suite's fields, so an edit of a suite changes both."""

    document: Document
    summary: RunSummary

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> CIRecord:
        """Read, check and summarise a run record file (a RunRecordError names what is wrong and where)."""
        from agent_evals.record.read import gc_paused, read_data
        from agent_evals.record.summary import summarise

        with gc_paused():  # millions of acyclic objects: the collector's passes would find nothing
            data = read_data(path)
            record = cls(data, summarise(data, str(path)))
            # ci keeps the record to its end: moved out of the collector's generations, it is never
            # scanned again (each later pass would walk all of it and free nothing)
            gc.freeze()
        return record

    @classmethod
    def of(cls, record: RunRecord, source: str = "<run record>") -> CIRecord:
        """A record model (e.g. merged shards) as a document and its summary; the document is what
        ``to_json`` writes (unset fields left out), so writing it back gives the same file."""
        from agent_evals.record.read import gc_paused
        from agent_evals.record.summary import summarise

        with gc_paused():
            data = record.model_dump(mode="json", by_alias=True, exclude_none=True)
            return cls(data, summarise(data, source))

    @property
    def complete(self) -> bool:
        """Whether the run says it finished (``run.complete``, true when left out)."""
        return self.summary.run.get("complete", True) is not False

    def mark_incomplete(self) -> None:
        """Record that the run did not finish (``run.complete: false``)."""
        self.summary.run["complete"] = False

    @property
    def suites(self) -> list[dict[str, Any]]:
        """The document's suites, in record order (the summary's are in the same order)."""
        suites: list[dict[str, Any]] = self.document.get("suites", [])
        return suites

    def case_count(self) -> int:
        """Cases in all suites."""
        return sum(len(s.view.cases) for s in self.summary.suites)

    def set_suite_field(self, index: int, key: str, value: Any) -> None:
        """Set one field of the suite at ``index`` (in the document and its summary's header)."""
        self.suites[index][key] = value
        self.summary.suites[index].header[key] = value

    def add_suites(self, suites: list[dict[str, Any]], source: str) -> None:
        """Append (checked, summarised) suites, e.g. those copied from the baseline."""
        from agent_evals.record.read import gc_paused
        from agent_evals.record.summary import summarise

        if not suites:
            return
        with gc_paused():
            more: list[SuiteSummary] = summarise(
                {"schema": self.document["schema"], "run": self.summary.run, "suites": suites}, source
            ).suites
        self.document.setdefault("suites", []).extend(suites)
        self.summary.suites.extend(more)

    def setup_failures(self) -> list[str]:
        """``suite id: why`` for each benchmark whose agent's ``setup()`` raised (all its trials say so)."""
        failures = []
        for suite in self.suites:
            errors = (t.get("error") for c in suite.get("cases", ()) for t in c.get("trials", ()))
            first = next(errors, None)
            if _setup_error(first) and all(_setup_error(e) for e in errors):  # stops at the first other
                failures.append(f"{suite['id']}: {str(first).splitlines()[0]}")
        return failures

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write the document atomically, as ``run --output`` writes a record."""
        from agent_evals.record.store import write_record

        write_record(path, self.document)


def _setup_error(error: str | None) -> bool:
    return bool(error) and str(error).startswith("agent setup failed")
