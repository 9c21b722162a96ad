"""Traces without glue (``--trace otel``): each trial's GenAI spans fill what its agent did not return."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Mapping
from typing import Any

from agent_evals.errors import UsageError

TRACE_MODES = ("otel", "off")
"""What ``--trace``, ``execution: {trace: ...}`` and ``@eval(trace=...)`` accept."""

INSTALL_HINT = "pip install 'agent-evals[otel]'"

_requested: contextvars.ContextVar[bool] = contextvars.ContextVar("agent_evals_trace", default=False)
_spans: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "agent_evals_trial_spans", default=None
)


def require_sdk(where: str) -> None:
    """Raise UsageError (exit 2) saying how to install it when the OpenTelemetry SDK cannot be imported."""
    try:
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError as exc:
        raise UsageError(
            f"{where} needs the OpenTelemetry SDK (opentelemetry-sdk), which cannot be imported ({exc}); "
            f"install it with: {INSTALL_HINT}"
        ) from exc


@contextlib.contextmanager
def tracing(mode: str | None, where: str = "--trace otel") -> Iterator[None]:
    """Trace every trial run inside the block when ``mode`` is ``otel`` (``off``/None: nothing, nothing imported)."""
    if mode is None or mode == "off":
        yield
        return
    if mode != "otel":
        raise UsageError(f"{where}: unknown trace mode {mode!r}; use one of {', '.join(TRACE_MODES)}")
    require_sdk(where)
    token = _requested.set(True)
    try:
        yield
    finally:
        _requested.reset(token)


def open_trial(traced: bool, trial: int) -> Any:
    """Start an attempt of trial ``trial`` under a root span of its own, in a fresh trace, when tracing
    is asked (``traced``, or :func:`tracing` around the run); else None and nothing is imported."""
    if not (traced or _requested.get()):
        return None
    from agent_evals.core.otel_collector import TrialTrace

    trace = TrialTrace(trial)
    trace.token = _spans.set(trace.spans)
    return trace


def close_trial(trace: Any) -> None:
    """End what :func:`open_trial` started (its spans are no longer collected)."""
    if trace is not None:
        _spans.reset(trace.token)
        trace.close()


def in_traced_trial() -> bool:
    """Whether this context runs an attempt of a traced trial."""
    return _spans.get() is not None


def fill_context(context: Mapping[str, Any] | None, *, metered: bool) -> dict[str, Any] | None:
    """``context`` with what the current trial's spans tell and it lacks: ``outputs`` (the trajectory),
    ``usage`` (only when the HTTP meter counted no model call: it counted the same calls, per model)
    and ``model`` (a name, or a list of names). What the agent returned always wins. Outside a traced
    trial, ``context`` as it is."""
    spans = _spans.get()
    if not spans:
        return None if context is None else dict(context)
    from agent_evals.core.converters.otel import read_spans

    outputs, usage, names = read_spans(list(spans))  # a span ending now, in another thread, is not read
    found: dict[str, Any] = {}
    if outputs:
        found["outputs"] = outputs
    if usage is not None and not metered:
        found["usage"] = usage
    models = sorted(names)
    if models:
        found["model"] = models[0] if len(models) == 1 else models
    return {**found, **(context or {})}


def fill_result(value: Any, meter: Any) -> None:
    """Fill a TaskResult's ``context`` from the current trial's spans (:func:`fill_context`); anything
    else, or outside a traced trial, is left as it is."""
    if _spans.get() is None:
        return
    from agent_evals.core.types import TaskResult

    if isinstance(value, TaskResult):
        metered = meter is not None and meter.calls > 0
        value.context = fill_context(value.context, metered=metered)
