"""Pydantic models of a benchmark file; unknown keys are rejected with a did-you-mean hint."""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal, cast

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from agent_evals.errors import did_you_mean

SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
"""A safe path segment: letters, digits, dot, dash and underscore, not starting with a dot."""

AGENT_REF = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
"""``package.module:Attribute``."""

MatchCalls = Literal["exact", "subset", "superset", "unordered", "any_of"]
"""How the agent's tool calls must relate to the listed calls."""

MatchArgs = Literal["exact", "subset", "superset", "ignore"]
"""How each call's arguments must relate to the listed arguments."""


def _scalar_text(value: Any) -> Any:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return str(value)
    if not isinstance(value, str):
        raise ValueError(f"expected a plain value (text, number or boolean), found a {type(value).__name__}")
    return value


def _id_text(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError("a scenario id must be a number or a name")
    return str(value)


DimensionValue = Annotated[str, BeforeValidator(_scalar_text)]
"""A dimension value: text, a number or a boolean, kept as text (``true``, ``3``)."""

ScenarioId = Annotated[str, BeforeValidator(_id_text)]
"""A scenario id: a number or a name, kept as text."""


def _private(model: BaseModel) -> dict[str, Any]:
    """A model's private attribute values (pydantic keeps them in one dict per instance)."""
    return cast("dict[str, Any]", model.__pydantic_private__)


class StrictModel(BaseModel):
    """Base of every benchmark model: unknown keys, and keys written without a value, are errors.

    A key written as ``key:`` or ``key: null`` is refused unless it is in ``nullable``: a check,
    a cases file or a precondition that has no value would otherwise vanish without a word.
    """

    model_config = ConfigDict(extra="forbid")

    nullable: ClassVar[frozenset[str]] = frozenset()
    """Keys where no value means the same as leaving the key out (descriptions, names, ...)."""

    @field_validator("*", mode="before")
    @classmethod
    def _refuse_null(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None and info.field_name not in cls.nullable:
            raise PydanticCustomError("no_value", "the key has no value; give it one or remove the key", {})
        return value

    @model_validator(mode="before")
    @classmethod
    def _reject_unknown_keys(cls, data: Any) -> Any:
        # the class's own field table (``model_fields`` is a property that calls a function each time)
        if isinstance(data, dict) and not data.keys() <= cls.__pydantic_fields__.keys():
            known = list(cls.model_fields)
            for key in data:
                if key not in cls.model_fields:
                    hint = did_you_mean(str(key), known)
                    raise PydanticCustomError(
                        "unknown_key",
                        "unknown key '{key}'{hint} (allowed: {allowed})",
                        {"key": str(key), "hint": hint, "allowed": ", ".join(known)},
                    )
        return data


class ScorerRef(BaseModel):
    """A scorer by registry name with its constructor arguments: ``{type: Name, ...args}``."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(min_length=1)
    """Registered scorer name (``StateMatch``, ``ToolCallExactMatch``, ``Factuality`` ...)."""

    def args(self) -> dict[str, Any]:
        """The constructor arguments (every key but ``type``)."""
        return dict(self.model_extra or {})


class CallSpec(StrictModel):
    """One expected tool call."""

    name: str = Field(min_length=1)
    """Tool name."""
    args: dict[str, Any] | None = None
    """Expected arguments; omitted means ``{}``, compared under ``match_args`` (as in the seed)."""


class ToolUseCheck(StrictModel):
    """The ``tool_use`` success checker."""

    calls: list[CallSpec]
    """The expected calls; ``[]`` means "no tool calls" (with exact, subset or unordered)."""
    match_calls: MatchCalls = "exact"
    """exact (the default, as in the seed) | subset | superset | unordered | any_of (docs/benchmarks.md)."""
    match_args: MatchArgs = "exact"
    """exact | subset | superset | ignore, for calls that list ``args``."""


class OutputCheck(StrictModel):
    """The ``output`` success checker: tests on the agent's final text."""

    equals: str | None = None
    """The output must equal this text (surrounding whitespace ignored)."""
    contains: list[str] | None = None
    """Every one of these substrings must occur (a single string is accepted)."""
    not_contains: list[str] | None = None
    """None of these substrings may occur (a single string is accepted)."""
    regex: str | None = None
    """A regular expression that must match somewhere in the output."""
    json_schema: dict[str, Any] | None = None
    """The output must be JSON valid against this schema."""
    case_sensitive: bool = True
    """Set false to compare ``equals``/``contains``/``not_contains`` ignoring case."""

    @field_validator("contains", "not_contains", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("regex")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a valid regular expression: {exc}") from exc
        return value

    @model_validator(mode="after")
    def _something_to_check(self) -> OutputCheck:
        fields = ("equals", "contains", "not_contains", "regex", "json_schema")
        if all(getattr(self, name) is None for name in fields):
            raise ValueError(f"the output checker needs at least one of: {', '.join(fields)}")
        return self


class Success(StrictModel):
    """What success means for a scenario; every given checker must pass."""

    state: dict[str, Any] | None = None
    """Dotted paths of the final world state -> expected values (StateMatch)."""
    tool_use: ToolUseCheck | None = None
    """Expected tool calls (one of the ToolCall* scorers)."""
    output: OutputCheck | None = None
    """Checks on the final text."""
    scorers: list[ScorerRef] | None = None
    """Any registered scorers, by name with arguments."""


class Precondition(StrictModel):
    """How the world differs from ``world`` before this scenario starts."""

    state: dict[str, Any] = Field(default_factory=dict)
    """Deep-merged over the benchmark's ``world``."""


class Scenario(StrictModel):
    """One case: a prompt and what success means."""

    nullable = frozenset({"name"})

    id: ScenarioId
    """Unique within its capability (a number or a name); the case id is ``capability/id``."""
    name: str | None = None
    """Human-readable name."""
    prompt: str = Field(min_length=1)
    """What the agent is asked."""
    dimensions: dict[str, DimensionValue] = Field(default_factory=dict)
    """Labels for breakdowns (``phrasing: indirect``); override the capability's defaults."""
    critical: bool = False
    """A critical case that flips from pass to fail fails the gate."""
    precondition: Precondition | None = None
    """State changes applied to ``world`` before this scenario."""
    success: Success | None = None
    """The success checkers."""
    scorers: list[ScorerRef] | None = None
    """Seed short form: scorers given at scenario level."""
    reference_outputs: list[dict[str, Any]] | None = None
    """Seed short form: the reference message list for trajectory/tool-call scorers."""
    expected_state: dict[str, Any] | None = None
    """Seed short form: dotted paths -> values for StateMatch."""

    _at: tuple[str, int | None, Any] | None = PrivateAttr(default=None)
    """(file, line, plan) once the loader has set them (one private attribute: pydantic initialises
    each one per instance, some microseconds per scenario)."""

    @field_validator("id")
    @classmethod
    def _safe_id(cls, value: str) -> str:
        if not SAFE_ID.match(value):
            raise ValueError("a scenario id must be a number or a name of letters, digits, '.', '-', '_'")
        return value

    @property
    def key(self) -> str:
        """The id as text."""
        return self.id

    # The private attribute is read and written through pydantic's own dict: `self._at` goes
    # through BaseModel.__getattr__ (a failed lookup first), some microseconds per scenario each time.

    @property
    def location(self) -> tuple[str, int | None]:
        """The file and 1-based line that declare this scenario."""
        at = _private(self)["_at"]
        return ("", None) if at is None else (at[0], at[1])

    def locate(self, file: str, line: int | None) -> None:
        """Remember where the scenario was declared."""
        private = _private(self)
        at = private["_at"]
        private["_at"] = (file, line, None if at is None else at[2])

    @property
    def plan(self) -> Any:
        """The ``ScenarioPlan`` the loader compiled while validating the file (None before that)."""
        at = _private(self)["_at"]
        return None if at is None else at[2]

    def keep_plan(self, plan: Any) -> None:
        """Remember the compiled plan, so the runner does not compile the scenario again."""
        private = _private(self)
        at = private["_at"]
        private["_at"] = ("", None, plan) if at is None else (at[0], at[1], plan)


class Capability(StrictModel):
    """A group of scenarios that exercise one ability."""

    nullable = frozenset({"description"})

    name: str
    """Capability name; the group and the first half of each case id."""
    description: str | None = None
    """What the capability covers."""
    dimensions: dict[str, DimensionValue] = Field(default_factory=dict)
    """Dimension defaults for every scenario of the capability."""
    scenarios: list[Scenario] = Field(min_length=1)
    """The scenarios (those of ``cases`` appended)."""
    cases: str | None = None
    """A ``.csv`` or ``.jsonl`` file of more scenarios, one a row, relative to this file."""

    @field_validator("name")
    @classmethod
    def _safe_name(cls, value: str) -> str:
        if not SAFE_ID.match(value):
            raise ValueError(
                "a capability name must be letters, digits, '.', '-', '_' (it is part of case ids)"
            )
        return value


class Execution(StrictModel):
    """How the benchmark runs."""

    nullable = frozenset({"timeout_s"})

    runs_per_scenario: int = Field(default=1, ge=1, le=1000)
    """Trials per scenario."""
    n_parallel_runs: int = Field(default=1, ge=1, le=1000)
    """Trials in flight at once across the whole benchmark."""
    timeout_s: float | None = Field(default=None, gt=0)
    """Per-trial time limit in seconds (None: no limit)."""
    trace: Literal["otel", "off"] = "off"
    """``otel``: each trial runs under an OpenTelemetry trace of its own, whose GenAI spans fill what the
    agent did not return (trajectory, usage, models); needs ``pip install 'agent-evals[otel]'``."""


class PlatformSpec(StrictModel):
    """Where results are also written (``local`` is the only built-in platform)."""

    nullable = frozenset({"name", "type", "experiment", "output_dir"})

    name: Literal["local"] | None = None
    """Platform name, the seed's key: ``{name: local, experiment: ...}``."""
    type: Literal["local"] | None = None
    """The same as ``name`` (either key may be used; ``local`` when both are left out)."""
    experiment: str | None = None
    """Experiment name (a safe path segment)."""
    output_dir: str | None = None
    """Root folder for the local platform's JSON files (default ``./local_eval_results``)."""

    @field_validator("experiment")
    @classmethod
    def _safe_experiment(cls, value: str | None) -> str | None:
        if value is not None and not SAFE_ID.match(value):
            raise ValueError("an experiment name must be a safe folder name: letters, digits, '.', '-', '_'")
        return value

    @model_validator(mode="after")
    def _one_name(self) -> PlatformSpec:
        # both keys end up holding the platform's name, whichever one the file used
        self.name = self.type = self.name or self.type or "local"
        return self


class Benchmark(StrictModel):
    """A whole benchmark file after composition and validation."""

    nullable = frozenset({"description", "agent", "gate"})

    benchmark: str
    """Benchmark id, the suite id in run records (a safe path segment)."""
    description: str | None = None
    """What the benchmark covers."""
    agent: str | None = None
    """``module:Class`` or ``module:function``, importable from the file's folder."""
    platform: PlatformSpec | None = None
    """Where results are also written; ``local`` is shorthand for ``{name: local}``."""
    execution: Execution = Field(default_factory=Execution)
    """Trials, parallelism and timeout."""
    world: dict[str, Any] = Field(default_factory=dict)
    """The state every scenario starts from."""
    gate: dict[str, Any] | None = None
    """The gate policy block (validated by ``agent_evals.gate.policy.PolicyBlock``)."""
    capabilities: list[Capability] = Field(min_length=1)
    """The capabilities, with ``file://`` entries already spliced in."""

    _path: str = PrivateAttr(default="")
    _agent_at: tuple[int, int] | None = PrivateAttr(default=None)

    @field_validator("benchmark")
    @classmethod
    def _safe_benchmark_id(cls, value: str) -> str:
        if not SAFE_ID.match(value):
            raise ValueError("a benchmark id must be a safe path segment: letters, digits, '.', '-', '_'")
        return value

    @field_validator("agent")
    @classmethod
    def _agent_ref(cls, value: str | None) -> str | None:
        if value is not None and not AGENT_REF.match(value):
            raise ValueError("expected 'module:Class' or 'module:function', e.g. 'home_agent:HomeAgent'")
        return value

    @field_validator("platform", mode="before")
    @classmethod
    def _platform_shorthand(cls, value: Any) -> Any:
        return {"name": value} if isinstance(value, str) else value

    @property
    def path(self) -> str:
        """The file the benchmark was loaded from."""
        return str(_private(self)["_path"])

    @property
    def agent_location(self) -> str:
        """``file:line:col`` of the ``agent:`` value (the file alone when it has none)."""
        at = _private(self)["_agent_at"]
        return self.path if at is None else f"{self.path}:{at[0]}:{at[1]}"
