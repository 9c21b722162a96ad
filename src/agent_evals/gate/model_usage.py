"""The comparison model's usage part: tokens, cost and latency on both sides, and the usage checks."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agent_evals.gate.model_stats import GateModel, Verdict
from agent_evals.record.usage_totals import UsageTotals as UsageTotals


class UsageDiff(GateModel):
    """Usage on both sides and the change (candidate - baseline), informational (not gated)."""

    baseline: UsageTotals | None = None
    """Baseline usage (None without a baseline)."""
    candidate: UsageTotals
    """Candidate usage."""
    delta: UsageTotals | None = None
    """Difference of each recorded field (``trials`` difference too)."""


UsageMetric = Literal["tokens", "cost", "latency"]
"""What a usage check compares, per trial: input + output tokens, cost in US dollars, seconds."""


class CaseUsageChange(GateModel):
    """One paired case's usage per trial on both sides (a report lists the largest increases)."""

    case_id: str
    """Case id."""
    baseline: float
    """Mean per measured trial in the baseline."""
    candidate: float
    """Mean per measured trial in the candidate."""


class UsageCheck(GateModel):
    """A suite's paired comparison of one usage metric, and what the policy makes of it."""

    metric: UsageMetric
    """What is compared."""
    threshold: float | None
    """The policy's largest tolerated relative increase (None: reported only, never gated)."""
    verdict: Verdict | Literal["not-measured"]
    """``failed``: beyond the threshold and significant, or usage lost; ``inconclusive``: beyond the
    threshold, not significant; ``not-measured``: the baseline measured no paired case."""
    n_paired: int = 0
    """Paired cases measured on both sides (valid trials only)."""
    baseline_total: float | None = None
    """Sum over those cases of the baseline's mean per trial."""
    candidate_total: float | None = None
    """The same for the candidate."""
    increase: float | None = None
    """candidate_total / baseline_total - 1 (inf when the baseline total is 0 and the candidate's is not)."""
    n_up: int = 0
    """Paired cases whose value rose."""
    n_down: int = 0
    """Paired cases whose value fell."""
    p_value: float | None = None
    """One-sided exact sign test p-value for a rise."""
    p_adjusted: float | None = None
    """Holm-adjusted over every usage check of the comparison."""
    significant: bool = False
    """p_adjusted < alpha."""
    missing_case_ids: list[str] = Field(default_factory=list)
    """Paired cases the baseline measured and the candidate did not (a blocking reason when gated)."""
    unmeasured_in_baseline: int = 0
    """Paired cases only the candidate measured (left out: nothing to compare with)."""
    unpriced_models: list[str] = Field(default_factory=list)
    """Cost only: candidate models without a price in the table."""
    top_cases: list[CaseUsageChange] = Field(default_factory=list)
    """The paired cases with the largest increases (at most five)."""


class GroupUsage(GateModel):
    """One group's usage per trial over its paired measured cases (informational)."""

    group: str
    """Group (capability or dataset)."""
    metric: UsageMetric
    """What is compared."""
    n_paired: int
    """Paired cases measured on both sides."""
    baseline_total: float
    """Sum of the baseline's per-case means per trial."""
    candidate_total: float
    """Sum of the candidate's."""
    increase: float | None = None
    """Relative change (None when the baseline total is 0)."""
