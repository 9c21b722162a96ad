"""A case's definition digest: a short sha256 of a canonical JSON of what the case asks and checks.

Every layer that writes cases passes its parts (a benchmark scenario's prompt, start state and
checks; an eval's input, reference, evaluators and body) to :func:`definition_digest`; the gate lists
a case whose digest differs from the baseline's as redefined (``gate.redefined``). The digest depends
on the values only: no hash randomisation, no object address, the same in every process.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import math
import re
from collections.abc import Mapping
from types import ModuleType
from typing import Any

DIGEST_CHARS = 16
"""Hex characters of a definition digest (64 bits: no edit finds another definition with the same)."""

MAX_DEPTH = 64
"""Nesting kept in the canonical value; deeper parts are replaced by a marker (never a crash)."""

_ADDRESS = re.compile(r"\s+at\s+0x[0-9A-Fa-f]+|0x[0-9A-Fa-f]{6,}")
"""An object address in a repr (``<Foo object at 0x7f...>``): different in every process."""


def stable_repr(value: Any) -> str:
    """``repr(value)`` without object addresses; the class name when the repr fails."""
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not stop a run
        text = f"<{_type_name(value)}>"
    return _ADDRESS.sub("", text)


def _type_name(value: Any) -> str:
    cls = value if isinstance(value, type) else type(value)
    return f"{getattr(cls, '__module__', '?')}.{getattr(cls, '__qualname__', cls.__name__)}"


def canonical(value: Any, _depth: int = 0, _stack: frozenset[int] = frozenset()) -> Any:
    """``value`` as plain JSON data that depends on its content only: mappings with text keys,
    sequences and sets as lists (sets sorted), models, dataclasses and plain objects as their type
    and fields, anything else as its :func:`stable_repr`. Never raises."""
    if value is None or value is True or value is False or isinstance(value, str):
        return value
    if isinstance(value, int):
        # JSON text of an integer of more than 4,300 digits is refused by Python: hex has no limit
        return int(value) if value.bit_length() <= 10_000 else {"int": hex(value)}
    if isinstance(value, float):
        return value if math.isfinite(value) else {"float": repr(value)}
    if (value.__class__ is dict or value.__class__ is list) and not value:  # the usual empty metadata
        return {} if value.__class__ is dict else []
    if _depth >= MAX_DEPTH:
        return "<nested too deep>"
    marker = id(value)  # only to stop at a cycle; never part of the result
    if marker in _stack:
        return "<cycle>"
    stack = _stack | {marker}
    depth = _depth + 1
    try:
        if isinstance(value, Mapping):
            return {_key(k): canonical(v, depth, stack) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [canonical(v, depth, stack) for v in value]
        if isinstance(value, (set, frozenset)):
            items = [canonical(v, depth, stack) for v in value]
            return sorted(items, key=_text)
        if isinstance(value, (bytes, bytearray)):
            return {"bytes": bytes(value).hex()}
        if isinstance(value, enum.Enum):
            return {"enum": _type_name(value), "value": canonical(value.value, depth, stack)}
        dump = getattr(value, "model_dump", None)  # a pydantic model
        if callable(dump) and not isinstance(value, type):
            return {"type": _type_name(value), "fields": canonical(dump(), depth, stack)}
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            fields = {f.name: getattr(value, f.name, None) for f in dataclasses.fields(value)}
            return {"type": _type_name(value), "fields": canonical(fields, depth, stack)}
        state = getattr(value, "__dict__", None)
        if isinstance(state, dict) and not callable(value) and not isinstance(value, (type, ModuleType)):
            return {"type": _type_name(value), "fields": canonical(state, depth, stack)}
    except Exception:  # an odd object in a reference must not stop a run
        pass
    return {"repr": stable_repr(value)}


def _key(key: Any) -> str:
    return key if isinstance(key, str) else stable_repr(key)


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""One encoder for every canonical text (``json.dumps`` with options builds a new one per call)."""


def _text(value: Any) -> str:
    return _CANONICAL.encode(value)


def canonical_json(value: Any) -> str:
    """The canonical JSON text of ``value`` (:func:`canonical`, sorted keys, no whitespace). Plain
    JSON data (:func:`_plain`) is its own canonical form: it is encoded as it is, not rebuilt first."""
    if value is None:  # most eval cases' reference, and {} their metadata: no encoder call for those
        return "null"
    if value.__class__ in _EMPTY and not value:
        return _EMPTY[value.__class__]
    if _plain(value, 1):
        return _CANONICAL.encode(value)
    return _text(canonical(value))


_EMPTY: dict[type, str] = {dict: "{}", list: "[]", str: '""'}
"""The canonical text of an empty dict, list and string (the encoder's, without a call to it)."""


_PLAIN_DEPTH = 32
"""Deepest nesting :func:`_plain` looks at; deeper data goes through :func:`canonical` (which cuts at 64)."""


def _plain(value: Any, depth: int) -> bool:
    """Whether ``canonical(value)`` is ``value`` itself: an exact str, bool, None, finite float or an int
    that :func:`canonical` keeps, and dicts (text keys) and lists of those, not nested too deep."""
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


def definition_digest(parts: Any) -> str:
    """The definition digest of a case from its parts (any value; see :func:`canonical`)."""
    return text_digest(canonical_json(parts))


def text_digest(text: str) -> str:
    """The definition digest of a canonical JSON text (:func:`canonical_json`, or pieces of it joined
    as it would have written them)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:DIGEST_CHARS]


def is_digest(value: Any) -> bool:
    """Whether ``value`` is a definition digest as writers write it (a masked or odd one is not)."""
    return (
        value.__class__ is str and len(value) == DIGEST_CHARS and all(c in "0123456789abcdef" for c in value)
    )
