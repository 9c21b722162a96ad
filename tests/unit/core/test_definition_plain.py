"""canonical_json encodes plain data as it is: exactly the text the full canonical walk gives, for any data."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.core.definition import _CANONICAL, canonical, canonical_json, definition_digest

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
def test_canonical_json__any_data__same_as_the_full_canonical_walk(label: str, asked: dict[str, Any]) -> None:
    parts = {"scenario": asked, "shared": SHARED}  # a benchmark scenario's digest parts
    assert canonical_json(parts) == _CANONICAL.encode(canonical(parts))


def test_definition_digest__one_value_changed__new_digest() -> None:
    first = definition_digest(
        {"scenario": {"prompt": "a", "success": {"output": {"equals": "1"}}}, "shared": SHARED}
    )
    second = definition_digest(
        {"scenario": {"prompt": "a", "success": {"output": {"equals": "2"}}}, "shared": SHARED}
    )
    assert first != second


BARE: list[Any] = [None, {}, [], "", (), True, False, 0, "x", {"a": None}, [{}], type("Text", (str,), {})("")]


@pytest.mark.parametrize("value", BARE, ids=[repr(v) for v in BARE])
def test_canonical_json__a_bare_value__same_as_the_full_canonical_walk(value: Any) -> None:
    # an eval case's metadata and reference are most often {} and None: encoded without the encoder
    assert canonical_json(value) == _CANONICAL.encode(canonical(value))
