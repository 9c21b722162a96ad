"""One suite of a running run: the ids its written cases took, then, once the record is final, its summary."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from agent_evals.record.case_stats import CaseStats, key_stats
from agent_evals.record.models import judge_models, merged_models, suite_models
from agent_evals.record.summary import HEADER_FIELDS, SuiteSummary, add_cases
from agent_evals.record.views import SuiteView

_LET_GO: dict[str, Any] = {}
"""What a summarised case keeps of its raw data: nothing (the record file has it)."""


class StreamedSuite:
    """One suite as the run builder follows it.

    While the run executes, each written case leaves only its id and trial count (the fingerprint
    and a shard's positions need them). When the final record is written, its cases are read back
    from the file in plan order and summed here, a batch at a time (:meth:`summarise`), as
    ``compare`` would read them: the run's own verdict counts what the file holds.
    """

    def __init__(self, header: dict[str, Any]) -> None:
        self.header = header
        self.view = SuiteView()
        self.trial_counts: set[int] = set()
        self.ids: list[str] = []
        """Written case ids by plan position (a shard's positions and the fingerprint need them)."""
        self.trials: list[int] = []
        """Written cases' trial counts by plan position."""
        self._shared: dict[tuple[int, int, int], tuple[int, int, int]] = {}
        self._agent: set[str] = set()
        self._judge: set[str] = set()

    def judges(self, scorers: Iterable[Any] = (), names: Iterable[str] = ()) -> None:
        """The suite's LLM scorers (their models are its judge models), or their models by name."""
        self._judge |= judge_models(scorers) | set(names)

    def saw(self, trials: Iterable[Any]) -> None:
        """Trials about to be written (an eval's results, a benchmark's outcomes): their agent models."""
        for trial in trials:
            if trial.models:
                self._agent.update(trial.models)

    def models(self, redact: Callable[[str], str] | None = None) -> dict[str, list[str]] | None:
        """The suite's ``models`` field: what its trials and scorers named, with any its header has
        (a whole suite added at once), each name through ``redact`` (secret values masked)."""
        found = merged_models([self.header.get("models"), suite_models(self._agent, self._judge)])
        if found is None or redact is None:
            return found
        return merged_models([{role: [redact(n) for n in names] for role, names in found.items()}])

    def note(self, position: int, case_id: str, trials: int) -> None:
        """A case was written at plan ``position`` with id ``case_id`` (as the file holds it) and ``trials``."""
        while len(self.ids) <= position:
            self.ids.append("")
            self.trials.append(0)
        self.ids[position] = case_id
        self.trials[position] = trials
        self.trial_counts.add(trials)

    def summarise(self, cases: list[dict[str, Any]]) -> list[CaseStats]:
        """Sum the next cases of the final record (decoded, in plan order), then let their data go;
        returns each one's counts as the walk found them (for the run's digest: no second pass)."""
        add_cases(self.view, cases, f"suite {self.header['id']}")
        views, shared = self.view.cases, self._shared
        tallies = list(self.view.scorers.values())
        counted = []
        for case in cases:
            cid = case["id"]
            view = views[cid]
            view.raw = _LET_GO
            view.key = shared.setdefault(view.key, view.key)  # most cases have the same few counts
            counted.append(key_stats(view.key, len(case.get("trials", ()))))
            for per_case in tallies:
                tally = per_case.get(cid)
                if tally is not None:
                    per_case[cid] = shared.setdefault(tally, tally)
        return counted

    def summary(self) -> SuiteSummary:
        """The suite as the gate reads it from the finished record (its raw cases let go)."""
        header = {k: self.header[k] for k in HEADER_FIELDS if k in self.header}
        return SuiteSummary(header, self.view, sorted(self.trial_counts))
