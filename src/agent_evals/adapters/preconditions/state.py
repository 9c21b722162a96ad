"""The ``state`` precondition as an applier: ``applier.apply(world)`` writes it into the agent's world."""

from __future__ import annotations

import copy
from collections.abc import Mapping, MutableMapping
from typing import Any


def expand_dotted_keys(payload: Mapping[str, Any]) -> dict[str, Any]:
    """``{"a.b.c": v}`` -> ``{"a": {"b": {"c": v}}}`` for top-level keys (nested values are kept as given)."""
    out: dict[str, Any] = {}
    for key, value in payload.items():
        if not isinstance(key, str) or "." not in key:
            merge_into(out, {key: value})
            continue
        *parents, leaf = key.split(".")
        node = out
        for part in parents:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        merge_into(node, {leaf: value})
    return out


def merge_into(target: MutableMapping[str, Any], over: Mapping[str, Any]) -> None:
    """Deep-merge ``over`` into ``target`` in place: mappings merge key by key, anything else replaces."""
    for key, value in over.items():
        current = target.get(key)
        if isinstance(current, MutableMapping) and isinstance(value, Mapping):
            merge_into(current, value)
        else:
            target[key] = copy.deepcopy(value)


class StatePreconditionApplier:
    """One ``precondition: {state: {...}}`` block (or the benchmark's ``world``), ready to apply.

    Seed-style agents receive a list of these as ``preconditions=`` and call ``apply(world)`` on
    the world they keep, in order; dotted keys (``lights.kitchen.state``) name nested paths.
    """

    def __init__(self, state: Mapping[str, Any]) -> None:
        self.root: dict[str, Any] = expand_dotted_keys(state)
        """The state to write, with dotted keys expanded."""

    def apply(self, target: MutableMapping[str, Any]) -> None:
        """Deep-merge the state into ``target`` in place (this applier's values win)."""
        merge_into(target, self.root)

    def __repr__(self) -> str:
        return f"StatePreconditionApplier({self.root!r})"
