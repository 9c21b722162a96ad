"""The record's one text rule: any text is kept, written as strict UTF-8 JSON (lone surrogates become U+FFFD).

A run record keeps whatever text an agent, a scorer or a case file produced: NUL and other control
characters, ANSI escape sequences and bidi controls are kept as they are (JSON escapes the controls as
``\\u0000``, ``\\u001b``; reports neutralise them when they show the text). Two things are not text and
are mapped once, here, for evals, benchmarks and the library layer alike:

* a lone surrogate (``"\\ud800"``, what ``surrogateescape`` makes of an undecodable byte) cannot be
  written as UTF-8: each one becomes U+FFFD (the replacement character), as ``core.faults`` does for
  exception messages and as the record reader requires;
* ``bytes`` are no JSON value: they are recorded as their UTF-8 text, each byte that is not valid
  UTF-8 written as a ``\\xNN`` escape (``b"ok\\xff"`` becomes the text ``ok\\xff``).
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar, Protocol

from pydantic_core import PydanticSerializationError, to_json

REPLACEMENT = "\ufffd"
"""What a lone surrogate is recorded as."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (the same string when it has none)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(REPLACEMENT, text)
    return text


def bytes_text(data: bytes | bytearray | memoryview) -> str:
    """Bytes as the record keeps them: UTF-8 text, an invalid byte written as ``\\xNN``."""
    return bytes(data).decode("utf-8", "backslashreplace")


def clean_value(value: Any) -> Any:
    """A JSON-like value with every string (keys too) passed through :func:`clean_text` and every
    ``bytes`` through :func:`bytes_text`; other values unchanged."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes_text(value)
    if isinstance(value, dict):
        return {clean_value(k): clean_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_value(v) for v in value]
    return value


def plain_bytes(value: Any) -> bytes:
    """Plain record data (a case as ``evals.case_record`` builds it) as compact UTF-8 JSON, written by the
    record models' own encoder, so the bytes are those :func:`model_bytes` gives for the same data
    validated into its model; the text rule applied."""
    try:  # NaN and infinities as null, as the models write them (JSON has no such numbers)
        return to_json(value, inf_nan_mode="null")
    except PydanticSerializationError as exc:
        if "surrogates not allowed" not in str(exc):
            raise
    return to_json(clean_value(value), inf_nan_mode="null")


def json_bytes(value: Any) -> bytes:
    """Compact UTF-8 JSON of a JSON value, the text rule applied (how the record writers encode)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a surrogate only ever sits inside a JSON string: replacing it keeps the JSON
        return _SURROGATE.sub(REPLACEMENT, text).encode("utf-8")


class _Model(Protocol):
    __pydantic_serializer__: ClassVar[Any]

    def model_dump(self, *, by_alias: bool | None = ...) -> dict[str, Any]: ...
    @classmethod
    def model_validate(cls, obj: Any) -> _Model: ...


def model_bytes(model: _Model, *, by_alias: bool = True, exclude_none: bool = True) -> bytes:
    """A record model's JSON as UTF-8, compact (by default as the file format: ``schema`` spelled as
    such, null fields left out), the text rule applied: a lone surrogate anywhere in it is written as
    U+FFFD instead of failing the write."""
    serializer = model.__pydantic_serializer__
    try:
        data: bytes = serializer.to_json(model, by_alias=by_alias, exclude_none=exclude_none)
        return data
    except ValueError as exc:  # pydantic's serialisation error is a ValueError naming the UnicodeEncodeError
        if "surrogates not allowed" not in str(exc):
            raise
    cleaned = type(model).model_validate(clean_value(model.model_dump(by_alias=True)))
    cleaned_data: bytes = serializer.to_json(cleaned, by_alias=by_alias, exclude_none=exclude_none)
    return cleaned_data


def model_json(model: _Model, *, by_alias: bool = True, exclude_none: bool = True) -> str:
    """:func:`model_bytes` as text."""
    return model_bytes(model, by_alias=by_alias, exclude_none=exclude_none).decode("utf-8")
