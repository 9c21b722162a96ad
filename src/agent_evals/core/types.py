"""The typed values that flow through an evaluation: task results, examples, scores, results."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from functools import cached_property
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, computed_field, field_validator

from agent_evals.core.messages import extract_tool_calls


class TaskResult(BaseModel):
    """What a task returns for one input."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    output: str = ""
    """The agent's final text answer."""
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
    """The reference for one example."""

    expected: str = ""
    """The expected text answer (may be empty when only the context matters)."""
    context: dict[str, Any] | None = None
    """Structured expectations: ``expected_state``, ``reference_outputs``, ..."""


class ExampleData(BaseModel):
    """One dataset row: an input, its reference, and optionally a stored output to replay."""

    input: Any
    """What the task receives."""
    expected: ExpectedResult | None = None
    """The reference, if any."""
    output: TaskResult | None = None
    """A stored result: when given, the task is not called for this example."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Free-form labels carried into the result."""


class Score(BaseModel):
    """One scorer's verdict on one example."""

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

    @field_validator("value")
    @classmethod
    def _value_in_unit_interval(cls, value: float) -> float:
        if not 0.0 <= value <= 1.0 or value != value:  # NaN fails the second test
            raise ValueError(f"Score.value must be between 0 and 1, got {value!r}")
        return value


class ExampleResult(BaseModel):
    """The outcome of one example: the task's output and every scorer's Score."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    index: int
    """Position in the dataset."""
    input: Any
    """The example's input."""
    expected: ExpectedResult | None = None
    """The example's reference."""
    output: str | None = None
    """The task's text output (None when the task failed)."""
    context: dict[str, Any] | None = None
    """The task's context (outputs, final_state, usage)."""
    scores: dict[str, Score] = Field(default_factory=dict)
    """Scores keyed by scorer name."""
    error: str | None = None
    """Set when the task raised or timed out; its scorers did not run."""
    duration: float = 0.0
    """Seconds spent on the task and its scorers."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """The example's metadata."""
    trajectory: list[Any] | None = None
    """The message list (``context["outputs"]``) when the task returned one."""

    @computed_field  # type: ignore[prop-decorator]
    @cached_property
    def tool_calls(self) -> list[dict[str, Any]] | None:
        """Tool calls found in the trajectory, as ``{"name", "args"}`` (None without a readable one).

        Worked out on first access, so a run whose tool calls nobody reads does not pay for them.
        """
        if self.trajectory is None:
            return None
        try:
            return extract_tool_calls(self.trajectory)
        except (TypeError, ValueError):
            return None

    @property
    def passed(self) -> bool:
        """True when the task succeeded and every score passed."""
        return self.error is None and bool(self.scores) and all(s.passed for s in self.scores.values())


class EvalSummary(BaseModel):
    """Counts over the examples of a run."""

    total: int
    """Examples in the dataset."""
    successful: int
    """Examples whose task succeeded and every score passed."""
    failed: int
    """Examples that errored or failed a scorer."""
    errors: int = 0
    """Examples whose task raised or timed out."""


class EvalResult(BaseModel):
    """The outcome of ``run_eval_async``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    pass_rates: dict[str, float]
    """Fraction of examples that passed, per scorer (an errored example counts as failed)."""
    scores: dict[str, float]
    """Mean score value, per scorer."""
    examples: list[ExampleResult]
    """Per-example results, in dataset order."""
    summary: EvalSummary
    """Counts of examples."""
    duration: float
    """Wall-clock seconds of the whole run."""
    started_at: datetime | None = None
    """When the run started (UTC)."""
    experiment_id: str | None = None
    """The platform's id for this run, if it recorded one."""
    experiment_url: str | None = None
    """Where the platform stored the run (a folder path for the local platform)."""
    platform: str | None = None
    """Name of the platform the results were written to."""


class EvalConfig(BaseModel):
    """How a run executes."""

    model_config = ConfigDict(populate_by_name=True)

    max_concurrency: int = Field(
        default=1, ge=1, validation_alias=AliasChoices("max_concurrency", "max_concurrent_tests")
    )
    """Examples in flight at once (``max_concurrent_tests`` is accepted as a synonym)."""
    timeout_s: float | None = Field(default=None, gt=0)
    """Per-example timeout in seconds for the task, None for no limit."""
    scorer_timeout_s: float | None = Field(default=None, gt=0)
    """Per-scorer timeout in seconds, None for no limit."""

    @property
    def max_concurrent_tests(self) -> int:
        """Seed-compatible spelling of ``max_concurrency``."""
        return self.max_concurrency
