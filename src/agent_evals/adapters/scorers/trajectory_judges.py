"""agentevals LLM-as-judge trajectory scorers, pinned to an explicit, transport-checked judge endpoint."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

from agent_evals.adapters.endpoint import validate_endpoint
from agent_evals.adapters.scorers.judge_settings import JudgeKeyMissing, resolve_api_key
from agent_evals.adapters.scorers.trajectory_input import (
    TrajectoryInputError,
    actual_value,
    graph_trajectory,
    import_agentevals,
    message_list,
    reference_value,
)
from agent_evals.adapters.scorers.wrapped_score import check_threshold, failing_score, threshold_score
from agent_evals.core.types import ExpectedResult, Score, TaskResult
from agent_evals.errors import MissingDependency

_MISSING_ENDPOINT = (
    "{scorer} needs judge_base_url: model={model!r} is a provider nickname, not an address, so "
    "without judge_base_url the provider package would decide where prompts and trajectories go. "
    "Pass where the judge runs, e.g. judge_base_url='https://api.openai.com/v1' or "
    "judge_base_url='http://localhost:11434' for a local Ollama."
)
# Provider packages named in the MissingDependency error when init_chat_model cannot load one.
_PROVIDER_PACKAGES = {"openai": "langchain-openai", "ollama": "langchain-ollama"}


def _split_model(model: object, scorer: str) -> tuple[str, str]:
    if not isinstance(model, str) or ":" not in model or model.startswith(":") or model.endswith(":"):
        raise ValueError(
            f"{scorer}: model must be 'provider:model-name', e.g. 'openai:gpt-4o-mini' or "
            f"'ollama:gpt-oss:20b'; got {model!r}"
        )
    provider, name = model.split(":", 1)
    return provider, name


def _chat_model(model: str, *, base_url: str, api_key: str | None, timeout_s: float, scorer: str) -> Any:
    """A LangChain chat model for ``provider:name`` that sends only to ``base_url``."""
    provider, _ = _split_model(model, scorer)
    try:
        from langchain.chat_models import init_chat_model
    except ImportError as exc:
        raise MissingDependency("langchain", "agentevals", f"The {scorer} scorer") from exc
    options: dict[str, Any] = {"base_url": base_url}
    if provider == "ollama":
        # Ollama's native API lives at the server root; an OpenAI-style '/v1' suffix would 404.
        options["base_url"] = base_url.rstrip("/").removesuffix("/v1")
    else:
        options["api_key"] = resolve_api_key(api_key, base_url=base_url, scorer=scorer)
        options["timeout"] = timeout_s
        options["max_retries"] = 2
    try:
        return init_chat_model(model, **options)
    except ImportError as exc:
        package = _PROVIDER_PACKAGES.get(provider, f"the LangChain integration for {provider!r}")
        raise MissingDependency(package, "agentevals", f"The {scorer} judge model {model!r}") from exc


DEFAULT_TRAJECTORY_JUDGE_MODEL = "ollama:gpt-oss:20b"
"""The judge model when ``model`` is not given (the seed's default)."""


class _TrajectoryJudge:
    """Shared set-up of the agentevals judge scorers: endpoint required and checked at construction.

    The LangChain chat model is built on the first call (so no API key is needed to construct one);
    while it cannot be built (a provider LangChain does not know, no key for a remote OpenAI judge,
    a missing provider package) every call is an errored Score saying why.
    """

    name: str = ""

    def __init__(
        self,
        prompt: str | None = None,
        model: str = DEFAULT_TRAJECTORY_JUDGE_MODEL,
        *,
        judge_base_url: str | None = None,
        api_key: str | None = None,
        continuous: bool = False,
        choices: Sequence[float] | None = None,
        use_reasoning: bool = True,
        threshold: float = 0.7,
        timeout_s: float = 60.0,
    ) -> None:
        _split_model(model, self.name)
        if judge_base_url is None:
            raise ValueError(_MISSING_ENDPOINT.format(scorer=self.name, model=model))
        self.judge_base_url = validate_endpoint(judge_base_url, parameter="judge_base_url")
        self.model = model
        self.prompt = prompt
        self.continuous = continuous
        self.threshold = check_threshold(threshold, self.name)
        self._agentevals = import_agentevals(f"The {self.name} scorer")
        self._api_key = api_key
        self._timeout_s = timeout_s
        self._choices = list(choices) if choices is not None else None
        self._use_reasoning = use_reasoning
        self._ready_lock = threading.Lock()
        self._built = False

    def _ready(self) -> None:
        """Build the judge model and the evaluators once; raises while that is not possible."""
        with self._ready_lock:
            if self._built:
                return
            judge = _chat_model(
                self.model,
                base_url=self.judge_base_url,
                api_key=self._api_key,
                timeout_s=self._timeout_s,
                scorer=self.name,
            )
            self._judge_options: dict[str, Any] = {
                "judge": judge,
                "continuous": self.continuous,
                "choices": self._choices,
                "use_reasoning": self._use_reasoning,
            }
            self._prepare()
            self._built = True

    def _unusable(self) -> Score | None:
        """None when the judge is ready, else the errored Score saying why it cannot be used."""
        try:
            self._ready()
        except JudgeKeyMissing as exc:
            return _judge_error(self.name, str(exc))
        except (ValueError, ImportError) as exc:  # init_chat_model: an unknown provider or package
            return _judge_error(self.name, f"{self.name}: cannot use the judge model {self.model!r}: {exc}")
        return None

    def _prepare(self) -> None:
        """Build what the subclass's calls need once the judge is configured (nothing by default)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, judge_base_url={self.judge_base_url!r})"

    def _score(self, verdict: Any, trajectory_length: int | None, reference_length: int | None) -> Score:
        if isinstance(verdict, list):  # a custom prompt/schema may yield several results
            verdict = verdict[0] if verdict else {}
        metadata: dict[str, Any] = {
            "agentevals_key": verdict.get("key", "unknown"),
            **(verdict.get("metadata") or {}),
            "model": self.model,
            "model_used": self.model,
        }
        if trajectory_length is not None:
            metadata["trajectory_length"] = trajectory_length
        if reference_length is not None:
            metadata["reference_trajectory_length"] = reference_length
        if self.prompt is not None:
            metadata["prompt_template"] = self.prompt[:50] + "..." if len(self.prompt) > 50 else self.prompt
        return threshold_score(
            self.name,
            verdict.get("score"),
            self.threshold,
            metadata=metadata,
            reasoning=verdict.get("comment"),
        )


def _judge_error(name: str, message: str) -> Score:
    return failing_score(name, message, reasoning=f"Scorer failed: {message}")


class TrajectoryLLMAsJudge(_TrajectoryJudge):
    """An LLM grades the agent's message trajectory (with or without a reference trajectory).

    ``judge_base_url`` is required. Without ``prompt``, agentevals' accuracy prompt is used, or its
    with-reference variant when the example has ``reference_outputs``. With ``continuous=True`` the
    judge's score in [0, 1] is kept as the value; otherwise it is 0 or 1.
    """

    name = "TrajectoryLLMAsJudge"

    def _prepare(self) -> None:
        llm = self._agentevals.trajectory.llm
        self._without_reference = llm.create_trajectory_llm_as_judge(
            prompt=self.prompt or llm.TRAJECTORY_ACCURACY_PROMPT, **self._judge_options
        )
        self._with_reference = llm.create_trajectory_llm_as_judge(
            prompt=self.prompt or llm.TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE, **self._judge_options
        )

    async def __call__(
        self, result: TaskResult, expected: ExpectedResult | None = None, **context: Any
    ) -> Score:
        """Ask the judge; a missing trajectory or a judge failure is a failing Score with ``error``."""
        unusable = await asyncio.to_thread(self._unusable)  # the first call imports the provider package
        if unusable is not None:
            return unusable
        try:
            outputs = message_list(actual_value(result, self.name), "context['outputs']")
            raw_reference = reference_value(expected, self.name, required=False)
            reference = (
                None if raw_reference is None else message_list(raw_reference, "context['reference_outputs']")
            )
        except TrajectoryInputError as exc:
            return _judge_error(self.name, f"{self.name}: {exc}")
        evaluator = self._with_reference if reference else self._without_reference
        try:
            verdict = await asyncio.to_thread(evaluator, outputs=outputs, reference_outputs=reference)
        except Exception as exc:
            return _judge_error(self.name, f"{self.name}: the judge call failed: {type(exc).__name__}: {exc}")
        return self._score(verdict, len(outputs), len(reference) if reference else None)


class GraphTrajectoryLLMAsJudge(_TrajectoryJudge):
    """An LLM grades a LangGraph trajectory (``{"steps", "results", "inputs"?}``), reference optional.

    ``judge_base_url`` is required; ``prompt`` defaults to agentevals' graph-trajectory prompt,
    which includes the reference thread when the example has ``reference_outputs``.
    """

    name = "GraphTrajectoryLLMAsJudge"

    def _prepare(self) -> None:
        graph_llm = _import_graph_llm(self.name)
        options = dict(self._judge_options)
        if self.prompt is not None:
            options["prompt"] = self.prompt
        self._evaluator = graph_llm.create_graph_trajectory_llm_as_judge(**options)

    async def __call__(
        self, result: TaskResult, expected: ExpectedResult | None = None, **context: Any
    ) -> Score:
        """Ask the judge; a missing trajectory or a judge failure is a failing Score with ``error``."""
        unusable = await asyncio.to_thread(self._unusable)  # the first call imports the provider package
        if unusable is not None:
            return unusable
        try:
            outputs = graph_trajectory(actual_value(result, self.name), "context['outputs']")
            raw_reference = reference_value(expected, self.name, required=False)
            reference = (
                None
                if raw_reference is None
                else graph_trajectory(raw_reference, "context['reference_outputs']")
            )
        except TrajectoryInputError as exc:
            return _judge_error(self.name, f"{self.name}: {exc}")
        try:
            verdict = await asyncio.to_thread(
                self._evaluator, inputs=outputs["inputs"], outputs=outputs, reference_outputs=reference
            )
        except Exception as exc:
            return _judge_error(self.name, f"{self.name}: the judge call failed: {type(exc).__name__}: {exc}")
        return self._score(
            verdict, _node_count(outputs), None if reference is None else _node_count(reference)
        )


def _node_count(trajectory: Any) -> int:
    return sum(len(step) for step in trajectory.get("steps") or [])


def _import_graph_llm(scorer: str) -> Any:
    try:
        import agentevals.graph_trajectory.llm as graph_llm
    except ImportError as exc:
        raise MissingDependency("agentevals", "agentevals", f"The {scorer} scorer") from exc
    return graph_llm
