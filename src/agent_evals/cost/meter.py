"""The usage meter of one trial: token counts per model, collected while the trial's code runs."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from agent_evals.cost.wire import Report

UNKNOWN_MODEL = "unknown"
"""The model name recorded for a call whose response did not name its model."""

_current: contextvars.ContextVar[UsageMeter | None] = contextvars.ContextVar(
    "agent_evals_meter", default=None
)


class UsageMeter:
    """Token counts per model for one trial (thread-safe: a trial's code may call models from threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._models: dict[str, list[int]] = {}

    def add(self, report: Report) -> None:
        """Count one model call."""
        with self._lock:
            tally = self._models.setdefault(report.model or UNKNOWN_MODEL, [0, 0, 0])
            tally[0] += report.input_tokens
            tally[1] += report.output_tokens
            tally[2] += 1

    @property
    def calls(self) -> int:
        """Model calls counted."""
        with self._lock:
            return sum(t[2] for t in self._models.values())

    def usage(self) -> dict[str, Any] | None:
        """The trial's usage as record data (``input_tokens``, ``output_tokens``, ``models``), or None."""
        with self._lock:
            if not self._models:
                return None
            models = {
                name: {"input_tokens": t[0], "output_tokens": t[1], "calls": t[2]}
                for name, t in sorted(self._models.items())
            }
        return {
            "input_tokens": sum(m["input_tokens"] for m in models.values()),
            "output_tokens": sum(m["output_tokens"] for m in models.values()),
            "models": models,
        }


def current_meter() -> UsageMeter | None:
    """The meter of the trial whose code is running here (None outside a trial)."""
    return _current.get()


@contextmanager
def bound_meter() -> Iterator[UsageMeter]:
    """Count the model calls made inside the block (and in tasks and threads it starts) on a new meter.

    Nothing feeds it unless the HTTP hook is installed: ``cost.http_usage.metering`` does both.
    """
    meter = UsageMeter()
    token = _current.set(meter)
    try:
        yield meter
    finally:
        _current.reset(token)


def usage_of_reports(reports: Iterable[Report]) -> dict[str, Any] | None:
    """Record data for a list of token reports (LangChain messages), None when there are none."""
    meter = UsageMeter()
    for report in reports:
        meter.add(report)
    return meter.usage()


def combine(explicit: Mapping[str, Any] | None, captured: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A trial's usage: what the agent reported (``context["usage"]``, ``store(usage=...)``) over
    what was captured.

    Reported token counts or a reported cost replace the captured ones, and then the captured
    per-model breakdown is dropped (the agent's own accounting wins, and is never repriced); a
    reported ``model`` names the model of the reported tokens so they can be priced.
    """
    if not explicit:
        return dict(captured) if captured else None
    own = {k: explicit[k] for k in ("input_tokens", "output_tokens", "cost_usd") if k in explicit}
    if not own:
        return dict(captured) if captured else None
    out: dict[str, Any] = {}
    if captured:
        out.update({k: v for k, v in captured.items() if k != "models"})
    out.update(own)
    model = explicit.get("model")
    if isinstance(model, str) and model and "cost_usd" not in own:
        out["models"] = {
            model: {
                "input_tokens": int(out.get("input_tokens") or 0),
                "output_tokens": int(out.get("output_tokens") or 0),
                "calls": 1,
            }
        }
    return out


def usage_of_messages(messages: Any) -> dict[str, Any] | None:
    """Record data for the tokens a message list reports (``TaskResult.from_messages``' outputs, a
    LangGraph state's ``messages``), None when no message reports any."""
    from agent_evals.cost.wire import from_messages

    if isinstance(messages, Mapping):
        messages = messages.get("messages")
    if not isinstance(messages, (list, tuple)):
        return None
    return usage_of_reports(from_messages(messages))


def trial_usage(
    explicit: Mapping[str, Any] | None, meter: UsageMeter | None, messages: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """A finished trial's usage, priced: the agent's own report over what the meter counted (or,
    when the meter saw no call, what the returned messages report); see :func:`combine`."""
    from agent_evals.cost.budget import charge
    from agent_evals.cost.prices import active_table

    captured = (meter.usage() if meter is not None else None) or messages
    usage = combine(explicit, captured)
    priced = active_table().priced(usage) if usage is not None else None
    charge(priced)  # the run's budget, when it has one
    return priced


def record_usage(usage: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A trial's usage in the run record's shape (integer tokens, float cost, the per-model breakdown)."""
    if not usage:
        return None
    out: dict[str, Any] = {
        "input_tokens": int(usage["input_tokens"]) if usage.get("input_tokens") is not None else None,
        "output_tokens": int(usage["output_tokens"]) if usage.get("output_tokens") is not None else None,
        "cost_usd": float(usage["cost_usd"]) if usage.get("cost_usd") is not None else None,
    }
    models = usage.get("models")
    if isinstance(models, Mapping) and models:
        out["models"] = {
            str(name): {k: int(t.get(k) or 0) for k in ("input_tokens", "output_tokens", "calls")}
            for name, t in models.items()
        }
    return out
