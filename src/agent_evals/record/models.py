"""The models a suite's agent and its LLM judges used, as the run record keeps them (suite ``models``)."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

ROLES = ("agent", "judge")
"""The roles a suite records models for: the agent under test, and the LLM judges that score it."""

UNKNOWN = "unknown"
"""What the usage meter calls a model whose response named none: it names no model here."""

NAME_LIMIT = 120
"""Longest model name kept as given; a longer one keeps its start and a digest of the whole."""

MAX_NAMES = 50
"""Most names a suite records per role: the first ones sorted, then one that counts and digests the rest."""

_DIGEST = 12


def model_name(value: Any) -> str | None:
    """``value`` as a recorded model name; None when it names no model (not a string, blank, ``unknown``).

    The name is untrusted text (an agent reports it): runs of white space (new lines included)
    become one space and other unprintable characters go, so it stays one line of plain text. A
    name longer than :data:`NAME_LIMIT` keeps its start and a digest of the whole, so two long
    names that differ anywhere stay different.
    """
    if not isinstance(value, str):
        return None
    name = "".join(ch for ch in " ".join(value.split()) if ch.isprintable())
    if not name or name.lower() == UNKNOWN:
        return None
    if len(name) > NAME_LIMIT:
        digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:_DIGEST]
        name = f"{name[: NAME_LIMIT - _DIGEST - 1]}~{digest}"
    return name


def names_of(value: Any) -> set[str]:
    """The model names in ``value``: one name, or a list, tuple or set of names (anything else: none)."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return {name for item in value if (name := model_name(item)) is not None}
    name = model_name(value)
    return set() if name is None else {name}


def _get(obj: Any, key: str) -> Any:
    """``obj[key]`` when ``obj`` is a mapping that has it, else None (a plain dict checked first: this
    runs once per trial)."""
    if obj.__class__ is dict or isinstance(obj, Mapping):
        return obj.get(key)
    return None


def agent_models(context: Any, usage: Any = None) -> set[str]:
    """The models one trial's agent used, as far as the trial tells.

    From ``context`` (a ``TaskResult.context``): its ``model`` (a name or a list of names) and the
    ``model`` of the usage the agent reported (``context["usage"]``); from ``usage`` (the trial's
    recorded usage): the models its per-model breakdown counted (``models``, which the usage meter
    fills from the responses of the model calls) and a ``model`` there. ``unknown`` names none.
    """
    found: set[str] = set()
    if context:
        model = _get(context, "model")
        if model is not None:
            found |= names_of(model)
        reported = _get(context, "usage")
        if reported and (model := _get(reported, "model")) is not None:
            found |= names_of(model)
    if usage:
        per_model = _get(usage, "models")
        if per_model and (per_model.__class__ is dict or isinstance(per_model, Mapping)):
            found |= names_of(list(per_model))
        model = _get(usage, "model")
        if model is not None:
            found |= names_of(model)
    return found


def judge_model(scorer: Any) -> str | None:
    """The model an LLM scorer asks, when it says: its ``model`` attribute (the autoevals and
    agentevals judges keep it there), or the ``model`` keyword of a ``functools.partial``; None for
    a scorer that names none."""
    if isinstance(scorer, functools.partial):
        return model_name(scorer.keywords.get("model")) or judge_model(scorer.func)
    try:
        model = getattr(scorer, "model", None)
    except Exception:  # a user's property may raise: it names no model then
        return None
    return model_name(model) if isinstance(model, str) else None


def judge_models(scorers: Iterable[Any]) -> set[str]:
    """The models of the LLM scorers among ``scorers`` (see :func:`judge_model`)."""
    return {name for scorer in scorers if (name := judge_model(scorer)) is not None}


def _bounded(names: list[str]) -> list[str]:
    """At most :data:`MAX_NAMES` names: past that, the first ones and one name standing for the rest
    (how many, and a digest of them all), so a flood of names neither bloats the record nor hides
    a difference among the names left out."""
    if len(names) <= MAX_NAMES:
        return names
    rest = names[MAX_NAMES - 1 :]
    digest = hashlib.sha256("\n".join(names).encode("utf-8", "surrogatepass")).hexdigest()[:_DIGEST]
    return [*names[: MAX_NAMES - 1], f"+{len(rest)} more ~{digest}"]


def suite_models(agent: Iterable[str] = (), judge: Iterable[str] = ()) -> dict[str, list[str]] | None:
    """A suite's ``models`` field: each role's distinct names, sorted (at most :data:`MAX_NAMES`); a
    role with none is left out (unknown, not "no model"), and so is the field when both are."""
    out = {role: _bounded(sorted(set(names))) for role, names in (("agent", agent), ("judge", judge))}
    kept = {role: names for role, names in out.items() if names}
    return kept or None


def recorded_models(field: Any) -> dict[str, list[str]]:
    """The names a record's suite ``models`` field holds per role (what a comparison reads); a role
    the record does not name is absent. The names are read back through :func:`model_name`, so a
    hand-edited record cannot slip control characters or a blank name into a report."""
    if not isinstance(field, Mapping):
        return {}
    out: dict[str, list[str]] = {}
    for role in ROLES:
        names = names_of(field.get(role) or [])
        if names:
            out[role] = sorted(names)
    return out


def merged_models(fields: Iterable[Any]) -> dict[str, list[str]] | None:
    """The ``models`` field of several records' parts of one suite (shards): each role's names joined."""
    agent: set[str] = set()
    judge: set[str] = set()
    for field in fields:
        recorded = recorded_models(field)
        agent.update(recorded.get("agent", ()))
        judge.update(recorded.get("judge", ()))
    return suite_models(agent, judge)
