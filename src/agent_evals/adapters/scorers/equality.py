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
    other = type(expected)
    if kind is other and kind in _PLAIN:  # the common cases are decided without ABC checks
        return bool(actual == expected)
    if kind is bool or other is bool:
        return kind is other and actual == expected
    if (kind is dict or isinstance(actual, Mapping)) and (other is dict or isinstance(expected, Mapping)):
        if actual.keys() != expected.keys():
            return False
        for key, value in expected.items():  # noqa: SIM110 - a plain loop is faster on this hot path
            if not values_equal(actual[key], value):
                return False
        return True
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            return False
        for a, e in zip(actual, expected):  # noqa: B905, SIM110 - lengths checked above; hot path
            if not values_equal(a, e):
                return False
        return True
    return bool(actual == expected)
