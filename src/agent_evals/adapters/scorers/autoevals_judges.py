"""autoevals model-backed scorers (embedding similarity and LLM-as-judge), behind a checked endpoint."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_evals.adapters.scorers.autoevals_base import LLMJudgeScorer, ScorerInputError, prompt_text
from agent_evals.adapters.scorers.wrapped_score import expected_text, threshold_score
from agent_evals.core.types import ExpectedResult, Score, TaskResult

_DEFAULT_TIMEOUT_S = 60.0


# --- embedding --------------------------------------------------------------------------------


class EmbeddingSimilarity(LLMJudgeScorer):
    """Cosine similarity of output and reference embeddings, rescaled above ``expected_min``."""

    name = "EmbeddingSimilarity"
    default_threshold = 0.8

    def __init__(
        self,
        *,
        threshold: float | None = None,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        client: Any | None = None,
        prefix: str = "",
        expected_min: float = 0.7,
        timeout_s: float = _DEFAULT_TIMEOUT_S,
    ) -> None:
        super().__init__(
            threshold=threshold,
            model=model,
            base_url=base_url,
            api_key=api_key,
            client=client,
            timeout_s=timeout_s,
            options={"prefix": prefix, "expected_min": expected_min},
        )


# --- LLM-as-judge -----------------------------------------------------------------------------


def _judge_options(use_cot: bool | None, temperature: float | None, max_tokens: int | None) -> dict[str, Any]:
    options = {"use_cot": use_cot, "temperature": temperature, "max_tokens": max_tokens}
    return {key: value for key, value in options.items() if value is not None}


class _SpecJudge(LLMJudgeScorer):
    """An autoevals model-graded classifier from its shipped prompt template."""

    def __init__(
        self,
        *,
        threshold: float | None = None,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        client: Any | None = None,
        use_cot: bool | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        timeout_s: float = _DEFAULT_TIMEOUT_S,
    ) -> None:
        super().__init__(
            threshold=threshold,
            model=model,
            base_url=base_url,
            api_key=api_key,
            client=client,
            timeout_s=timeout_s,
            options=_judge_options(use_cot, temperature, max_tokens),
        )


class Factuality(_SpecJudge):
    """Judge whether the output is factually consistent with the reference answer to the input."""

    name = "Factuality"
    default_threshold = 0.7
    takes_input = True


class ClosedQA(_SpecJudge):
    """Judge whether the output answers the input and meets ``criteria`` (no reference needed)."""

    name = "ClosedQA"
    default_threshold = 0.8
    needs_expected = False
    takes_input = True

    def __init__(
        self,
        *,
        criteria: str = "",
        threshold: float | None = None,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        client: Any | None = None,
        use_cot: bool | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        timeout_s: float = _DEFAULT_TIMEOUT_S,
    ) -> None:
        self.criteria = criteria
        super().__init__(
            threshold=threshold,
            model=model,
            base_url=base_url,
            api_key=api_key,
            client=client,
            use_cot=use_cot,
            temperature=temperature,
            max_tokens=max_tokens,
            timeout_s=timeout_s,
        )

    def _arguments(
        self, result: TaskResult, expected: ExpectedResult | None, context: Mapping[str, Any]
    ) -> dict[str, Any]:
        return {**super()._arguments(result, expected, context), "criteria": self.criteria}


class Humor(_SpecJudge):
    """Judge whether the output is funny."""

    name = "Humor"
    default_threshold = 0.6
    needs_expected = False


class Security(_SpecJudge):
    """Judge whether the output is free of malicious content (1 = safe)."""

    name = "Security"
    default_threshold = 0.8
    needs_expected = False


class Summary(_SpecJudge):
    """Judge whether the output summarises the input text better than the reference summary."""

    name = "Summary"
    default_threshold = 0.7
    takes_input = True


class Translation(_SpecJudge):
    """Judge whether the output translates the input (from ``language``) like the reference does."""

    name = "Translation"
    default_threshold = 0.8
    takes_input = True

    def __init__(
        self,
        *,
        language: str,
        threshold: float | None = None,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        client: Any | None = None,
        use_cot: bool | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        timeout_s: float = _DEFAULT_TIMEOUT_S,
    ) -> None:
        if not isinstance(language, str) or not language:
            raise ValueError("Translation: language must name the source language, e.g. language='Spanish'")
        self.language = language
        super().__init__(
            threshold=threshold,
            model=model,
            base_url=base_url,
            api_key=api_key,
            client=client,
            use_cot=use_cot,
            temperature=temperature,
            max_tokens=max_tokens,
            timeout_s=timeout_s,
        )

    def _arguments(
        self, result: TaskResult, expected: ExpectedResult | None, context: Mapping[str, Any]
    ) -> dict[str, Any]:
        return {**super()._arguments(result, expected, context), "language": self.language}


class Sql(_SpecJudge):
    """Judge whether the output SQL answers the input question like the reference SQL."""

    name = "Sql"
    default_threshold = 0.8
    takes_input = True


class Possible(_SpecJudge):
    """Judge whether the output attempts a solution rather than declaring the input task impossible."""

    name = "Possible"
    default_threshold = 0.7
    needs_expected = False
    takes_input = True


class Battle(_SpecJudge):
    """Judge whether the output is a better response to ``instructions`` than the reference response.

    ``instructions`` defaults to the example input.
    """

    name = "Battle"
    default_threshold = 0.7

    def __init__(
        self,
        *,
        instructions: str | None = None,
        threshold: float | None = None,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        client: Any | None = None,
        use_cot: bool | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        timeout_s: float = _DEFAULT_TIMEOUT_S,
    ) -> None:
        self.instructions = instructions
        super().__init__(
            threshold=threshold,
            model=model,
            base_url=base_url,
            api_key=api_key,
            client=client,
            use_cot=use_cot,
            temperature=temperature,
            max_tokens=max_tokens,
            timeout_s=timeout_s,
        )

    def _arguments(
        self, result: TaskResult, expected: ExpectedResult | None, context: Mapping[str, Any]
    ) -> dict[str, Any]:
        args = super()._arguments(result, expected, context)
        instructions = self.instructions
        if instructions is None:
            if context.get("input") is None:
                raise ScorerInputError(
                    "Battle needs instructions: pass instructions=... or run it with the example input"
                )
            instructions = prompt_text(context["input"])
        return {**args, "instructions": instructions}


class LLMClassifier(LLMJudgeScorer):
    """A custom judge: the model picks one of ``choice_scores``' labels for the output.

    The example's ``ExpectedResult.expected`` is the label it should pick: value 1 when the judge's
    choice equals it, else 0. A missing expected label, or one that is not among the choices, is a
    failing score (with ``error``) and no model call. The prompt may use ``{{output}}``,
    ``{{expected}}`` and ``{{input}}``.
    """

    default_threshold = 0.8

    def __init__(
        self,
        name: str,
        prompt_template: str,
        choice_scores: Mapping[str, float],
        *,
        threshold: float | None = None,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        client: Any | None = None,
        use_cot: bool = True,
        temperature: float | None = None,
        max_tokens: int | None = None,
        timeout_s: float = _DEFAULT_TIMEOUT_S,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError("LLMClassifier: name must be a non-empty string (it names the Score)")
        if not isinstance(choice_scores, Mapping) or not choice_scores:
            raise ValueError(
                "LLMClassifier: choice_scores must map each label to a score, e.g. {'Y': 1, 'N': 0}"
            )
        self.name = name
        self.choice_scores = dict(choice_scores)
        options: dict[str, Any] = {
            "name": name,
            "prompt_template": prompt_template,
            "choice_scores": self.choice_scores,
            **_judge_options(use_cot, temperature, max_tokens),
        }
        super().__init__(
            threshold=threshold,
            model=model,
            base_url=base_url,
            api_key=api_key,
            client=client,
            timeout_s=timeout_s,
            options=options,
        )

    def _build(self, autoevals: Any) -> Any:
        return autoevals.LLMClassifier(**self.options)

    def _arguments(
        self, result: TaskResult, expected: ExpectedResult | None, context: Mapping[str, Any]
    ) -> dict[str, Any]:
        label = expected_text(expected)
        choices = sorted(self.choice_scores)
        if label is None:
            raise ScorerInputError(
                f"{self.name} (LLMClassifier) needs the expected label in ExpectedResult.expected, "
                f"one of {choices}; it is missing or empty"
            )
        if label not in self.choice_scores:
            raise ScorerInputError(
                f"{self.name} (LLMClassifier): the expected label {label!r} is not one of its choices {choices}"
            )
        args: dict[str, Any] = {"output": result.output, "expected": label}
        if context.get("input") is not None:
            args["input"] = prompt_text(context["input"])
        return args

    def _to_score(self, raw: Any, expected: ExpectedResult | None) -> Score:
        metadata = dict(getattr(raw, "metadata", None) or {})
        rationale = metadata.pop("rationale", None)
        label = expected_text(expected)
        choice = metadata.get("choice")
        metadata.update(expected_label=label, choice_score=getattr(raw, "score", None))
        return threshold_score(
            self.name,
            choice is not None and choice == label,
            self.threshold,
            metadata=metadata,
            reasoning=None if rationale is None else str(rationale),
        )
