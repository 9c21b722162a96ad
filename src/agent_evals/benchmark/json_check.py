"""JSON Schema checks for the `output.json_schema` checker: jsonschema when installed, else a common subset."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

SUPPORTED_KEYWORDS = frozenset(
    {
        "$schema", "$id", "title", "description", "default", "examples", "$comment",
        "type", "enum", "const", "properties", "required", "additionalProperties",
        "items", "minItems", "maxItems", "uniqueItems", "minLength", "maxLength", "pattern",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "anyOf", "oneOf", "allOf", "not",
    }
)  # fmt: skip
"""Keywords the built-in validator understands (used when the jsonschema package is absent)."""

_TYPES: dict[str, Any] = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}


def _jsonschema() -> Any:
    try:
        import jsonschema
    except ImportError:
        return None
    return jsonschema


def check_schema(schema: dict[str, Any]) -> None:
    """Raise ValueError when ``schema`` is not a usable JSON Schema."""
    lib = _jsonschema()
    if lib is not None:
        try:
            lib.validators.validator_for(schema).check_schema(schema)
        except lib.exceptions.SchemaError as exc:
            raise ValueError(f"invalid JSON Schema: {exc.message}") from exc
        return
    _check_subset(schema, "schema")


def _check_subset(schema: Any, where: str) -> None:
    if isinstance(schema, bool):
        return
    if not isinstance(schema, dict):
        raise ValueError(f"{where}: a JSON Schema must be a mapping")
    unknown = sorted(set(schema) - SUPPORTED_KEYWORDS)
    if unknown:
        raise ValueError(
            f"{where}: unsupported JSON Schema keyword(s) {', '.join(unknown)}; "
            "install the 'jsonschema' package for the full vocabulary"
        )
    for kind in schema.get("type", []) if isinstance(schema.get("type"), list) else [schema.get("type")]:
        if kind is not None and kind not in (*_TYPES, "integer", "number"):
            raise ValueError(f"{where}.type: unknown type {kind!r}")
    for key, sub in (schema.get("properties") or {}).items():
        _check_subset(sub, f"{where}.properties.{key}")
    for key in ("items", "not", "additionalProperties"):
        if isinstance(schema.get(key), (dict, bool)):
            _check_subset(schema[key], f"{where}.{key}")
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(schema.get(key) or []):
            _check_subset(sub, f"{where}.{key}[{i}]")


def validate(instance: Any, schema: dict[str, Any]) -> list[str]:
    """Every way ``instance`` violates ``schema`` (empty when it is valid)."""
    lib = _jsonschema()
    if lib is not None:
        validator: Any = lib.validators.validator_for(schema)(schema)
        return [f"{_where(list(e.absolute_path))}: {e.message}" for e in validator.iter_errors(instance)]
    return _validate(instance, schema, [])


def _where(path: list[Any]) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def _is_type(value: Any, kind: str) -> bool:
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[kind])


def _validate(value: Any, schema: Any, path: list[Any]) -> list[str]:
    if schema is True:
        return []
    if schema is False:
        return [f"{_where(path)}: no value is allowed here"]
    errs: list[str] = []
    here = _where(path)
    kinds = schema.get("type")
    if kinds is not None:
        options = kinds if isinstance(kinds, list) else [kinds]
        if not any(_is_type(value, k) for k in options):
            return [f"{here}: expected {' or '.join(options)}, found {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        errs.append(f"{here}: {value!r} is not one of {schema['enum']!r}")
    if "const" in schema and value != schema["const"]:
        errs.append(f"{here}: expected {schema['const']!r}, found {value!r}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            errs.append(f"{here}: shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errs.append(f"{here}: longer than {schema['maxLength']} characters")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errs.append(f"{here}: does not match pattern {schema['pattern']!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        bounds: tuple[tuple[str, Callable[[Any], bool]], ...] = (
            ("minimum", lambda b: bool(value < b)),
            ("maximum", lambda b: bool(value > b)),
            ("exclusiveMinimum", lambda b: bool(value <= b)),
            ("exclusiveMaximum", lambda b: bool(value >= b)),
        )
        for key, broken in bounds:
            if key in schema and broken(schema[key]):
                errs.append(f"{here}: {value!r} violates {key} {schema[key]!r}")
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        errs += [
            f"{here}: missing required property {k!r}" for k in schema.get("required", []) if k not in value
        ]
        for key, item in value.items():
            if key in props:
                errs += _validate(item, props[key], [*path, key])
            elif "additionalProperties" in schema:
                errs += _validate(item, schema["additionalProperties"], [*path, key])
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errs.append(f"{here}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errs.append(f"{here}: more than {schema['maxItems']} items")
        if schema.get("uniqueItems") and len({repr(v) for v in value}) != len(value):
            errs.append(f"{here}: items are not unique")
        if "items" in schema:
            for i, item in enumerate(value):
                errs += _validate(item, schema["items"], [*path, i])
    for sub in schema.get("allOf", []):
        errs += _validate(value, sub, path)
    if "anyOf" in schema and not any(not _validate(value, s, path) for s in schema["anyOf"]):
        errs.append(f"{here}: matches none of anyOf")
    if "oneOf" in schema and sum(not _validate(value, s, path) for s in schema["oneOf"]) != 1:
        errs.append(f"{here}: must match exactly one of oneOf")
    if "not" in schema and not _validate(value, schema["not"], path):
        errs.append(f"{here}: must not match the 'not' schema")
    return errs
