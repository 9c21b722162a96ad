"""autoevals model-backed scorers (embedding similarity and LLM-as-judge), behind a checked endpoint."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from agent_evals.adapters.scorers.autoevals_base import (
    LLMJudgeScorer,
    ScorerInputError,
    context_value,
    prompt_text,
)
from agent_evals.adapters.scorers.judge_settings import JudgeSettings, takes_judge_settings
from agent_evals.adapters.scorers.wrapped_score import check_threshold, expected_text, threshold_score
from agent_evals.core.types import ExpectedResult, Score, TaskResult

if TYPE_CHECKING:
    from typing_extensions import Unpack

_DEFAULT_TIMEOUT_S = 60.0
DEFAULT_JUDGE_MODEL = "gpt-4o-mini"
"""The chat model the judges ask when ``model`` is not given (the seed's default)."""
DEFAULT_EMBEDDING_MODEL = "text-embedding-ada-002"
"""The embedding model ``EmbeddingSimilarity`` uses when ``model`` is not given (the seed's default)."""


# --- embedding --------------------------------------------------------------------------------


class EmbeddingSimilarity(LLMJudgeScorer):
    """Cosine similarity of output and reference embeddings, rescaled above ``expected_min``."""

    name = "EmbeddingSimilarity"
    default_threshold = 0.8

    def __init__(
        self,
        *,
        threshold: float | None = None,
        model: str = DEFAULT_EMBEDDING_MODEL,
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

_SPEC_DEFAULTS: dict[str, Any] = {
    "threshold": None,
    "model": DEFAULT_JUDGE_MODEL,
    "base_url": None,
    "api_key": None,
    "client": None,
    "use_cot": None,
    "temperature": None,
    "max_tokens": None,
    "timeout_s": _DEFAULT_TIMEOUT_S,
}
"""The judges' settings when not given (autoevals decides ``use_cot``, ``temperature``, ``max_tokens``)."""

_CLASSIFIER_DEFAULTS: dict[str, Any] = {
    **_SPEC_DEFAULTS,
    "use_cot": True,
    "temperature": 0.0,
    "max_tokens": 512,
}
"""``LLMClassifier``'s settings when not given: it reasons first and answers deterministically."""


def _scorer_keywords(settings: JudgeSettings, options: Mapping[str, Any]) -> dict[str, Any]:
    """``LLMJudgeScorer``'s keywords from a judge's settings: how the judge is reached, and ``options``
    for autoevals with the settings it decides itself when they are None (``use_cot`` and so on)."""
    asked = {key: settings[key] for key in ("use_cot", "temperature", "max_tokens")}
    return {
        "threshold": settings["threshold"],
        "model": settings["model"],
        "base_url": settings["base_url"],
        "api_key": settings["api_key"],
        "client": settings["client"],
        "timeout_s": settings["timeout_s"],
        "options": {**options, **{key: value for key, value in asked.items() if value is not None}},
    }


class _SpecJudge(LLMJudgeScorer):
    """An autoevals model-graded classifier from its shipped prompt template."""

    @takes_judge_settings(_SPEC_DEFAULTS)
    def __init__(self, **settings: Unpack[JudgeSettings]) -> None:
        super().__init__(**_scorer_keywords(settings, {}))


class Factuality(_SpecJudge):
    """Judge whether the output is factually consistent with the reference answer to the input."""

    name = "Factuality"
    default_threshold = 0.7
    takes_input = True


class ClosedQA(_SpecJudge):
    """Judge whether the output answers the input and meets ``criteria`` (no reference needed).

    ``criteria`` defaults to the example's ``TaskResult.context["criteria"]``, else none.
    """

    name = "ClosedQA"
    default_threshold = 0.8
    needs_expected = False
    takes_input = True

    @takes_judge_settings(_SPEC_DEFAULTS)
    def __init__(self, *, criteria: str = "", **settings: Unpack[JudgeSettings]) -> None:
        self.criteria = criteria
        super().__init__(**settings)

    def _arguments(
        self, result: TaskResult, expected: ExpectedResult | None, context: Mapping[str, Any]
    ) -> dict[str, Any]:
        criteria = self.criteria or context_value("criteria", result, context) or ""
        return {**super()._arguments(result, expected, context), "criteria": str(criteria)}


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
    """Judge whether the output translates the input (from ``language``) like the reference does.

    ``language`` defaults to the example's ``TaskResult.context["language"]``; an example with
    neither is an errored Score, and no model call is made.
    """

    name = "Translation"
    default_threshold = 0.8
    takes_input = True

    @takes_judge_settings(_SPEC_DEFAULTS)
    def __init__(self, *, language: str | None = None, **settings: Unpack[JudgeSettings]) -> None:
        if language is not None and (not isinstance(language, str) or not language.strip()):
            raise ValueError("Translation: language must name the source language, e.g. language='Spanish'")
        self.language = language
        super().__init__(**settings)

    def _arguments(
        self, result: TaskResult, expected: ExpectedResult | None, context: Mapping[str, Any]
    ) -> dict[str, Any]:
        args = super()._arguments(result, expected, context)
        language = self.language or context_value("language", result, context)
        if not language:
            raise ScorerInputError(
                "Translation needs the source language: pass language=... or put it in "
                "TaskResult.context['language']"
            )
        return {**args, "language": str(language)}


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

    ``instructions`` defaults to ``TaskResult.context["instructions"]``, else the example input.
    """

    name = "Battle"
    default_threshold = 0.7

    @takes_judge_settings(_SPEC_DEFAULTS)
    def __init__(self, *, instructions: str | None = None, **settings: Unpack[JudgeSettings]) -> None:
        self.instructions = instructions
        super().__init__(**settings)

    def _arguments(
        self, result: TaskResult, expected: ExpectedResult | None, context: Mapping[str, Any]
    ) -> dict[str, Any]:
        args = super()._arguments(result, expected, context)
        instructions = self.instructions
        if instructions is None:
            given = context_value("instructions", result, context)
            if given is None:
                given = context_value("input", result, context)
            if given is None:
                raise ScorerInputError(
                    "Battle needs instructions: pass instructions=... or run it with the example input"
                )
            instructions = prompt_text(given)
        return {**args, "instructions": instructions}


DEFAULT_CATEGORIES: dict[str, str] = {
    "positive": "Positive sentiment",
    "negative": "Negative sentiment",
    "neutral": "Neutral sentiment",
}
"""The labels ``LLMClassifier()`` sorts outputs into when neither a prompt nor categories are given."""


def _categories_prompt(categories: Mapping[str, str]) -> str:
    listed = "\n".join(f"- {label}: {description}" for label, description in categories.items())
    return (
        "Which one of these categories does the text below belong to?\n\n"
        f"{listed}\n\nText: {{{{output}}}}\n\nAnswer with the single category that fits best."
    )


class LLMClassifier(LLMJudgeScorer):
    """A judge that sorts the output into one of several labels; passes when it picks the expected one.

    Two ways to set it up: ``LLMClassifier(name, prompt_template, choice_scores)`` with your own
    prompt (``{{output}}``, ``{{expected}}`` and ``{{input}}`` may be used), or
    ``LLMClassifier(categories={label: description, ...})`` (the seed's form; with no arguments at
    all, positive/negative/neutral sentiment), which writes the prompt from the categories.

    The example's ``ExpectedResult.expected`` is the label the judge should pick: value 1 when its
    choice equals it, else 0. A missing expected label, or one that is not among the labels, is an
    errored Score and no model call is made, so a mislabelled dataset can never pass.
    """

    default_threshold = 0.8

    @takes_judge_settings(_CLASSIFIER_DEFAULTS)
    def __init__(
        self,
        name: str | None = None,
        prompt_template: str | None = None,
        choice_scores: Mapping[str, float] | None = None,
        *,
        categories: Mapping[str, str] | None = None,
        **settings: Unpack[JudgeSettings],
    ) -> None:
        if name is not None and (not isinstance(name, str) or not name):
            raise ValueError("LLMClassifier: name must be a non-empty string (it names the Score)")
        self.name = name or "LLMClassifier"
        custom = prompt_template is not None or choice_scores is not None
        if custom and categories is not None:
            raise ValueError(
                "LLMClassifier: give either prompt_template and choice_scores, or categories, not both"
            )
        if custom:
            if not isinstance(prompt_template, str) or not prompt_template:
                raise ValueError("LLMClassifier: prompt_template must be a non-empty string")
            if not isinstance(choice_scores, Mapping) or not choice_scores:
                raise ValueError(
                    "LLMClassifier: choice_scores must map each label to a score, e.g. {'Y': 1, 'N': 0}"
                )
            self.choice_scores = dict(choice_scores)
        else:
            chosen = DEFAULT_CATEGORIES if categories is None else categories
            if not isinstance(chosen, Mapping) or not chosen:
                raise ValueError(
                    "LLMClassifier: categories must map each label to a description, "
                    "e.g. {'positive': 'Expresses approval'}"
                )
            self.categories = {str(label): str(text) for label, text in chosen.items()}
            prompt_template = _categories_prompt(self.categories)
            self.choice_scores = dict.fromkeys(self.categories, 1.0)
        options = {"name": self.name, "prompt_template": prompt_template, "choice_scores": self.choice_scores}
        super().__init__(**_scorer_keywords(settings, options))

    def _make(self, autoevals: Any, options: dict[str, Any]) -> Any:
        return autoevals.LLMClassifier(**options)

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
        given = context_value("input", result, context)
        if given is not None:
            args["input"] = prompt_text(given)
        return args

    def _to_score(self, raw: Any, expected: ExpectedResult | None) -> Score:
        metadata = dict(getattr(raw, "metadata", None) or {})
        rationale = metadata.get("rationale")
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


class Moderation(LLMJudgeScorer):
    """OpenAI's moderation endpoint: value 1 (passes) when the output is not flagged, else 0.

    ``threshold`` is the seed's and autoevals' meaning, not a pass mark: None uses the endpoint's
    own flag; a number flags the output when any category score is above it.
    """

    name = "Moderation"
    default_threshold = 0.5
    needs_expected = False

    def __init__(
        self,
        threshold: float | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: Any | None = None,
        timeout_s: float = _DEFAULT_TIMEOUT_S,
    ) -> None:
        self.category_threshold = None if threshold is None else check_threshold(threshold, self.name)
        super().__init__(
            threshold=None,
            model=None,
            base_url=base_url,
            api_key=api_key,
            client=client,
            timeout_s=timeout_s,
            options={"threshold": self.category_threshold},
        )

    def _to_score(self, raw: Any, expected: ExpectedResult | None) -> Score:
        score = super()._to_score(raw, expected)
        if score.error is not None or score.reasoning is not None:
            return score
        verdict = "was not flagged" if score.passed else "was flagged"
        return score.model_copy(update={"reasoning": f"The output {verdict} by the moderation endpoint"})
