"""One suite of a running run as the gate reads it, summed case by case as its cases are written."""

from __future__ import annotations

from typing import Any

from agent_evals.record.summary import HEADER_FIELDS, SuiteSummary, add_cases
from agent_evals.record.views import SuiteView

_LET_GO: dict[str, Any] = {}
"""What a summarised case keeps of its raw data: nothing (the record file has it)."""

BATCH = 256
"""Written cases summarised together (the walk has a set-up cost)."""


class StreamedSuite:
    """One suite as the gate reads it, summed case by case as they are written (``RunBuilder``)."""

    def __init__(self, header: dict[str, Any]) -> None:
        self.header = header
        self.view = SuiteView()
        self.trial_counts: set[int] = set()
        self.ids: list[str] = []
        """Written case ids by plan position (a shard's positions and the fingerprint need them)."""
        self.trials: list[int] = []
        """Written cases' trial counts by plan position."""
        self.unwalked: list[dict[str, Any]] = []
        """Written cases not summarised yet (summarised :data:`BATCH` at a time)."""
        self._shared: dict[tuple[int, int, int], tuple[int, int, int]] = {}

    def add(self, position: int, written: dict[str, Any]) -> None:
        """Count a case just written at plan ``position`` (``written``: as the record file holds it)."""
        while len(self.ids) <= position:
            self.ids.append("")
            self.trials.append(0)
        self.ids[position] = written["id"]
        self.trials[position] = len(written.get("trials", ()))
        self.unwalked.append(written)
        if len(self.unwalked) >= BATCH:
            self.walk()
        self.trial_counts.add(len(written.get("trials", ())))

    def walk(self) -> None:
        """Summarise the cases written since the last walk, then let their data go."""
        add_cases(self.view, self.unwalked, f"suite {self.header['id']}")
        cases, shared = self.view.cases, self._shared
        tallies = list(self.view.scorers.values())
        for case in self.unwalked:
            cid = case["id"]
            view = cases[cid]
            view.raw = _LET_GO
            view.key = shared.setdefault(view.key, view.key)  # most cases have the same few counts
            for per_case in tallies:
                tally = per_case.get(cid)
                if tally is not None:
                    per_case[cid] = shared.setdefault(tally, tally)
        self.unwalked = []

    def summary(self) -> SuiteSummary:
        """The suite as the gate reads it from the finished record (its raw cases let go)."""
        self.walk()
        header = {k: self.header[k] for k in HEADER_FIELDS if k in self.header}
        return SuiteSummary(header, self._in_plan_order(), sorted(self.trial_counts))

    def _in_plan_order(self) -> SuiteView:
        """``view`` with its cases in plan order, as the record file lists them (they were added as
        they finished)."""
        view = self.view
        rank = {cid: n for n, cid in enumerate(c for c in self.ids if c)}
        view.cases = {cid: view.cases[cid] for cid in sorted(view.cases, key=rank.__getitem__)}
        view.scorers = {
            name: {c: t[c] for c in sorted(t, key=rank.__getitem__)} for name, t in view.scorers.items()
        }
        for table in (view.groups, view.dimensions):
            for members in table.values():
                members.sort(key=rank.__getitem__)
        first = {name: min(rank[c] for c in members) for name, members in view.groups.items()}
        view.groups = {name: view.groups[name] for name in sorted(view.groups, key=first.__getitem__)}
        return view
