"""A scenario's definition digest, written straight from its plain data when it is plain JSON."""

from __future__ import annotations

import json
import math
from typing import Any

from agent_evals.core.definition import definition_digest, text_digest

_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""The canonical text's encoder (``core.definition``: sorted keys, no whitespace, text as is)."""

_PLAIN_DEPTH = 32
"""Deepest nesting written directly; deeper data goes through ``canonical`` (which cuts at 64)."""


def _plain(value: Any, depth: int) -> bool:
    """Whether ``canonical(value)`` is ``value`` itself: exact str, bool, None, finite float, an int
    that ``canonical`` keeps, and dicts (text keys) and lists of those, not nested too deep."""
    cls = value.__class__
    if cls is str or value is None or cls is bool:
        return True
    if cls is int:
        return bool(value.bit_length() <= 10_000)
    if cls is float:
        return math.isfinite(value)
    if depth >= _PLAIN_DEPTH:
        return False
    if cls is dict:
        for key, item in value.items():
            if key.__class__ is not str or not _plain(item, depth + 1):
                return False
        return True
    if cls is list:
        return all(_plain(item, depth + 1) for item in value)
    return False


def asked_digest(asked: dict[str, Any], shared: str) -> str:
    """``definition_digest({"scenario": asked, "shared": shared})``, the same digest; plain data (what a
    validated scenario dumps to) is encoded as it is instead of being rebuilt by ``canonical`` first."""
    if shared.__class__ is str and _plain(asked, 1):
        return text_digest(f'{{"scenario":{_ENCODER.encode(asked)},"shared":{_ENCODER.encode(shared)}}}')
    return definition_digest({"scenario": asked, "shared": shared})
