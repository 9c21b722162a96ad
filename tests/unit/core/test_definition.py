"""The case definition digest: canonical, the same in every process, never a crash."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from typing import Any

import pytest

from agent_evals.core.definition import (
    DIGEST_CHARS,
    canonical,
    canonical_json,
    definition_digest,
    is_digest,
    stable_repr,
)


class Opaque:
    """An object without a useful repr: the default one holds its address."""

    def __init__(self, value: int) -> None:
        self.value = value


class BrokenRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


@dataclasses.dataclass
class Point:
    x: int
    y: int


def test_canonical_json__sorted_keys_no_whitespace() -> None:
    assert canonical_json({"b": [1, 2.5], "a": "é"}) == '{"a":"é","b":[1,2.5]}'


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}),  # key order
        ({"x", "y", "z"}, {"z", "y", "x"}),  # set order (hash randomisation)
        ((1, 2), [1, 2]),  # a tuple is a list in JSON
        (Opaque(1), Opaque(1)),  # two objects alike but for their address
        (Point(1, 2), Point(1, 2)),
    ],
)
def test_digest__same_content__same_digest(left: Any, right: Any) -> None:
    assert definition_digest(left) == definition_digest(right)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ({"a": 1}, {"a": 2}),
        ("42", 42),
        ([1, 2], [2, 1]),
        (Point(1, 2), Point(2, 1)),
        (Opaque(1), Opaque(2)),  # a plain object's state counts
        (None, ""),
        (True, 1),
        (float("nan"), "nan"),
    ],
)
def test_digest__different_content__different_digest(left: Any, right: Any) -> None:
    assert definition_digest(left) != definition_digest(right)


def test_stable_repr__object_address_left_out() -> None:
    text = stable_repr(Opaque(1))
    assert "0x" not in text and "Opaque" in text


@pytest.mark.parametrize(
    "value",
    [
        BrokenRepr(),
        float("nan"),
        b"\x00\xff",
        {1: "int key", (2, 3): "tuple key"},
        {frozenset({1, 2}), "a"},
        10**5000,
        os,
    ],
    ids=["broken-repr", "nan", "bytes", "odd-keys", "mixed-set", "huge-int", "module"],
)
def test_digest__unserialisable_values__a_digest_never_an_error(value: Any) -> None:
    assert is_digest(definition_digest({"reference": value}))


def test_digest__cycle_and_deep_nesting__a_digest_never_an_error() -> None:
    cycle: list[Any] = []
    cycle.append(cycle)
    deep: Any = []
    for _ in range(5_000):
        deep = [deep]
    assert is_digest(definition_digest(cycle))
    assert is_digest(definition_digest(deep))
    assert canonical(cycle) == ["<cycle>"]


_CHILD = """
import dataclasses
from agent_evals.core.definition import definition_digest

class Opaque:
    def __init__(self, value):
        self.value = value

@dataclasses.dataclass
class Point:
    x: int
    y: int

print(definition_digest({"set": {"alpha", "beta", "gamma", "delta"}, "obj": Opaque(3), "pt": Point(1, 2),
    "frozen": frozenset({"x", "y"}), "text": "prompt"}))
"""


def test_digest__same_definition_in_two_processes__same_digest() -> None:
    """No hash randomisation and no object address reaches the digest: processes with different
    hash seeds give one digest (a baseline made on main and a candidate made in CI)."""
    digests = set()
    for seed in ("1", "2", "12345"):
        done = subprocess.run(
            [sys.executable, "-c", _CHILD],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            timeout=60,
            check=True,
        )
        digests.add(done.stdout.strip())
    assert len(digests) == 1
    assert is_digest(digests.pop())


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0123456789abcdef", True),
        ("0123456789ABCDEF", False),
        ("0123456789abcde", False),
        ("0123***789abcdef", False),  # masked by the redactor
        (None, False),
        (1234, False),
    ],
)
def test_is_digest__only_what_writers_write(value: Any, expected: bool) -> None:
    assert len("0123456789abcdef") == DIGEST_CHARS
    assert is_digest(value) is expected
