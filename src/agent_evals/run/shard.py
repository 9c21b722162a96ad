"""``run --shard i/n``: a deterministic, balanced slice of a run's cases for one matrix job."""

from __future__ import annotations

import hashlib
import heapq
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_evals.errors import UsageError

if TYPE_CHECKING:
    from agent_evals.record.model import RunRecord, ShardSuite

_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` (1-based: ``1/4`` .. ``4/4``)."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"2/4"`` -> ``Shard(2, 4)``; a UsageError saying what is wrong otherwise."""
        match = _SHARD.fullmatch(text)
        if match is None:
            raise UsageError(f"--shard {text!r}: expected INDEX/COUNT such as 1/4 (shards count from 1)")
        index, count = int(match.group(1)), int(match.group(2))
        if count < 1 or not 1 <= index <= count:
            raise UsageError(f"--shard {text!r}: INDEX must be between 1 and COUNT (and COUNT at least 1)")
        return cls(index, count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def shard_key(suite_id: str, case_id: str) -> str:
    """A case's place in the deal: sha256 of suite id and case id (stable across processes and machines)."""
    return hashlib.sha256(f"{suite_id}\0{case_id}".encode()).hexdigest()


def files_digest(paths: Iterable[str | Path]) -> str:
    """A digest of the contents of a suite's declaring files (names left out: shards may run from
    other folders), so ``merge`` refuses shards that ran different versions of a suite."""
    hashes = []
    for path in sorted({Path(p).absolute() for p in paths}):
        try:
            hashes.append(hashlib.sha256(path.read_bytes()).hexdigest())
        except OSError:
            hashes.append("unreadable")
    return hashlib.sha256("\n".join(sorted(hashes)).encode()).hexdigest()[:32]


@dataclass
class _Population:
    ids: list[str]
    trials: list[int]
    config: dict[str, Any]
    files: str | None = None


@dataclass
class Slicer:
    """Deals every case of a run to ``shard.count`` shards and keeps the ones of ``shard``.

    Suites are dealt in run order; within a suite, cases go largest (most trials) first, ties by
    :func:`shard_key`, each to the shard with the fewest trials so far (then fewest cases, then
    lowest index). Every shard of a run sees the same cases, so they agree on the deal, the union of
    the shards is the whole run, and shard sizes (in trials) differ by at most one case.
    """

    shard: Shard
    _loads: list[tuple[int, int, int]] = field(init=False)
    populations: dict[str, _Population] = field(init=False, default_factory=dict)
    """Every case of each suite (before slicing), to stamp the whole suite's fingerprint."""

    def __post_init__(self) -> None:
        self._loads = [(0, 0, i) for i in range(self.shard.count)]

    def take(
        self,
        suite_id: str,
        cases: Sequence[tuple[str, int]],
        config: dict[str, Any],
        files: Iterable[str | Path] = (),
    ) -> list[int]:
        """Positions (in ``cases`` order) of this shard's cases; ``cases`` is ``(case id, trials)``,
        ``files`` the files that declare them (their contents are recorded as a digest)."""
        listed = list(files)
        self.populations[suite_id] = _Population(
            [c for c, _ in cases], [t for _, t in cases], config, files_digest(listed) if listed else None
        )
        order = sorted(range(len(cases)), key=lambda i: (-cases[i][1], shard_key(suite_id, cases[i][0])))
        mine: list[int] = []
        for position in order:
            trials, count, index = heapq.heappop(self._loads)
            heapq.heappush(self._loads, (trials + cases[position][1], count + 1, index))
            if index == self.shard.index - 1:
                mine.append(position)
        return sorted(mine)

    def suites(self) -> dict[str, ShardSuite]:
        """Every suite dealt so far as a whole (``run.shard.suites``): its size, ids and files."""
        from agent_evals.record.model import ShardSuite, ids_digest

        return {
            sid: ShardSuite(cases=len(p.ids), case_ids=ids_digest(p.ids), files=p.files)
            for sid, p in self.populations.items()
        }

    def stamp(self, record: RunRecord) -> RunRecord:
        """Mark ``record`` as this shard: ``run.shard``, and per suite the whole suite's fingerprint and
        each case's position in the whole suite (so ``merge`` restores the unsharded record)."""
        from agent_evals.record.fingerprint import fingerprint_of
        from agent_evals.record.model import ShardInfo

        record.run.shard = ShardInfo(index=self.shard.index, count=self.shard.count, suites=self.suites())
        for suite in record.suites:
            population = self.populations.get(suite.id)
            if population is None:
                continue
            where = {case_id: i for i, case_id in reversed(list(enumerate(population.ids)))}
            suite.case_positions = [where.get(c.id, -1) for c in suite.cases]
            suite.fingerprint = fingerprint_of(
                population.ids,
                population.trials,
                population.config,
                [suite.agent.name, suite.agent.version],
            )
        return record
