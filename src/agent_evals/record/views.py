"""A suite side and its cases as one walk of a run record summarises them (``record.summary``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_evals.record.usage import UsageSums

SNIPPET_CHARS = 2_000
"""Untrusted text kept per field in a case diff (reports escape and truncate further)."""

Key = tuple[int, int, int]
"""A case side's trial counts: (graded or errored trials, passes, errored trials); ungraded trials are left out."""

Tally = tuple[int, int, int]
"""A scorer's verdicts in one case: (trials with a verdict or an error, passes, errors)."""

RawCase = dict[str, Any]
"""A case as decoded and checked by ``record.summary``."""

Breakdowns = tuple[float, int, list[tuple[dict[str, Any], Any]]]
"""A case side's cost still to price: the cost its trials without a per-model breakdown recorded, how
many recorded one, and the (models, recorded cost) of each trial with a breakdown."""

Use = tuple[bool, float | None, float | None, float | None, Breakdowns | None]
"""A case side's usage over its valid (non-errored) trials, as the summary walk found it for the usage
gate: whether any trial is valid; then per metric (tokens in + out, cost, seconds) the mean per trial
that measured it, None when none did; last, when a trial has a per-model breakdown (then the cost is
the comparison's to work out with its price table), what that needs."""


@dataclass(slots=True)
class CaseView:
    """One side of one case, summarised in a single pass over its trials (raw case kept for details)."""

    raw: RawCase
    id: str
    group: str
    key: Key
    fraction: float | None
    """Pass fraction over valid trials; None when every trial errored (or there are none)."""
    critical: bool
    use: Use
    """Usage over the valid trials (see :data:`Use`)."""
    definition: str | None = None
    """The case's definition digest, when recorded (``core.definition``; ``gate.redefined``)."""

    def usage(self) -> UsageSums:
        """Usage over this side's trials (computed on demand: only cases a report details need it)."""
        trials = self.raw.get("trials", [])
        duration = 0.0
        tokens_in: int | None = None
        tokens_out: int | None = None
        cost: float | None = None
        recorded = False
        for trial in trials:
            seconds = trial.get("duration_s")
            if seconds:
                duration += seconds
            usage = trial.get("usage")
            if usage:
                recorded = True
                value = usage.get("input_tokens")
                if value is not None:
                    tokens_in = (tokens_in or 0) + int(value)
                value = usage.get("output_tokens")
                if value is not None:
                    tokens_out = (tokens_out or 0) + int(value)
                value = usage.get("cost_usd")
                if value is not None:
                    cost = (cost or 0.0) + value
        return UsageSums(tokens_in, tokens_out, cost, duration, len(trials), recorded)

    def first_output(self) -> str | None:
        """The first trial output (as a snippet), shown beside the other side's in a case diff."""
        return _first(self.raw.get("trials", []), "output")


@dataclass
class SuiteView:
    """Every case of one suite side, plus what is summed over them."""

    cases: dict[str, CaseView] = field(default_factory=dict)
    scorers: dict[str, dict[str, Tally]] = field(default_factory=dict)
    """scorer -> case id -> (trials, passes, errors) over trials where it gave a pass/fail verdict."""
    usage: UsageSums = field(default_factory=UsageSums)
    groups: dict[str, list[str]] = field(default_factory=dict)
    """group -> case ids."""
    dimensions: dict[str, list[str]] = field(default_factory=dict)
    """``name=value`` -> case ids."""
    reruns: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    """What ran again or was not run live: trials ``--retry-errors`` retried, their earlier attempts,
    the model calls the response cache answered (``--cache replay``), and the trials with a cache
    block that finished without an error and replayed no call."""
    counted: dict[tuple[str, str], Counter[Any]] = field(default_factory=dict)
    """Per-side counts worked out so far (see ``breakdown.side_counts``)."""


def add_tally(scorers: dict[str, dict[str, Tally]], name: str, cid: str, tally: Tally) -> None:
    """Add a run of one scorer's verdicts in case ``cid`` to its tally there (the summary walks)."""
    per_case = scorers.get(name)
    if per_case is None:
        per_case = scorers[name] = {}
    found = per_case.get(cid)
    if found is None:
        per_case[cid] = tally
    else:
        per_case[cid] = (found[0] + tally[0], found[1] + tally[1], found[2] + tally[2])


def fraction_of(key: Key) -> float | None:
    """A case side's pass fraction from its trial counts, as the summary walks work it out."""
    counted, passes, errors = key
    valid = counted - errors
    return passes / valid if valid else None


def snippet(value: Any) -> str | None:
    """Untrusted text of a case diff, cut to :data:`SNIPPET_CHARS` (reports escape and cut further)."""
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    return text[:SNIPPET_CHARS]


def _first(trials: Sequence[dict[str, Any]], key: str) -> str | None:
    for trial in trials:
        value = trial.get(key)
        if value is not None:
            return snippet(value)
    return None
