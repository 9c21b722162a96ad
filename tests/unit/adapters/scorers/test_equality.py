"""values_equal: JSON-style equality used by the native scorers."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest

from agent_evals.adapters.scorers.equality import values_equal


@pytest.mark.parametrize(
    ("actual", "expected", "equal"),
    [
        ("on", "on", True),
        ("on", "On", False),
        (1, 1.0, True),
        (True, True, True),
        (True, 1, False),
        (0, False, False),
        (None, None, True),
        (None, "", False),
        ({"a": [1, {"b": True}]}, {"a": [1, {"b": True}]}, True),
        ({"a": [1, {"b": 1}]}, {"a": [1, {"b": True}]}, False),
        ({"a": 1, "b": 2}, {"a": 1}, False),
        ((1, 2), [1, 2], True),
        ([1, 2], [1, 2, 3], False),
        (OrderedDict(a=1), {"a": 1}, True),
        ("1", 1, False),
    ],
)
def test_values_equal__json_semantics(actual: Any, expected: Any, equal: bool) -> None:
    assert values_equal(actual, expected) is equal
    assert values_equal(expected, actual) is equal
