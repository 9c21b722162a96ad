"""What the run summary keeps of each case as it is written: its counts, and the first failures' details."""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from agent_evals.record.case_stats import CaseStats, key_stats
from agent_evals.record.summary import add_cases
from agent_evals.record.views import SuiteView

if TYPE_CHECKING:
    from agent_evals.record.model import RunRecord

EVIDENCE_CHARS = 200
"""Characters kept of a failure's expected and actual values (the line shows fewer)."""


class Detail(NamedTuple):
    """One line under a failure: ``(None, error, traceback)`` for an errored trial; for a failed score its
    key, note, and what was expected and what the agent gave (the score's own, else the case's
    reference and the trial's output)."""

    scorer: str | None
    text: str
    trace: str | None = None
    expected: str | None = None
    actual: str | None = None


@dataclass(slots=True)
class Failure:
    """A failed or errored case among the first ``max_failures``, with the lines that say why."""

    case_id: str
    stats: CaseStats
    details: list[Detail]


@dataclass
class SuiteDigest:
    """One suite's cases as counts: per case its plan position, group and counts, as numbers into
    tables of the distinct groups and counts (about 12 bytes a case)."""

    id: str
    kind: str
    positions: array[int] = field(default_factory=lambda: array("q"))
    group_of: array[int] = field(default_factory=lambda: array("I"))
    stats_of: array[int] = field(default_factory=lambda: array("I"))
    groups: list[str] = field(default_factory=list)
    stats: list[CaseStats] = field(default_factory=list)
    _group_ids: dict[str, int] = field(default_factory=dict)
    _stats_ids: dict[CaseStats, int] = field(default_factory=dict)

    def add(self, position: int, group: str, stats: CaseStats) -> None:
        """Count one case."""
        g = self._group_ids.get(group)
        if g is None:
            g = self._group_ids[group] = len(self.groups)
            self.groups.append(group)
        n = self._stats_ids.get(stats)
        if n is None:
            n = self._stats_ids[stats] = len(self.stats)
            self.stats.append(stats)
        self.positions.append(position)
        self.group_of.append(g)
        self.stats_of.append(n)

    def ordered(self) -> list[tuple[int, str, CaseStats]]:
        """``(position, group, stats)`` per case, in plan order (cases may finish in any order)."""
        rows = zip(self.positions, self.group_of, self.stats_of, strict=True)
        return sorted((p, self.groups[g], self.stats[n]) for p, g, n in rows)

    def all_stats(self) -> list[CaseStats]:
        """Every case's counts."""
        return [self.stats[n] for n in self.stats_of]


def _cut(value: Any) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    return text[:EVIDENCE_CHARS]


def _details(case: Mapping[str, Any]) -> list[Detail]:
    shown: set[tuple[str | None, str]] = set()
    out: list[Detail] = []
    reference = case.get("expected")
    for trial in case.get("trials", ()):
        error = trial.get("error")
        if error is not None:
            if (None, error) not in shown:
                shown.add((None, error))
                out.append(Detail(None, error, trial.get("traceback")))
            continue
        for key, score in (trial.get("scores") or {}).items():
            if score.get("passed") is False:
                note = score.get("notes") or score.get("error") or ""
                if (key, note) not in shown:
                    shown.add((key, note))
                    expected = score.get("expected")
                    actual = score.get("actual")
                    out.append(
                        Detail(
                            key,
                            note,
                            None,
                            _cut(reference if expected is None else expected),
                            _cut(trial.get("output") if actual is None else actual),
                        )
                    )
    return out


class RunDigest:
    """Per-case counts of a run and the details of its first ``max_failures`` failures (in plan order).

    Memory stays small whatever the case count: a few numbers per case, a bounded list of failures.
    """

    def __init__(self, max_failures: int = 50) -> None:
        """Keep the details of at most ``max_failures`` failed or errored cases."""
        self.max_failures = max_failures
        self.suites: dict[int, SuiteDigest] = {}
        self.failure_count = 0
        self._failures: list[tuple[int, int, Failure]] = []  # a heap: the latest in plan order on top
        self.replayed_nothing = 0
        """Trials run with ``--cache replay`` that finished without replaying any model call."""
        self.retried = 0
        """Trials that ``--retry-errors`` ran more than once."""
        self.retries = 0
        """The earlier attempts those trials made (retried, not counted as trials)."""
        self.replayed = 0
        """Model calls the response cache answered (``--cache replay``)."""

    def add_suite(self, index: int, suite_id: str, kind: str) -> None:
        """Name suite ``index`` (the run builder's numbering, which is the record's suite order)."""
        self.suites[index] = SuiteDigest(suite_id, kind)

    def add(self, suite: int, position: int, case: Mapping[str, Any], stats: CaseStats) -> None:
        """Count one written case (as decoded from the record file, with its ``stats`` as the summary
        walk counted them) at plan ``position`` of ``suite``; its details are kept if it failed."""
        self.suites[suite].add(position, case["group"], stats)
        if stats.outcome not in ("failed", "errored"):
            return
        self.failure_count += 1
        if self.max_failures <= 0:
            return
        entry = (-suite, -position, Failure(case["id"], stats, _details(case)))
        if len(self._failures) < self.max_failures:
            heapq.heappush(self._failures, entry)
        elif (suite, position) < (-self._failures[0][0], -self._failures[0][1]):
            heapq.heapreplace(self._failures, entry)

    def add_reruns(self, reruns: Sequence[int]) -> None:
        """Add a suite's retried trials, earlier attempts, replayed calls and trials that replayed
        nothing, as the summary walk counted them (``record.views.SuiteView.reruns``)."""
        retried, retries, replayed, replayed_nothing = reruns
        self.retried += retried
        self.retries += retries
        self.replayed += replayed
        self.replayed_nothing += replayed_nothing

    def failures(self) -> list[Failure]:
        """The kept failures in plan order."""
        return [f for _, _, f in sorted(self._failures, key=lambda e: (-e[0], -e[1]))]

    def ordered_suites(self, indices: Iterable[int]) -> list[SuiteDigest]:
        """The digests of ``indices`` (the suites of the record, in its order)."""
        return [self.suites[i] for i in indices]

    @classmethod
    def of_record(cls, record: RunRecord, max_failures: int = 50) -> RunDigest:
        """The digest of a whole record (``regrade``, tests): the same counting as a streamed run,
        each suite's cases summed by the walk ``compare`` uses."""
        digest = cls(max_failures)
        for s_index, suite in enumerate(record.suites):
            digest.add_suite(s_index, suite.id, suite.kind)
            cases = [
                c.model_dump(mode="json", include={"id", "group", "expected", "trials"}) for c in suite.cases
            ]
            view = SuiteView()
            add_cases(view, cases, f"suite {suite.id}")
            for position, case in enumerate(cases):
                stats = key_stats(view.cases[case["id"]].key, len(case.get("trials", ())))
                digest.add(s_index, position, case, stats)
            digest.add_reruns(view.reruns)
        return digest
