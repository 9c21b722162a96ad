"""JSON-style value equality for native scorers: booleans are not numbers, containers compare deeply."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def values_equal(actual: Any, expected: Any) -> bool:
    """True when ``actual`` and ``expected`` are the same JSON value.

    Unlike ``==``, ``True`` does not equal ``1`` and ``False`` does not equal ``0``; ``1`` and
    ``1.0`` are equal, and tuples compare like lists.
    """
    if isinstance(actual, bool) or isinstance(expected, bool):
        return isinstance(actual, bool) and isinstance(expected, bool) and actual == expected
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        if actual.keys() != expected.keys():
            return False
        return all(values_equal(actual[key], value) for key, value in expected.items())
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        return len(actual) == len(expected) and all(
            values_equal(a, e) for a, e in zip(actual, expected, strict=True)
        )
    return bool(actual == expected)
