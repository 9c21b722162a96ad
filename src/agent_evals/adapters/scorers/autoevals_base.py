"""The machinery behind every autoevals wrapper: lazy import, per-example arguments, Score conversion."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any, ClassVar

from agent_evals.adapters.endpoint import validate_endpoint
from agent_evals.adapters.scorers.judge_settings import check_client_endpoint, resolve_api_key
from agent_evals.adapters.scorers.wrapped_score import (
    check_threshold,
    expected_text,
    failing_score,
    threshold_score,
)
from agent_evals.core.types import ExpectedResult, Score, TaskResult
from agent_evals.errors import MissingDependency


class ScorerInputError(ValueError):
    """An example that a wrapped scorer cannot score (missing reference, input, or label)."""


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
                raise ScorerInputError(
                    f"{self.name} needs a reference: set ExpectedResult.expected for this example "
                    "(it is missing or empty)"
                )
            args["expected"] = reference
        if self.takes_input:
            if context.get("input") is None:
                raise ScorerInputError(
                    f"{self.name} needs the example input for its prompt; call it with input=... "
                    "(run_eval_async passes it)"
                )
            args["input"] = prompt_text(context["input"])
        return args

    def _to_score(self, raw: Any, expected: ExpectedResult | None) -> Score:
        metadata = dict(getattr(raw, "metadata", None) or {})
        rationale = metadata.pop("rationale", None)
        return threshold_score(
            self.name,
            getattr(raw, "score", None),
            self.threshold,
            metadata=metadata,
            reasoning=None if rationale is None else str(rationale),
        )

    def _failed(self, exc: Exception) -> Score:
        # a third-party failure must not take the run down
        return failing_score(self.name, f"{self.name} failed: {type(exc).__name__}: {exc}")


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
            return failing_score(self.name, str(exc))
        try:
            raw = self._evaluate(arguments)
        except Exception as exc:
            return self._failed(exc)
        return self._to_score(raw, expected)


class LLMJudgeScorer(_AutoevalsWrapper):
    """Base of the autoevals wrappers that call a model (chat completions or embeddings).

    The judge is reached through ``client`` (a ready OpenAI client, sync or async) or through
    ``base_url`` (+ ``api_key``); one of the two is required, and the endpoint must satisfy the
    transport rule (``validate_endpoint``) at construction.
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
        elif base_url is not None:
            validate_endpoint(base_url, parameter="base_url")
        else:
            raise ValueError(
                f"{self.name} sends prompts to a model, so it needs to know where: pass "
                "base_url='https://...' (http only for localhost) or a ready client=..."
            )
        self.base_url = base_url
        self._async_client = False
        if client is None:
            import_autoevals(f"The {self.name} scorer")  # MissingDependency before openai's own error
            client = self._make_client(base_url or "", api_key, timeout_s)
        else:
            self._async_client = _is_async_client(client)
        all_options: dict[str, Any] = {**(options or {}), "client": client}
        if model is not None:
            all_options["model"] = model
        if base_url is not None:
            all_options["base_url"] = base_url  # keys autoevals' embedding cache by endpoint
        super().__init__(threshold=threshold, options=all_options)

    def _make_client(self, base_url: str, api_key: str | None, timeout_s: float) -> Any:
        try:
            import openai
        except ImportError as exc:
            raise MissingDependency("openai", "autoevals", f"The {self.name} scorer") from exc
        key = resolve_api_key(api_key, base_url=base_url, scorer=self.name)
        # A sync client is bound to no event loop, so one client serves every run and thread.
        return openai.OpenAI(base_url=base_url, api_key=key, timeout=timeout_s, max_retries=2)

    async def _evaluate(self, arguments: dict[str, Any]) -> Any:
        if self._async_client:
            return await self._scorer.eval_async(**arguments)
        return await asyncio.to_thread(self._scorer.eval, **arguments)

    async def __call__(
        self, result: TaskResult, expected: ExpectedResult | None = None, **context: Any
    ) -> Score:
        """Ask the judge about one example: ``await scorer(result, expected, **context)``."""
        try:
            arguments = self._arguments(result, expected, context)
        except ScorerInputError as exc:
            return failing_score(self.name, str(exc))
        try:
            raw = await self._evaluate(arguments)
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
