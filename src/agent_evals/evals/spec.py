"""``EvalCaseSpec``: one fully resolved eval case (decorator options, file defaults and case overrides)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

DEFAULTS_NAME = "EVAL_DEFAULTS"
"""Name of the optional module-level mapping of file-wide defaults in an eval file."""

DEFAULTS_KEYS = (
    "dataset",
    "labels",
    "metadata",
    "default_score_key",
    "timeout",
    "evaluators",
    "target",
    "trials",
    "trace",
)
"""Keys ``EVAL_DEFAULTS`` may set. A key given on ``@eval`` replaces the file default (``metadata`` merges)."""

CASE_KEYS = ("id", "input", "reference", "metadata", "labels", "dataset")
"""Keys one entry of ``cases=`` may set."""


@dataclass(slots=True)
class EvalCaseSpec:
    """Everything needed to run one case of one eval function."""

    func: Callable[..., Any]
    """The decorated function."""
    name: str
    """The function's name."""
    case_key: str | None
    """The case's id within the function (``cases=`` only), None for a single-case eval."""
    input: Any = None
    """Input handed to the eval."""
    reference: Any = None
    """Reference handed to the eval."""
    dataset: str | None = None
    """Dataset (the case's group); None means the file's stem."""
    labels: tuple[str, ...] = ()
    """Labels, for ``--label`` selection."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Declared metadata."""
    default_score_key: str = "pass"
    """Key of assertion scores and bare score shorthands."""
    timeout: float | None = None
    """Seconds allowed for the target and the body, None for no limit."""
    evaluators: tuple[Callable[..., Any], ...] = ()
    """Evaluators run after the body."""
    target: Callable[..., Any] | None = None
    """Function whose return value becomes the output, run before the body."""
    trials: int = 1
    """How many times the case runs."""
    trace: str | None = None
    """``"otel"``: each trial's OpenTelemetry GenAI spans fill its usage and models (``core.tracing``)."""
    context_param: str | None = None
    """Name of the body's ``EvalContext`` parameter, None when it takes none."""
    target_takes_context: bool = False
    """Whether the target receives the context (else it receives the input)."""
    file: str = ""
    """Path of the file that declares the eval."""
    line: int | None = None
    """Line of the declaration."""

    @property
    def function_id(self) -> str:
        """``name`` or ``name[case]``."""
        return self.name if self.case_key is None else f"{self.name}[{self.case_key}]"

    @property
    def traced(self) -> bool:
        """Whether its trials run under a trace of their own (``@eval(trace="otel")``)."""
        return self.trace == "otel"

    @property
    def is_async(self) -> bool:
        """Whether any part (target, body, evaluator) is a coroutine function."""
        parts: list[Callable[..., Any]] = [self.func, *self.evaluators]
        if self.target is not None:
            parts.append(self.target)
        return any(inspect.iscoroutinefunction(p) for p in parts)


def read_file_defaults(module_globals: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Validate the ``EVAL_DEFAULTS`` mapping of a module (empty when absent)."""
    raw = module_globals.get(DEFAULTS_NAME)
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where}: {DEFAULTS_NAME} must be a dict, got {type(raw).__name__}")
    unknown = sorted(str(k) for k in raw if k not in DEFAULTS_KEYS)
    if unknown:
        raise ValueError(
            f"{where}: {DEFAULTS_NAME} has unknown key(s) {', '.join(unknown)}; "
            f"accepted: {', '.join(DEFAULTS_KEYS)}"
        )
    return dict(raw)
