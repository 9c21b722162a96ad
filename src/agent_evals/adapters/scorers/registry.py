"""Scorer names YAML may use (`{type: Name, ...args}`), mapped to lazily imported factories."""

from __future__ import annotations

import difflib
import functools
import importlib
import inspect
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_evals.adapters.scorers import AGENTEVALS_SCORERS, AUTOEVALS_SCORERS, NATIVE_SCORERS
from agent_evals.core.faults import absorbed
from agent_evals.core.scorer import Scorer
from agent_evals.errors import AgentEvalsError, UnknownScorer, UsageError
from agent_evals.files.import_path import search_from

# name -> module defining it; the attribute has the same name. Wrapper modules (autoevals,
# agentevals) are imported only when one of their scorers is used.
_FACTORIES: dict[str, str] = {
    **dict.fromkeys(NATIVE_SCORERS, "agent_evals.adapters.scorers"),
    **dict.fromkeys(AUTOEVALS_SCORERS, "agent_evals.adapters.scorers.autoevals"),
    **dict.fromkeys(AGENTEVALS_SCORERS, "agent_evals.adapters.scorers.agentevals"),
}


CUSTOM_REF = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
"""A custom scorer: ``package.module:function`` or ``package.module:Class``."""


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
        raise UnknownScorer(
            f"{prefix}unknown scorer {name!r}.{hint} Known scorers: {', '.join(names())}; "
            "or your own as 'module:function' / 'module:Class'"
        )
    module = importlib.import_module(module_name)  # may raise MissingDependency for an extra
    return getattr(module, name)


def custom_factory(ref: str, *, where: str = "", base_dir: Path | None = None) -> Any:
    """Import the function or class ``module:attr`` names, looking in ``base_dir`` first.

    Any failure (a missing module, an import that raises, a missing or non-callable attribute) is an
    UnknownScorer naming ``where``: a scorer that cannot be imported is never skipped.
    """
    prefix = f"{where}: " if where else ""
    if not CUSTOM_REF.match(ref):
        raise UnknownScorer(f"{prefix}scorer {ref!r}: expected 'module:function' or 'module:Class'")
    module_name, _, attr = ref.partition(":")
    if base_dir is not None:
        search_from(base_dir)
    searched = f" (searched {base_dir} and sys.path)" if base_dir is not None else ""
    try:
        module = importlib.import_module(module_name)
    except BaseException as exc:
        if not absorbed(exc):  # a real Ctrl-C or SIGTERM: the run stops
            raise
        raise UnknownScorer(
            f"{prefix}scorer {ref!r}: cannot import module {module_name!r}{searched}: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    target = getattr(module, attr, None)
    if target is None:
        raise UnknownScorer(f"{prefix}scorer {ref!r}: module {module_name!r} has no attribute {attr!r}")
    if not callable(target):
        raise UnknownScorer(f"{prefix}scorer {ref!r}: {attr!r} is a {type(target).__name__}, not callable")
    return target


def build_scorer(spec: Mapping[str, Any], *, where: str, base_dir: Path | None = None) -> Scorer:
    """Build the scorer ``{type: Name, ...args}`` describes; ``where`` prefixes error messages.

    ``Name`` is a registered scorer or ``module:function`` / ``module:Class`` (imported with
    ``base_dir`` first on ``sys.path``): a class is created with the arguments, a function gets
    them as bound keywords. Raises UnknownScorer for an unknown or unimportable name (with
    did-you-mean suggestions), MissingDependency when the scorer's extra is not installed, and
    UsageError when the arguments do not fit or the constructor fails.
    """
    if not isinstance(spec, Mapping) or not isinstance(spec.get("type"), str):
        raise UsageError(f"{where}: a scorer reference must be a mapping with `type: Name`")
    name: str = spec["type"]
    args = {k: v for k, v in spec.items() if k != "type"}
    custom = ":" in name
    target = custom_factory(name, where=where, base_dir=base_dir) if custom else factory(name, where=where)
    if not isinstance(target, type):  # a plain scorer function: arguments become bound keywords
        if args:
            try:
                inspect.signature(target).bind_partial(**args)
            except TypeError as exc:
                raise UsageError(f"{where}: invalid arguments for scorer {name!r}: {exc}") from exc
            except ValueError:  # no signature to check (a builtin): the call will tell
                pass
        plain: Scorer = functools.partial(target, **args) if args else target
        if custom:
            _check_call_shape(plain, name, where)
        return plain
    try:
        built = target(**args)
    except AgentEvalsError:
        raise
    except (TypeError, ValueError) as exc:
        raise UsageError(f"{where}: invalid arguments for scorer {name!r}: {exc}") from exc
    except BaseException as exc:  # a user's constructor may raise anything: still a located refusal
        if not absorbed(exc):
            raise
        raise UsageError(f"{where}: scorer {name!r} cannot be created: {type(exc).__name__}: {exc}") from exc
    if not callable(built):
        raise UsageError(f"{where}: {name!r} did not build a callable scorer")
    if custom:
        _check_call_shape(built, name, where)
    return built  # type: ignore[no-any-return]


def _check_call_shape(scorer: Any, name: str, where: str) -> None:
    """Refuse, before the run, a custom scorer that cannot be called as ``scorer(result, expected)``."""
    try:
        signature = inspect.signature(scorer)
    except (TypeError, ValueError):  # no signature to check: the call will tell
        return
    try:
        signature.bind(None, None)
    except TypeError as exc:
        raise UsageError(
            f"{where}: scorer {name!r} cannot be called as scorer(result, expected=None, **context): {exc}"
        ) from exc
