"""Usage bookkeeping (tokens, cost, latency) summed over trials; informational, not gated."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_evals.record.usage_totals import UsageTotals


@dataclass(slots=True)
class UsageSums:
    """Running sums of usage over trials; token and cost fields stay None until a trial reports them."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    duration_s: float = 0.0
    trials: int = 0
    recorded: bool = False

    def merge(self, other: UsageSums) -> None:
        """Add another set of sums into this one."""
        self.trials += other.trials
        self.duration_s += other.duration_s
        self.recorded = self.recorded or other.recorded
        if other.input_tokens is not None:
            self.input_tokens = (self.input_tokens or 0) + other.input_tokens
        if other.output_tokens is not None:
            self.output_tokens = (self.output_tokens or 0) + other.output_tokens
        if other.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + other.cost_usd

    def totals(self) -> UsageTotals:
        """The report model."""
        from agent_evals.record.usage_totals import UsageTotals, construct  # models load on first use

        count = self.trials
        return construct(
            UsageTotals,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cost_usd=self.cost_usd,
            duration_s=self.duration_s if count else None,
            mean_latency_s=self.duration_s / count if count else None,
            trials=count,
        )
