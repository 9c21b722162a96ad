"""autoevals scorers usable in ``run_eval_async``: our Score semantics, thresholds, safe judge endpoints.

Every wrapper takes ``threshold`` (``passed = value >= threshold``; defaults in docs/adapters.md)
plus the autoevals options. Heuristic and composite scorers never touch the network. Judges send
to ``base_url`` or a ready ``client`` (default: ``OPENAI_BASE_URL``, else OpenAI's https endpoint),
checked by the transport rule at construction; the API key is read when a judge is first called.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agent_evals.adapters.scorers.autoevals_base import AutoevalsScorer, ScorerInputError
from agent_evals.adapters.scorers.autoevals_judges import (
    Battle,
    ClosedQA,
    EmbeddingSimilarity,
    Factuality,
    Humor,
    LLMClassifier,
    Moderation,
    Possible,
    Security,
    Sql,
    Summary,
    Translation,
)
from agent_evals.core.types import ExpectedResult, Score, TaskResult

__all__ = [
    "Battle",
    "ClosedQA",
    "EmbeddingSimilarity",
    "ExactMatch",
    "Factuality",
    "Humor",
    "JSONDiff",
    "LLMClassifier",
    "Levenshtein",
    "ListContains",
    "Moderation",
    "NumericDiff",
    "Possible",
    "Security",
    "Sql",
    "Summary",
    "Translation",
    "ValidJSON",
]


# --- heuristic --------------------------------------------------------------------------------


class Levenshtein(AutoevalsScorer):
    """Normalised edit-distance similarity between the output and the reference text."""

    name = "Levenshtein"
    default_threshold = 1.0

    def __init__(self, *, threshold: float | None = None) -> None:
        super().__init__(threshold=threshold)


class ExactMatch(AutoevalsScorer):
    """1 when the output text equals the reference text exactly, else 0."""

    name = "ExactMatch"
    default_threshold = 1.0

    def __init__(self, *, threshold: float | None = None) -> None:
        super().__init__(threshold=threshold)


def _number(text: str, what: str, scorer: str) -> float:
    try:
        return float(text.strip())
    except ValueError:
        raise ScorerInputError(f"{scorer} needs numbers; the {what} {text!r} is not one") from None


class NumericDiff(AutoevalsScorer):
    """Relative closeness of two numbers: the output and the reference, both parsed from text."""

    name = "NumericDiff"
    default_threshold = 0.9

    def __init__(self, *, threshold: float | None = None) -> None:
        super().__init__(threshold=threshold)

    def _arguments(
        self, result: TaskResult, expected: ExpectedResult | None, context: Mapping[str, Any]
    ) -> dict[str, Any]:
        args = super()._arguments(result, expected, context)
        return {
            "output": _number(args["output"], "output", self.name),
            "expected": _number(args["expected"], "reference", self.name),
        }


class JSONDiff(AutoevalsScorer):
    """Structural similarity of two JSON documents (strings by edit distance, numbers by NumericDiff)."""

    name = "JSONDiff"
    default_threshold = 1.0

    def __init__(self, *, threshold: float | None = None, preserve_strings: bool = False) -> None:
        super().__init__(threshold=threshold, options={"preserve_strings": preserve_strings})


# --- composite --------------------------------------------------------------------------------


class ValidJSON(AutoevalsScorer):
    """1 when the output parses as a JSON object or array (and matches ``schema`` when given)."""

    name = "ValidJSON"
    default_threshold = 1.0
    needs_expected = False

    def __init__(self, *, threshold: float | None = None, schema: Mapping[str, Any] | None = None) -> None:
        self.schema = dict(schema) if schema is not None else None
        super().__init__(threshold=threshold)

    def _build(self, autoevals: Any) -> Any:
        return autoevals.ValidJSON()

    def _evaluate(self, arguments: dict[str, Any]) -> Any:
        # autoevals' ValidJSON reads the schema from the second positional argument of eval, not
        # from its constructor; passing it by position is what makes a schema take effect.
        return self._scorer.eval(arguments["output"], self.schema)

    def _to_score(self, raw: Any, expected: ExpectedResult | None) -> Score:
        score = super()._to_score(raw, expected)
        if self.schema is None:
            return score
        return score.model_copy(update={"metadata": {**score.metadata, "schema": self.schema}})


def _json_list(text: str, what: str, scorer: str) -> list[Any]:
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScorerInputError(
            f"{scorer} needs a JSON list as the {what}; it does not parse: {exc}"
        ) from None
    if not isinstance(parsed, list):
        raise ScorerInputError(f"{scorer} needs a JSON list as the {what}, got {type(parsed).__name__}")
    return parsed


class ListContains(AutoevalsScorer):
    """How well the output list covers the reference list (best pairing by a pairwise scorer).

    Output and reference are JSON lists given as text (``'["a", "b"]'``). Extra output items do not
    lower the score unless ``allow_extra_entities=False`` (the seed's default). Needs scipy.
    """

    name = "ListContains"
    default_threshold = 1.0

    def __init__(
        self,
        *,
        threshold: float | None = None,
        pairwise_scorer: Any | None = None,
        allow_extra_entities: bool = True,
    ) -> None:
        self.allow_extra_entities = allow_extra_entities
        self.pairwise_scorer_name = type(pairwise_scorer).__name__ if pairwise_scorer else "Levenshtein"
        options: dict[str, Any] = {"allow_extra_entities": allow_extra_entities}
        if pairwise_scorer is not None:
            options["pairwise_scorer"] = pairwise_scorer
        super().__init__(threshold=threshold, options=options)

    def _arguments(
        self, result: TaskResult, expected: ExpectedResult | None, context: Mapping[str, Any]
    ) -> dict[str, Any]:
        args = super()._arguments(result, expected, context)
        return {
            "output": _json_list(args["output"], "output", self.name),
            "expected": _json_list(args["expected"], "reference", self.name),
        }

    def _to_score(self, raw: Any, expected: ExpectedResult | None) -> Score:
        score = super()._to_score(raw, expected)
        extra = {
            "allow_extra_entities": self.allow_extra_entities,
            "pairwise_scorer": self.pairwise_scorer_name,
        }
        return score.model_copy(update={"metadata": {**score.metadata, **extra}})
