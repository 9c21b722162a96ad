"""The scenario digest's direct encoding of plain data gives exactly the digest of ``core.definition``."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.benchmark.digest import asked_digest
from agent_evals.core.definition import definition_digest

SHARED = "0123456789abcdef"


def _nested(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = {"k": [value, 1]}
    return value


CASES: list[tuple[str, Any]] = [
    ("trivial", {"prompt": "0", "success": {"output": {"equals": "0"}}}),
    ("unicode and escapes", {"prompt": 'é \u2028 "q" \\ \n\t', "success": {"output": {"contains": ["ü"]}}}),
    ("numbers", {"prompt": "p", "expected_state": {"a": 1, "b": -2.5, "c": 0.1, "d": True, "e": None}}),
    ("unsorted keys", {"success": {"state": {"z": 1, "a": 2}}, "prompt": "p"}),
    ("empty containers", {"prompt": "p", "precondition": {"state": {}}, "scorers": []}),
    ("infinite float", {"prompt": "p", "expected_state": {"x": float("inf")}}),
    ("not a number", {"prompt": "p", "expected_state": {"x": float("nan")}}),
    ("huge int", {"prompt": "p", "expected_state": {"x": 10**3200}}),
    ("int at the limit", {"prompt": "p", "expected_state": {"x": 2**10_000 - 1}}),
    ("tuple", {"prompt": "p", "expected_state": {"x": (1, 2)}}),
    ("set", {"prompt": "p", "expected_state": {"x": {"b", "a"}}}),
    ("non-text key", {"prompt": "p", "expected_state": {1: "one"}}),
    ("str subclass", {"prompt": type("Text", (str,), {})("p")}),
    ("deep but kept", {"prompt": "p", "expected_state": _nested(14)}),
    ("deeper than canonical keeps", {"prompt": "p", "expected_state": _nested(70)}),
]


@pytest.mark.parametrize(("label", "asked"), CASES, ids=[label for label, _ in CASES])
def test_asked_digest__any_data__same_as_definition_digest(label: str, asked: dict[str, Any]) -> None:
    assert asked_digest(asked, SHARED) == definition_digest({"scenario": asked, "shared": SHARED})


def test_asked_digest__one_value_changed__new_digest() -> None:
    first = asked_digest({"prompt": "a", "success": {"output": {"equals": "1"}}}, SHARED)
    second = asked_digest({"prompt": "a", "success": {"output": {"equals": "2"}}}, SHARED)
    assert first != second
