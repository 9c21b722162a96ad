"""The comparison model's per-case part: one case compared across the two runs, with its evidence."""

from __future__ import annotations

from pydantic import Field

from agent_evals.gate.model_stats import CaseClass, GateModel
from agent_evals.gate.model_usage import UsageDiff, UsageTotals


class ScorerFailure(GateModel):
    """A scorer that failed (or errored) in a case's trial, with its evidence."""

    name: str
    """Scorer name."""
    value: float | None = None
    """Score value."""
    error: str | None = None
    """Scorer error, when it errored."""
    notes: str | None = None
    """Why (untrusted text)."""
    expected: str | None = None
    """What it expected (untrusted text)."""
    actual: str | None = None
    """What it found (untrusted text)."""
    trials_failed: int = 1
    """Candidate trials in which it failed."""


class CaseSide(GateModel):
    """One side of a case: its trials summarised."""

    trials: int
    """All trials."""
    passes: int
    """Passing trials."""
    errors: int
    """Errored trials."""
    pass_fraction: float | None
    """passes / valid trials; None when every trial errored."""
    usage: UsageTotals | None = None
    """Usage over its trials, when recorded."""


class CaseDiff(GateModel):
    """One case compared across the two runs."""

    suite_id: str
    """Suite id."""
    case_id: str
    """Case id."""
    name: str | None = None
    """Human-readable name (untrusted)."""
    group: str
    """Capability or dataset."""
    dimensions: dict[str, str] = Field(default_factory=dict)
    """Dimension values."""
    classification: CaseClass
    """Trial-aware class."""
    critical: bool = False
    """Marked critical (record or policy glob)."""
    redefined: bool = False
    """On both sides with another definition digest in the baseline (``gate.redefined``)."""
    critical_flip: bool = False
    """Critical and went from passing every trial to failing every trial (or to no graded trial)."""
    baseline: CaseSide | None = None
    """Baseline side (None for new cases)."""
    candidate: CaseSide | None = None
    """Candidate side (None for removed cases)."""
    delta: float | None = None
    """Candidate pass fraction - baseline pass fraction."""
    failing_scorers: list[ScorerFailure] = Field(default_factory=list)
    """Scorers that failed in the candidate, with notes/expected/actual."""
    error: str | None = None
    """First trial error message on the candidate side (or baseline for removed cases)."""
    location: str | None = None
    """``file:line`` where the case is declared."""
    input: str | None = None
    """Input snippet (untrusted)."""
    expected: str | None = None
    """Reference snippet (untrusted)."""
    output: str | None = None
    """Candidate output snippet of a failing trial (untrusted)."""
    baseline_output: str | None = None
    """Baseline output snippet (untrusted)."""
    usage: UsageDiff | None = None
    """Usage delta for the case, when recorded."""
    duration_s: float | None = None
    """Seconds the candidate's trials of the case took in all (detailed reports only)."""
