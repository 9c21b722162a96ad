"""JSON-style value equality for native scorers: booleans are not numbers, containers compare deeply."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_PLAIN = (str, int, float, type(None))


def values_equal(actual: Any, expected: Any) -> bool:
    """True when ``actual`` and ``expected`` are the same JSON value.

    Unlike ``==``, ``True`` does not equal ``1`` and ``False`` does not equal ``0``; ``1`` and
    ``1.0`` are equal, and tuples compare like lists.
    """
    kind = type(actual)
    if kind is type(expected) and kind in _PLAIN:  # the common case, decided without ABC checks
        return bool(actual == expected)
    if kind is bool or type(expected) is bool:
        return kind is type(expected) and actual == expected
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        if actual.keys() != expected.keys():
            return False
        return all(values_equal(actual[key], value) for key, value in expected.items())
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            return False
        return all(values_equal(a, e) for a, e in zip(actual, expected, strict=True))
    return bool(actual == expected)
