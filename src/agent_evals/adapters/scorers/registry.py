"""Scorer names YAML may use (`{type: Name, ...args}`), mapped to lazily imported factories."""

from __future__ import annotations

import difflib
import functools
import importlib
from collections.abc import Mapping
from typing import Any

from agent_evals.adapters.scorers import AGENTEVALS_SCORERS, AUTOEVALS_SCORERS, NATIVE_SCORERS
from agent_evals.core.scorer import Scorer
from agent_evals.errors import AgentEvalsError, UnknownScorer, UsageError

# name -> module defining it; the attribute has the same name. Wrapper modules (autoevals,
# agentevals) are imported only when one of their scorers is used.
_FACTORIES: dict[str, str] = {
    **dict.fromkeys(NATIVE_SCORERS, "agent_evals.adapters.scorers"),
    **dict.fromkeys(AUTOEVALS_SCORERS, "agent_evals.adapters.scorers.autoevals"),
    **dict.fromkeys(AGENTEVALS_SCORERS, "agent_evals.adapters.scorers.agentevals"),
}


def names() -> list[str]:
    """Every scorer name a YAML ``{type: Name}`` reference may use, sorted."""
    return sorted(_FACTORIES)


def factory(name: str, *, where: str = "") -> Any:
    """The class or function registered under ``name`` (imports its module on first use)."""
    module_name = _FACTORIES.get(name)
    if module_name is None:
        close = difflib.get_close_matches(name, list(_FACTORIES), n=3, cutoff=0.6)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        prefix = f"{where}: " if where else ""
        raise UnknownScorer(f"{prefix}unknown scorer {name!r}.{hint} Known scorers: {', '.join(names())}")
    module = importlib.import_module(module_name)  # may raise MissingDependency for an extra
    return getattr(module, name)


def build_scorer(spec: Mapping[str, Any], *, where: str) -> Scorer:
    """Build the scorer ``{type: Name, ...args}`` describes; ``where`` prefixes error messages.

    Raises UnknownScorer for an unregistered name (with did-you-mean suggestions),
    MissingDependency when the scorer's extra is not installed, and UsageError when the
    arguments do not fit the scorer's constructor.
    """
    if not isinstance(spec, Mapping) or not isinstance(spec.get("type"), str):
        raise UsageError(f"{where}: a scorer reference must be a mapping with `type: Name`")
    name: str = spec["type"]
    args = {k: v for k, v in spec.items() if k != "type"}
    target = factory(name, where=where)
    if not isinstance(target, type):  # a plain scorer function: arguments become bound keywords
        plain: Scorer = functools.partial(target, **args) if args else target
        return plain
    try:
        built = target(**args)
    except AgentEvalsError:
        raise
    except (TypeError, ValueError) as exc:
        raise UsageError(f"{where}: invalid arguments for scorer {name!r}: {exc}") from exc
    if not callable(built):
        raise UsageError(f"{where}: {name!r} did not build a callable scorer")
    return built  # type: ignore[no-any-return]
