"""The typed values that flow through an evaluation: task results, examples, scores, results."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, PrivateAttr, ValidationInfo, field_validator

if TYPE_CHECKING:
    from agent_evals.record.model import RunRecord


class TaskResult(BaseModel):
    """What a task returns for one input (unknown fields are refused, so a typo is an error)."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    output: str
    """The agent's final text answer (required; ``""`` when only the context matters)."""
    context: dict[str, Any] | None = None
    """Anything else scorers need: ``outputs`` (messages), ``final_state``, ``usage``, ..."""

    @classmethod
    def from_messages(cls, messages: Iterable[Any], **context: Any) -> TaskResult:
        """Build a result from a message list: the last assistant text becomes ``output``.

        Messages may be OpenAI-format dicts or framework message objects with ``role``/``type``
        and ``content`` attributes; they are kept as given under ``context["outputs"]``.
        """
        msgs = list(messages)
        output = ""
        for message in reversed(msgs):
            role, content = _role_and_content(message)
            if role in ("assistant", "ai") and content:
                output = content
                break
        return cls(output=output, context={**context, "outputs": msgs})

    @classmethod
    def from_run(cls, result: Any, **context: Any) -> TaskResult:
        """Build a result from what an agent framework's run returned, with no glue.

        ``output`` is the run's final text (structured output as JSON), ``context["outputs"]`` its
        messages in OpenAI chat format (assistant ``tool_calls`` with JSON-text arguments, ``tool``
        results) and ``context["usage"]`` its input and output tokens, with ``model`` when one model
        answered. Reads, by shape and without importing any framework: an OpenAI Agents SDK
        ``RunResult`` (or a finished ``RunResultStreaming``), a PydanticAI ``AgentRunResult``, an
        OpenAI Responses API response or its ``output`` items, a LangGraph state
        (``{"messages": [...]}``) or a list of LangChain or OpenAI messages, a Strands
        ``AgentResult``, ``Agent`` or message list. ``context`` is merged in and wins over what the
        run gave (``from_run(result, final_state=..., usage=...)``).

        Raises TypeError naming what it reads for anything else.
        """
        from agent_evals.core.converters.run_result import read_run

        output, messages, usage = read_run(result)
        found: dict[str, Any] = {"outputs": messages}
        if usage is not None:
            found["usage"] = usage
        return cls(output=output, context={**found, **context})


def _role_and_content(message: Any) -> tuple[str | None, str]:
    if isinstance(message, Mapping):
        role = message.get("role") or message.get("type")
        content = message.get("content")
    else:
        role = getattr(message, "role", None) or getattr(message, "type", None)
        content = getattr(message, "content", None)
    return (str(role) if role is not None else None), _content_text(content)


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts: [{"type": "text", "text": ...}, ...]
        parts = [p.get("text", "") if isinstance(p, Mapping) else str(p) for p in content]
        return "".join(parts)
    return json.dumps(content) if isinstance(content, Mapping) else str(content)


class ExpectedResult(BaseModel):
    """The reference for one example (unknown fields are refused)."""

    model_config = ConfigDict(extra="forbid")

    expected: str
    """The expected text answer (required; ``""`` when only the context matters)."""
    context: dict[str, Any] | None = None
    """Structured expectations: ``expected_state``, ``reference_outputs``, ..."""


class ExampleData(BaseModel):
    """One dataset row: an input, its reference, and optionally a stored output to replay.

    Unknown top-level keys are refused and assignments are validated, so a misspelt ``expected``
    or ``output`` is an error rather than an example silently scored without it.
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True, arbitrary_types_allowed=True)

    input: Any
    """What the task receives."""
    expected: ExpectedResult | None = None
    """The reference, if any."""
    output: TaskResult | None = None
    """A stored result: when given, the task is not called for this example."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Free-form labels carried into the result (None is read as ``{}``)."""

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata_is_a_dict(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise ValueError(f"'{info.field_name}' must be a dict, got {type(value).__name__}")
        return value


class Score(BaseModel):
    """One scorer's verdict on one example; immutable, unknown fields refused."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    """The scorer's name; results are keyed by it."""
    value: float
    """The score, from 0 (worst) to 1 (best)."""
    passed: bool
    """Whether the example passes this scorer."""
    error: str | None = None
    """Set when the scorer (or the task) failed; an errored score never passes."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Scorer-specific detail: failures, counts, judge metadata."""
    reasoning: str | None = None
    """A judge's rationale or a human-readable explanation."""
    execution_time_ms: float | None = None
    """How long the scorer took, in milliseconds, when it measured itself."""

    @field_validator("value")
    @classmethod
    def _value_in_unit_interval(cls, value: float) -> float:
        if not 0.0 <= value <= 1.0:  # NaN fails this comparison too
            raise ValueError(
                f"Score value must be between 0.0 and 1.0 (inclusive), got {value!r}; "
                "scale the scorer's result into that range (the autoevals wrappers do this)"
            )
        return value


class EvalExample(BaseModel):
    """The outcome of one example: the task's output and every scorer's Score."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    input: Any
    """The example's input."""
    output: str = ""
    """The task's text output (``""`` when the task failed)."""
    expected: str | None = None
    """The reference text (``ExpectedResult.expected``), None when the example had no reference."""
    scores: dict[str, Score] = Field(default_factory=dict)
    """Scores keyed by scorer name (empty when the task failed: nothing was scored)."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """The example's metadata."""
    duration: float = 0.0
    """Seconds spent on the task and its scorers."""
    error: str | None = None
    """Set when the task raised or timed out; its scorers did not run."""
    trajectory: list[Any] | None = None
    """The message list (``context["outputs"]``) when the task returned one."""
    tool_calls: list[dict[str, Any]] | None = None
    """The assistant turns' ``tool_calls`` entries as given (OpenAI wire dicts), in order.

    None without a trajectory, ``[]`` when the trajectory has no tool call.
    """
    index: int = 0
    """Position in the dataset."""
    expected_context: dict[str, Any] | None = None
    """The reference's structured part (``ExpectedResult.context``)."""
    context: dict[str, Any] | None = None
    """The task's context (outputs, final_state, usage)."""
    attempts: list[dict[str, Any]] = Field(default_factory=list)
    """Earlier attempts of the task retried by ``retry_errors`` (the run record's ``attempts``)."""
    cache: dict[str, Any] | None = None
    """What the response cache did for this example (the run record's ``cache``), when it was on."""
    usage: dict[str, Any] | None = None
    """Tokens and cost of the task's final attempt (the run record's ``usage``): its model calls as
    the usage hook counted them (OpenAI, Anthropic, Ollama clients over httpx), with
    ``context["usage"]`` taking precedence, priced with the price table; None when nothing reported any."""

    @property
    def scorer_errors(self) -> dict[str, str]:
        """Scorer name -> error message, for the scorers that could not give a verdict."""
        return {name: s.error for name, s in self.scores.items() if s.error is not None}

    @property
    def failed(self) -> bool:
        """True when the task failed or any scorer could not give a verdict (what the counts use)."""
        return self.error is not None or any(s.error is not None for s in self.scores.values())

    _replaced: list[Score] = PrivateAttr(default_factory=list)

    @property
    def replaced_scores(self) -> list[Score]:
        """Scores that a later scorer's Score of the same name replaced in ``scores`` (the seed's rule).

        Kept so that a collision never hides a failure: ``passed`` still looks at them, and a run
        record made from the result stores them as ``Name`` next to the kept one as ``Name#2``.
        """
        return self._replaced

    @property
    def passed(self) -> bool:
        """True when the task succeeded and every score passed (also any score a collision replaced)."""
        return (
            self.error is None
            and bool(self.scores)
            and all(s.passed for s in self.scores.values())
            and all(s.passed for s in self._replaced)
        )


ExampleResult = EvalExample
"""The earlier name of :class:`EvalExample`."""


def wire_tool_calls(trajectory: list[Any] | None) -> list[dict[str, Any]] | None:
    """The ``tool_calls`` entries of the assistant dict messages in ``trajectory``, flattened in order."""
    if trajectory is None:
        return None
    calls: list[dict[str, Any]] = []
    for message in trajectory:
        if isinstance(message, Mapping) and message.get("role") == "assistant":
            calls.extend(message.get("tool_calls") or [])
    return calls


def task_result_to_example(
    *,
    task_result: TaskResult,
    input: Any,
    expected: ExpectedResult | None,
    scores: dict[str, Score],
    metadata: dict[str, Any],
    duration: float,
    error: str | None,
) -> EvalExample:
    """The EvalExample for a task result (the seed's helper, for code that builds results itself).

    The trajectory is ``task_result.context["outputs"]`` when that is a list of messages, and
    ``tool_calls`` its assistant turns' calls in order; any other ``outputs`` value is left out with
    a warning naming it, and a missing or None one means no trajectory.
    """
    outputs = (task_result.context or {}).get("outputs")
    if outputs is not None and not isinstance(outputs, list):
        logging.getLogger(__name__).warning(
            "context['outputs'] is a %s, not a list of messages; the example keeps no trajectory",
            type(outputs).__name__,
        )
        outputs = None
    return EvalExample(
        input=input,
        output=task_result.output,
        expected=expected.expected if expected is not None else None,
        expected_context=expected.context if expected is not None else None,
        context=task_result.context,
        scores=scores,
        metadata=metadata,
        duration=duration,
        error=error,
        trajectory=outputs,
        tool_calls=wire_tool_calls(outputs),
    )


class EvalResult(BaseModel):
    """The outcome of ``run_eval_async``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    pass_rates: dict[str, float]
    """Fraction of examples that passed, per scorer (an errored example counts as failed)."""
    scores: dict[str, float]
    """Mean score value, per scorer."""
    examples: list[EvalExample]
    """Per-example results, in dataset order."""
    summary: dict[str, Any]
    """Counts: ``total_examples``, ``successful_examples``, ``failed_examples`` and ``errored_examples``.

    An example is failed when its task errored or a scorer could not give a verdict; one that
    was scored and simply did not pass is still successful. ``errored_examples`` counts task errors.
    """
    duration: float = 0.0
    """Wall-clock seconds of the whole run."""
    experiment_id: str | None = None
    """The platform's id for this run, if it recorded one."""
    experiment_url: str | None = None
    """Where the platform stored the run (a folder path for the local platform)."""
    platform: str | None = None
    """Name of the platform the results were written to."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Run-level labels."""
    started_at: datetime | None = None
    """When the run started (UTC)."""

    _judge_models: list[str] = PrivateAttr(default_factory=list)

    @property
    def judge_models(self) -> list[str]:
        """The models the run's LLM scorers (judges) ask, as they name them: ``to_run_record`` keeps
        them with the models the examples' tasks used, so ``compare`` sees a change of either."""
        return self._judge_models

    def to_run_record(
        self,
        *,
        suite_id: str = "library",
        group: str | None = None,
        agent_name: str | None = None,
        agent_version: str | None = None,
    ) -> RunRecord:
        """This result as a run record that ``agent-evals compare``, ``report`` and the gate read.

        One ``evals`` suite ``suite_id``; one case per example with one trial. A case's id is
        ``metadata['id']``, else a hash of its input (``input-1a2b...``); a repeated id gets ``#2``,
        ``#3``. Its group is ``metadata['dataset']`` (or ``group``), else ``group``, else ``suite_id``.
        A trial passes only as ``ExampleResult.passed`` does; an example whose task or a scorer
        errored is an errored trial (never a pass). Secrets from the environment are masked.
        Write it with ``agent_evals.record.store.write_record(path, record)``.
        """
        from agent_evals.core.eval_record import eval_result_to_run_record

        return eval_result_to_run_record(
            self, suite_id=suite_id, group=group, agent_name=agent_name, agent_version=agent_version
        )


class EvalConfig(BaseModel):
    """How a run executes (unknown fields are refused)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    max_concurrent_tests: int = Field(
        default=1, validation_alias=AliasChoices("max_concurrent_tests", "max_concurrency")
    )
    """Examples in flight at once (``max_concurrency`` is accepted as a synonym)."""
    timeout_s: float | None = Field(default=None, gt=0)
    """Per-example timeout in seconds for the task, None for no limit."""
    scorer_timeout_s: float | None = Field(default=None, gt=0)
    """Per-scorer timeout in seconds, None for no limit."""
    retry_errors: int = Field(default=0, ge=0)
    """Retry a task call that failed with an infrastructure error (HTTP 429/5xx, the SDKs'
    rate-limit, timeout and connection errors) up to this many more times (see ``core.retry``)."""

    @field_validator("max_concurrent_tests")
    @classmethod
    def _at_least_one(cls, value: int, info: ValidationInfo) -> int:
        if value < 1:
            raise ValueError(f"{info.field_name} must be >= 1, got {value}")
        return value

    @property
    def max_concurrency(self) -> int:
        """The other spelling of ``max_concurrent_tests``."""
        return self.max_concurrent_tests
