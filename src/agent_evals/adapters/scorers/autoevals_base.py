"""The machinery behind every autoevals wrapper: lazy import, per-example arguments, Score conversion."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Mapping
from typing import Any, ClassVar

from agent_evals.adapters.scorers.judge_settings import (
    JudgeKeyMissing,
    check_client_endpoint,
    client_base_url,
    judge_endpoint,
    resolve_api_key,
)
from agent_evals.adapters.scorers.wrapped_score import (
    check_threshold,
    expected_text,
    failing_score,
    missing_reference_score,
    threshold_score,
)
from agent_evals.core.types import ExpectedResult, Score, TaskResult
from agent_evals.errors import MissingDependency


class ScorerInputError(ValueError):
    """An example that a wrapped scorer cannot score (missing reference, input, or label)."""


class MissingReference(ScorerInputError):
    """A comparison scorer got no reference text (``ExpectedResult.expected`` missing or blank)."""


def context_value(key: str, result: TaskResult, context: Mapping[str, Any]) -> Any:
    """A per-example value for a judge prompt: the keyword the runner passes, else ``result.context[key]``.

    ``run_eval_async`` passes ``input=``; code written for the seed puts ``input``, ``criteria``,
    ``language`` or ``instructions`` into ``TaskResult.context`` instead. None when neither has it.
    """
    if context.get(key) is not None:
        return context[key]
    return (result.context or {}).get(key)


def import_autoevals(feature: str) -> Any:
    """Import autoevals, or raise MissingDependency naming the extra to install."""
    try:
        import autoevals
    except ImportError as exc:
        raise MissingDependency("autoevals", "autoevals", feature) from exc
    return autoevals


def prompt_text(value: Any) -> str:
    """Render an example input for a judge prompt: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


class _AutoevalsWrapper:
    """What every autoevals wrapper shares: the autoevals object, per-example arguments, the Score.

    Subclasses set ``name`` (the autoevals class and the Score name), ``default_threshold``,
    ``needs_expected`` (fail without a reference, before any work) and ``takes_input`` (the judge
    prompt has ``{{input}}``, filled from the example input the runner passes as ``input=``).
    """

    name: str = ""
    default_threshold: ClassVar[float] = 1.0
    needs_expected: ClassVar[bool] = True
    takes_input: ClassVar[bool] = False

    def __init__(self, *, threshold: float | None, options: Mapping[str, Any] | None = None) -> None:
        self.threshold = check_threshold(
            self.default_threshold if threshold is None else threshold, self.name
        )
        self.options: dict[str, Any] = dict(options or {})
        self._autoevals = import_autoevals(f"The {self.name} scorer")
        self._scorer = self._build(self._autoevals)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(threshold={self.threshold})"

    def _build(self, autoevals: Any) -> Any:
        """Construct the autoevals scorer object."""
        return getattr(autoevals, self.name)(**self.options)

    def _arguments(
        self, result: TaskResult, expected: ExpectedResult | None, context: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Keyword arguments for autoevals' ``eval``; raise ScorerInputError for an unscorable example."""
        args: dict[str, Any] = {"output": result.output}
        reference = expected_text(expected)
        if self.needs_expected:
            if reference is None:
                raise MissingReference(self.name)
            args["expected"] = reference
        if self.takes_input:
            value = context_value("input", result, context)
            if value is None:
                raise ScorerInputError(
                    f"{self.name} needs the example input for its prompt; call it with input=... "
                    "(run_eval_async passes it) or put it in TaskResult.context['input']"
                )
            args["input"] = prompt_text(value)
        return args

    def _input_error(self, exc: ScorerInputError, result: TaskResult) -> Score:
        """The errored Score of an example this scorer cannot score; no model or library call was made."""
        if isinstance(exc, MissingReference):
            return missing_reference_score(self.name, result.output)
        return failing_score(self.name, str(exc), reasoning=f"{self.name} could not score this example")

    def _to_score(self, raw: Any, expected: ExpectedResult | None) -> Score:
        # autoevals keeps a judge's rationale in its metadata; it stays there (as in the seed) and
        # also becomes the reasoning
        metadata = dict(getattr(raw, "metadata", None) or {})
        rationale = metadata.get("rationale")
        return threshold_score(
            self.name,
            getattr(raw, "score", None),
            self.threshold,
            metadata=metadata,
            reasoning=None if rationale is None else str(rationale),
        )

    def _failed(self, exc: Exception) -> Score:
        # a third-party failure must not take the run down
        return failing_score(
            self.name,
            f"{self.name} failed: {type(exc).__name__}: {exc}",
            reasoning=f"Scorer failed with exception: {type(exc).__name__}",
        )


class AutoevalsScorer(_AutoevalsWrapper):
    """Base of the deterministic autoevals wrappers: ``scorer(result, expected)`` returns a Score.

    They are plain computation, so they are called synchronously (inside ``run_eval_async`` they
    run in a worker thread, never on the event loop).
    """

    def _evaluate(self, arguments: dict[str, Any]) -> Any:
        """Run the autoevals scorer."""
        return self._scorer.eval(**arguments)

    def __call__(self, result: TaskResult, expected: ExpectedResult | None = None, **context: Any) -> Score:
        """Score one example: a Score named ``self.name``; bad examples give a failing Score with ``error``."""
        try:
            arguments = self._arguments(result, expected, context)
        except ScorerInputError as exc:
            return self._input_error(exc, result)
        try:
            raw = self._evaluate(arguments)
        except Exception as exc:
            return self._failed(exc)
        return self._to_score(raw, expected)


class LLMJudgeScorer(_AutoevalsWrapper):
    """Base of the autoevals wrappers that call a model (chat completions, embeddings, moderation).

    The judge is reached through ``client`` (a ready OpenAI client, sync or async) or at
    ``base_url`` (default: ``OPENAI_BASE_URL``, else OpenAI's https endpoint). The endpoint must
    satisfy the transport rule at construction; the API key is read on the first call, and a
    missing one makes that call an errored Score (never a pass).
    """

    def __init__(
        self,
        *,
        threshold: float | None,
        model: str | None,
        base_url: str | None,
        api_key: str | None,
        client: Any | None,
        timeout_s: float,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        if client is not None:
            check_client_endpoint(client, parameter="client.base_url")
            self.endpoint: str | None = client_base_url(client)
        else:
            self.endpoint = judge_endpoint(base_url)
        self.base_url = base_url
        self.model = model
        self._api_key = api_key
        self._timeout_s = timeout_s
        self._client = client
        self._async_client = client is not None and _is_async_client(client)
        self._ready_lock = threading.Lock()
        all_options: dict[str, Any] = dict(options or {})
        if model is not None:
            all_options["model"] = model
        super().__init__(threshold=threshold, options=all_options)

    def _build(self, autoevals: Any) -> Any:
        return None  # built on the first call (_ready), when the API key is read

    def _make(self, autoevals: Any, options: dict[str, Any]) -> Any:
        """Construct the autoevals scorer object with its client."""
        return getattr(autoevals, self.name)(**options)

    def _ready(self) -> Any:
        """The autoevals scorer, built once; raises JudgeKeyMissing while no key is configured."""
        with self._ready_lock:
            if self._scorer is None:
                client = self._client
                if client is None:
                    client = self._make_client()
                options = {**self.options, "client": client}
                if self._client is None and self.name == "EmbeddingSimilarity":
                    options["base_url"] = self.endpoint  # keys autoevals' embedding cache by endpoint
                self._scorer = self._make(self._autoevals, options)
            return self._scorer

    def _make_client(self) -> Any:
        try:
            import openai
        except ImportError as exc:
            raise MissingDependency("openai", "autoevals", f"The {self.name} scorer") from exc
        endpoint = self.endpoint or ""
        key = resolve_api_key(self._api_key, base_url=endpoint, scorer=self.name)
        # A sync client is bound to no event loop, so one client serves every run and thread.
        return openai.OpenAI(base_url=endpoint, api_key=key, timeout=self._timeout_s, max_retries=2)

    async def _evaluate(self, arguments: dict[str, Any]) -> Any:
        scorer = self._ready()
        if self._async_client:
            return await scorer.eval_async(**arguments)
        return await asyncio.to_thread(scorer.eval, **arguments)

    async def __call__(
        self, result: TaskResult, expected: ExpectedResult | None = None, **context: Any
    ) -> Score:
        """Ask the judge about one example: ``await scorer(result, expected, **context)``."""
        try:
            arguments = self._arguments(result, expected, context)
        except ScorerInputError as exc:
            return self._input_error(exc, result)
        try:
            raw = await self._evaluate(arguments)
        except JudgeKeyMissing as exc:
            return failing_score(self.name, str(exc), reasoning=f"{self.name} has no API key for its judge")
        except Exception as exc:
            return self._failed(exc)
        return self._to_score(raw, expected)


def _is_async_client(client: Any) -> bool:
    if getattr(client, "is_async", False):  # autoevals.LLMClient(is_async=True)
        return True
    inner = getattr(client, "openai", client)
    try:
        import openai
    except ImportError:
        return False
    return isinstance(inner, openai.AsyncOpenAI)
