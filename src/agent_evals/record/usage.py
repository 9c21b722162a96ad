"""Usage bookkeeping (tokens, cost, latency) summed over trials; informational, not gated."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict

M = TypeVar("M", bound=BaseModel)


_FIELDS_SET: dict[type[BaseModel], set[str]] = {}


def construct(cls: type[M], **values: Any) -> M:
    """Build a model from values already known valid, with every field given: pydantic's
    ``model_construct`` minus its per-call default handling, for the per-case hot path
    (hundreds of thousands of objects on a large run)."""
    return construct_from(cls, values)


def construct_from(cls: type[M], values: dict[str, Any]) -> M:
    """``construct`` taking the dict of every field's value (which becomes the instance's own)."""
    obj = cls.__new__(cls)
    fields_set = _FIELDS_SET.get(cls)
    if fields_set is None or len(fields_set) != len(values):
        fields_set = _FIELDS_SET[cls] = set(values)
    object.__setattr__(obj, "__dict__", values)
    # Every field is given, so instances can share one set (pydantic only ever adds field names to it).
    object.__setattr__(obj, "__pydantic_fields_set__", fields_set)
    object.__setattr__(obj, "__pydantic_extra__", None)
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj


class UsageTotals(BaseModel):
    """Usage summed over trials (fields None when nothing recorded them)."""

    # A comparison report carries it (``gate.model`` re-exports it): configured as the comparison's
    # own models (``gate.model_stats.GateModel``), unknown fields refused, schema built on first use.
    model_config = ConfigDict(extra="forbid", defer_build=True)

    input_tokens: int | None = None
    """Prompt tokens."""
    output_tokens: int | None = None
    """Completion tokens."""
    cost_usd: float | None = None
    """Cost in US dollars."""
    duration_s: float | None = None
    """Wall-clock seconds summed over trials."""
    mean_latency_s: float | None = None
    """Mean seconds per trial."""
    trials: int = 0
    """Trials counted."""


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
