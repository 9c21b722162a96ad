"""Turning a third-party scorer's raw verdict into our ``Score``: unit value, threshold, clear failures."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from agent_evals.core.types import ExpectedResult, Score


def check_threshold(threshold: object, scorer: str) -> float:
    """Validate a pass threshold (a number in [0, 1]) and return it as a float."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise ValueError(f"{scorer}: threshold must be a number between 0 and 1, got {threshold!r}")
    if not 0.0 <= float(threshold) <= 1.0:
        raise ValueError(f"{scorer}: threshold must be between 0 and 1, got {threshold!r}")
    return float(threshold)


def failing_score(
    name: str, error: str, metadata: Mapping[str, Any] | None = None, *, reasoning: str | None = None
) -> Score:
    """An errored Score (value 0, never passing): ``error`` says why, also under ``metadata["error"]``."""
    meta = json_safe(metadata or {})
    meta.setdefault("error", error)
    return Score(name=name, value=0.0, passed=False, error=error, metadata=meta, reasoning=reasoning)


def missing_reference_score(name: str, output: object) -> Score:
    """The errored Score of a comparison scorer without a reference (the seed's metadata and reasoning)."""
    return failing_score(
        name,
        f"Expected value is required for {name}: set ExpectedResult.expected for this example "
        "(it is missing, empty or blank)",
        {"error": f"Expected value is required for {name}", "output": str(output), "expected": None},
        reasoning=f"{name} requires an expected value for comparison",
    )


def unit_value(raw: object) -> float:
    """Normalise a raw score to [0, 1]: bool -> 0/1; numbers must already lie in [0, 1].

    Raises ValueError for None (the scorer gave no score), NaN, non-numbers and out-of-range values.
    """
    if raw is None:
        raise ValueError("the scorer returned no score (None)")
    if isinstance(raw, bool):
        return 1.0 if raw else 0.0
    if not isinstance(raw, (int, float)):
        try:
            raw = float(raw)  # type: ignore[arg-type]  # numpy scalars and Decimals
        except (TypeError, ValueError):
            raise ValueError(f"the scorer returned a {type(raw).__name__}, not a number: {raw!r}") from None
    value = float(raw)
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        raise ValueError(f"the scorer returned {value!r}, outside the range 0..1")
    return value


def threshold_score(
    name: str,
    raw: object,
    threshold: float,
    *,
    metadata: Mapping[str, Any] | None = None,
    reasoning: str | None = None,
) -> Score:
    """Build the Score for a raw value: ``passed = value >= threshold``; bad values fail clearly."""
    meta = json_safe(metadata or {})
    try:
        value = unit_value(raw)
    except ValueError as exc:
        return Score(
            name=name, value=0.0, passed=False, error=f"{name}: {exc}", metadata=meta, reasoning=reasoning
        )
    meta.setdefault("_threshold", threshold)
    return Score(name=name, value=value, passed=value >= threshold, metadata=meta, reasoning=reasoning)


def expected_text(expected: ExpectedResult | None) -> str | None:
    """The example's reference text, or None when there is none (missing, empty or only whitespace)."""
    if expected is None or expected.expected is None or not expected.expected.strip():
        return None
    return expected.expected


def json_safe(value: Any) -> Any:
    """A copy of ``value`` made of JSON types only (tuples -> lists, numpy scalars -> numbers, else str)."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_safe(v) for v in value]
    item = getattr(value, "item", None)  # numpy scalar
    if callable(item):
        try:
            return json_safe(item())
        except (TypeError, ValueError):
            pass
    return str(value)
