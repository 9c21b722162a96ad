"""autoevals scorers usable in ``run_eval_async``: our Score semantics, thresholds, safe judge endpoints.

Every wrapper takes ``threshold`` (``passed = value >= threshold``; defaults in docs/adapters.md)
plus the autoevals options. Heuristic and composite scorers never touch the network. Judges send
to ``base_url`` or a ready ``client`` (default: ``OPENAI_BASE_URL``, else OpenAI's https endpoint),
checked by the transport rule at construction; the API key is read when a judge is first called.
"""

from __future__ import annotations

import ast
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
        raise ScorerInputError(
            f"{scorer} needs numbers; the {what} {text!r} is not one (Failed to convert to numeric)"
        ) from None


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

    def __call__(self, result: TaskResult, expected: ExpectedResult | None = None, **context: Any) -> Score:
        """Score one example; the metadata keeps both texts and the numbers read from them (the seed's keys)."""
        score = super().__call__(result, expected, **context)
        if score.error is not None:
            return score
        converted = self._arguments(result, expected, context)
        extra = {
            "original_output": result.output,
            "original_expected": expected.expected if expected is not None else None,
            "converted_output": converted["output"],
            "converted_expected": converted["expected"],
        }
        return score.model_copy(update={"metadata": {**score.metadata, **extra}})


class JSONDiff(AutoevalsScorer):
    """Structural similarity of two JSON documents (strings by edit distance, numbers by NumericDiff)."""

    name = "JSONDiff"
    default_threshold = 1.0

    def __init__(
        self,
        *,
        threshold: float | None = None,
        string_scorer: Any | None = None,
        number_scorer: Any | None = None,
        preserve_strings: bool = False,
    ) -> None:
        options: dict[str, Any] = {"preserve_strings": preserve_strings}
        # autoevals scorer objects compare the strings and numbers inside (defaults: Levenshtein, NumericDiff)
        if string_scorer is not None:
            options["string_scorer"] = string_scorer
        if number_scorer is not None:
            options["number_scorer"] = number_scorer
        super().__init__(threshold=threshold, options=options)


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


MAX_LITERAL_LENGTH = 32 * 1024
"""Longest text ``ListContains`` reads as a Python literal list (``['a', 'b']``) when it is not JSON."""


def _literal_list(text: str, what: str, scorer: str, json_error: json.JSONDecodeError) -> Any:
    """The seed's fallback for a list written as a Python literal; bounded, since the text is untrusted."""
    if len(text) > MAX_LITERAL_LENGTH:
        raise ScorerInputError(
            f"{scorer} needs a JSON list as the {what}; it does not parse ({json_error}) and is too large "
            f"to read as a Python literal ({len(text)} > {MAX_LITERAL_LENGTH} characters)"
        )
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise ScorerInputError(
            f"{scorer} needs a JSON list as the {what}; it does not parse: {json_error}"
        ) from None


def _json_list(text: str, what: str, scorer: str) -> list[Any]:
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        parsed = _literal_list(text, what, scorer, exc)
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
        update: dict[str, Any] = {"metadata": {**score.metadata, **extra}}
        if score.error is None and score.reasoning is None:
            extras = "do not lower the score" if self.allow_extra_entities else "lower the score"
            update["reasoning"] = f"Found {score.value:.0%} of the expected items; extra items {extras}."
        return score.model_copy(update=update)
