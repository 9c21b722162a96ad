"""The usage meter of one trial: token counts per model, collected while the trial's code runs."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from agent_evals.cost.wire import Report
from agent_evals.record.rules import oversized

UNKNOWN_MODEL = "unknown"
"""The model name recorded for a call whose response did not name its model."""

_current: contextvars.ContextVar[UsageMeter | None] = contextvars.ContextVar(
    "agent_evals_meter", default=None
)


class UsageMeter:
    """Token counts per model for one trial (thread-safe: a trial's code may call models from threads).

    Calls answered by the response cache's replay are counted like live ones and also apart
    (:meth:`replayed_models`), so the record keeps their tokens while the budget charges only
    what was spent.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._models: dict[str, list[int]] = {}
        self._replayed: dict[str, list[int]] = {}

    def add(self, report: Report, *, replayed: bool = False) -> None:
        """Count one model call (``replayed``: its answer came from the response cache, not the model)."""
        name = report.model or UNKNOWN_MODEL
        with self._lock:
            for book in (self._models, self._replayed) if replayed else (self._models,):
                tally = book.setdefault(name, [0, 0, 0])
                tally[0] += report.input_tokens
                tally[1] += report.output_tokens
                tally[2] += 1

    @property
    def live_calls(self) -> int:
        """Model calls counted whose answer came from the model (not replayed)."""
        with self._lock:
            return sum(t[2] for t in self._models.values()) - sum(t[2] for t in self._replayed.values())

    def replayed_models(self) -> dict[str, dict[str, int]]:
        """The per-model breakdown of the replayed calls ({} when none was replayed)."""
        with self._lock:
            return {
                name: {"input_tokens": t[0], "output_tokens": t[1], "calls": t[2]}
                for name, t in sorted(self._replayed.items())
            }

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


class bound_meter:
    """Count the model calls made inside the block (and in tasks and threads it starts) on a new meter.

    Nothing feeds it unless the HTTP hook is installed: ``cost.http_usage.metering`` does both. A
    class rather than a generator: it is entered once per trial, where a generator's set-up shows.
    """

    __slots__ = ("_token", "meter")

    def __enter__(self) -> UsageMeter:
        self.meter = UsageMeter()
        self._token = _current.set(self.meter)
        return self.meter

    def __exit__(self, *exc: object) -> None:
        _current.reset(self._token)


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


USAGE_FIELDS = ("input_tokens", "output_tokens", "cost_usd")
"""Usage keys recorded per trial."""

_USAGE_ALIASES = {"prompt_tokens": "input_tokens", "completion_tokens": "output_tokens", "cost": "cost_usd"}


def normalize_usage(raw: Any, *, where: str = "usage") -> dict[str, Any]:
    """Validate a usage mapping (OpenAI spellings accepted) into ``input_tokens``/``output_tokens``/``cost_usd``,
    and ``model`` (a name the price table prices the tokens by) when given; ValueError says what is wrong."""
    if not isinstance(raw, Mapping):
        raise ValueError(
            f"{where} must be a dict with any of {', '.join(USAGE_FIELDS)}, got {type(raw).__name__}"
        )
    out: dict[str, Any] = {}
    for name, value in raw.items():
        key = _USAGE_ALIASES.get(str(name), str(name))
        if key == "model":
            if not isinstance(value, str) or not value:
                raise ValueError(f"{where}.model must be a model name, got {value!r}")
            out["model"] = value
            continue
        if key not in USAGE_FIELDS:
            continue  # providers report extra counters (cached tokens, ...); keep the ones we record
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{where}.{name} must be a number, got {value!r}")
        out[key] = value
    return out


def explicit_usage(context: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The usage a task or an agent reported in ``TaskResult.context["usage"]`` (see
    :func:`normalize_usage`), or None when there is none or it is malformed (then it is ignored)."""
    usage = (context or {}).get("usage")
    if not isinstance(usage, Mapping):
        return None
    try:
        return normalize_usage(usage) or None
    except ValueError:
        return None


def task_usage(
    context: Mapping[str, Any] | None, meter: UsageMeter | None, *, scope: Any
) -> dict[str, Any] | None:
    """The usage of a trial whose user code returned a TaskResult with ``context``: what it reported
    over what ``meter`` counted (or its returned messages report), priced and charged
    (:func:`trial_usage`); the one usage function of the library runner and benchmarks."""
    outputs = (context or {}).get("outputs")
    return trial_usage(explicit_usage(context), meter, usage_of_messages(outputs), scope=scope)


def usage_of_messages(messages: Any) -> dict[str, Any] | None:
    """Record data for the tokens a message list reports (``TaskResult.from_messages``' outputs, a
    LangGraph state's ``messages``), None when no message reports any."""
    if isinstance(messages, Mapping):
        messages = messages.get("messages")
    if not isinstance(messages, (list, tuple)):
        return None
    from agent_evals.cost.wire import from_messages

    return usage_of_reports(from_messages(messages))


_CURRENT_SCOPE: Any = object()


def trial_usage(
    explicit: Mapping[str, Any] | None,
    meter: UsageMeter | None,
    messages: Mapping[str, Any] | None,
    *,
    scope: Any = _CURRENT_SCOPE,
) -> dict[str, Any] | None:
    """A finished attempt's usage, priced and charged to the run's budget: the agent's own report
    over what the meter counted (or, when the meter saw no call, what the returned messages
    report); see :func:`combine`. The share answered by the response cache's replay is kept under
    ``replayed`` and not charged (see :func:`replayed_part`). ``scope`` is the attempt's
    ``TrialScope`` (default: the one running here)."""
    captured = (meter.usage() if meter is not None else None) or messages
    usage = combine(explicit, captured)
    if usage is None:
        return None
    from agent_evals.cost.budget import charge
    from agent_evals.cost.prices import active_table

    table = active_table()
    priced = table.priced(usage)
    if scope is _CURRENT_SCOPE:
        from agent_evals.calls.scope import current_scope

        scope = current_scope()
    part = replayed_part(priced, meter, own=_own(explicit), scope=scope)
    if part is not None:
        models = part.pop("models", None)
        if models is not None:
            part["cost_usd"] = table.cost(models)
        priced["replayed"] = part
    charge(priced)  # the run's budget, when it has one: what was spent, not what was replayed
    return priced


def _own(explicit: Mapping[str, Any] | None) -> bool:
    return explicit is not None and any(k in explicit for k in ("input_tokens", "output_tokens", "cost_usd"))


def replayed_part(
    usage: Mapping[str, Any], meter: UsageMeter | None, *, own: bool, scope: Any
) -> dict[str, Any] | None:
    """Which share of an attempt's ``usage`` the response cache replayed (None: none of it).

    The meter knows each replayed call. When the meter saw no call (the tokens come from returned
    LangChain messages, whose answer LangChain's cache hook replayed) or only replayed ones, and
    the agent's own numbers stand in for them, the whole usage is replayed when the attempt
    replayed answers in ``--cache replay`` mode. Agent-reported numbers beside live calls are
    charged in full: an over-count stops a budget early, never late.
    """
    live = meter.live_calls if meter is not None else 0
    replayed_models = meter.replayed_models() if meter is not None else {}
    if replayed_models and not own:
        return {
            "input_tokens": sum(t["input_tokens"] for t in replayed_models.values()),
            "output_tokens": sum(t["output_tokens"] for t in replayed_models.values()),
            "calls": sum(t["calls"] for t in replayed_models.values()),
            "models": replayed_models,
        }
    cache_replayed = (
        int(getattr(scope, "replayed", 0) or 0) if getattr(scope, "mode", None) == "replay" else 0
    )
    if live == 0 and (replayed_models or cache_replayed):
        return {
            "input_tokens": usage.get("input_tokens"),
            "output_tokens": usage.get("output_tokens"),
            "cost_usd": usage.get("cost_usd"),
            "calls": sum(t["calls"] for t in replayed_models.values()) or cache_replayed,
        }
    return None


def record_usage(usage: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A trial's usage in the run record's shape (integer tokens, float cost, the per-model breakdown).
    A number no record holds (beyond ``record.rules.MAX_USAGE``, or a count that is no integer) is left
    out, as not measured; a breakdown with one is left out whole (its cost would be short)."""
    if not usage:
        return None
    out: dict[str, Any] = {
        "input_tokens": _number(usage.get("input_tokens"), int),
        "output_tokens": _number(usage.get("output_tokens"), int),
        "cost_usd": _number(usage.get("cost_usd"), float),
    }
    models = usage.get("models")
    if isinstance(models, Mapping) and models:
        shaped = {
            str(name): {k: _number(t.get(k) or 0, int) for k in ("input_tokens", "output_tokens", "calls")}
            for name, t in models.items()
        }
        if all(None not in tally.values() for tally in shaped.values()):
            out["models"] = shaped
    replayed = usage.get("replayed")
    if isinstance(replayed, Mapping):
        counted = {
            "input_tokens": _number(replayed.get("input_tokens") or 0, int),
            "output_tokens": _number(replayed.get("output_tokens") or 0, int),
            "cost_usd": _number(replayed.get("cost_usd"), float),
            "calls": _number(replayed.get("calls") or 0, int),
        }
        if None not in (counted["input_tokens"], counted["output_tokens"], counted["calls"]):
            out["replayed"] = counted
    return out


def _number(value: Any, kind: type[int] | type[float]) -> Any:
    """``kind(value)``; None for None, a value that is no number, or one beyond what a record holds."""
    if value is None:
        return None
    try:
        number = kind(value)
    except (TypeError, ValueError, OverflowError):  # int(nan), int(inf), a non-numeric string
        return None
    return None if oversized(number) else number
