"""Usage totals as a comparison reports them, and building record models from values known valid."""

from __future__ import annotations

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
