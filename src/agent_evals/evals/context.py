"""``EvalContext``: what an eval function receives, and ``store()`` for outputs, scores and usage."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_evals.cost.meter import USAGE_FIELDS, normalize_usage
from agent_evals.evals.scores import EvalScore, merge_scores, parse_scores

_UNSET: Any = object()

__all__ = ["USAGE_FIELDS", "EvalContext", "normalize_usage"]


class EvalContext:
    """The state of one eval trial: its input and reference, and what the eval records.

    Set ``ctx.output`` to the agent's answer, assert on it, or call ``ctx.store(...)``.
    """

    __slots__ = (
        "default_score_key",
        "input",
        "messages_usage",
        "metadata",
        "models",
        "output",
        "reference",
        "scores",
        "usage",
    )

    def __init__(
        self,
        *,
        input: Any = None,
        reference: Any = None,
        metadata: Mapping[str, Any] | None = None,
        default_score_key: str = "pass",
        output: Any = None,
    ) -> None:
        self.input: Any = input
        """The eval's input."""
        self.reference: Any = reference
        """The expected answer or other reference, if any."""
        self.metadata: dict[str, Any] = dict(metadata or {})
        """Free-form metadata; ``store(metadata=...)`` adds to it."""
        self.output: Any = output
        """The agent's output; set it in the eval body (or let ``target=`` set it)."""
        self.scores: list[EvalScore] = []
        """Scores stored so far."""
        self.usage: dict[str, Any] | None = None
        """Tokens and cost reported for this trial."""
        self.messages_usage: dict[str, Any] | None = None
        """Tokens the returned LangChain/LangGraph messages report (used when no model call was metered)."""
        self.models: set[str] = set()
        """Models a returned ``TaskResult`` named (``context["model"]``, its usage's ``model``): recorded
        with the metered ones as the suite's agent models."""
        self.default_score_key: str = default_score_key
        """Key used for assertions and for bare ``True``/``False``/number scores."""

    def store(
        self,
        scores: Any = _UNSET,
        *,
        output: Any = _UNSET,
        metadata: Mapping[str, Any] | None = None,
        usage: Mapping[str, Any] | None = None,
        input: Any = _UNSET,
        reference: Any = _UNSET,
    ) -> None:
        """Record scores, the output, metadata or usage for this trial.

        ``scores`` takes a score dict (``key`` plus ``passed`` and/or ``value``, optional ``notes``),
        ``True``/``False`` or a number (under the default key), or a list of these. A score whose key
        is already stored replaces it. ``metadata`` and ``usage`` are merged into what is there.
        """
        if scores is not _UNSET:
            parsed = parse_scores(scores, default_key=self.default_score_key, where="store(scores=...)")
            merge_scores(self.scores, parsed)
        if output is not _UNSET:
            self.output = output
        if input is not _UNSET:
            self.input = input
        if reference is not _UNSET:
            self.reference = reference
        if metadata is not None:
            if not isinstance(metadata, Mapping):
                raise ValueError(f"store(metadata=...) must be a dict, got {type(metadata).__name__}")
            self.metadata.update(metadata)
        if usage is not None:
            self.usage = {**(self.usage or {}), **normalize_usage(usage, where="store(usage=...)")}

    def __repr__(self) -> str:
        return f"EvalContext(input={self.input!r:.60}, output={self.output!r:.60}, scores={self.scores!r})"
