"""Fast run-record reader for the gate: parse JSON once and check the fields the comparison reads."""

from __future__ import annotations

import contextlib
import gc
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_evals.core.schema_ids import READABLE_SCHEMAS
from agent_evals.errors import RunRecordError

if TYPE_CHECKING:  # the record models load only where a record is built (not for `compare`)
    from agent_evals.core.record import RunRecord

Document = dict[str, Any]
"""A decoded run record (plain JSON objects), as the comparison consumes it."""

_UPGRADERS: dict[str, Callable[[Document], Document]] = {}
"""Schema id -> function that rewrites an older document into the current shape (none needed yet)."""


def needs_upgrade(schema: Any) -> bool:
    """Whether documents of this schema id are rewritten into the current shape when read."""
    return schema in _UPGRADERS


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building millions of acyclic objects (JSON trees,
    comparison rows): its repeated full scans would otherwise dominate the time. Restores the state."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _fail(source: str, path: str, expected: str, value: Any) -> RunRecordError:
    return RunRecordError(
        f"{source}: invalid run record at '{path}': expected {expected}, found {_kind(value)} {_shown(value)}"
    )


def _shown(value: Any) -> str:
    """At most 60 characters of ``repr(value)``; never raises (a 5,000-digit integer has no repr)."""
    try:
        return f"{value!r:.60}"
    except ValueError:
        return f"<a {value.bit_length():,}-bit integer>" if isinstance(value, int) else "<unprintable>"


_RUN_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "git": {"sha": (str,), "ref": (str,)},
    "ci": {"provider": (str,), "run_id": (str, int), "pr": (int,)},
}
"""Provenance objects of ``run`` and the types their fields may have (each may also be null)."""

MAX_NUMBER = 2**63
"""Integers in provenance fields beyond this are refused (a run id or PR number is never that big)."""


def _check_run(run: dict[str, Any], source: str) -> None:
    for key in ("tool_version", "started_at"):
        if not isinstance(run.get(key), str):
            raise _fail(source, f"run.{key}", "a string", run.get(key))
    if "complete" in run and not isinstance(run["complete"], bool):
        raise _fail(source, "run.complete", "true or false", run["complete"])
    for block, fields in _RUN_FIELDS.items():
        value = run.get(block)
        if value is None:
            continue
        if not isinstance(value, dict):
            raise _fail(source, f"run.{block}", "an object or null", value)
        for name, types in fields.items():
            field = value.get(name)
            if field is None:
                continue
            ok = isinstance(field, types) and not isinstance(field, bool)
            if not ok or (isinstance(field, int) and abs(field) >= MAX_NUMBER):
                expected = " or ".join("a string" if t is str else "an integer" for t in types)
                raise _fail(source, f"run.{block}.{name}", f"{expected} or null", field)


def _check_trial(trial: Any, where: str, source: str) -> None:
    if not isinstance(trial, dict):
        raise _fail(source, where, "an object (a trial)", trial)
    if not isinstance(trial.get("passed"), bool):
        raise _fail(source, f"{where}.passed", "a boolean", trial.get("passed"))
    error = trial.get("error")
    if error is not None and not isinstance(error, str):
        raise _fail(source, f"{where}.error", "a string or null", error)
    scores = trial.get("scores")
    if scores is not None:
        if not isinstance(scores, dict):
            raise _fail(source, f"{where}.scores", "an object keyed by scorer name", scores)
        for name, score in scores.items():
            if not isinstance(score, dict):
                raise _fail(source, f"{where}.scores.{name}", "an object", score)
    usage = trial.get("usage")
    if usage is not None:
        if not isinstance(usage, dict):
            raise _fail(source, f"{where}.usage", "an object or null", usage)
        for key in ("input_tokens", "output_tokens", "cost_usd"):
            value = usage.get(key)
            if value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool)):
                raise _fail(source, f"{where}.usage.{key}", "a number or null", value)
    output = trial.get("output")
    if output is not None and not isinstance(output, str):
        raise _fail(source, f"{where}.output", "a string or null", output)
    duration = trial.get("duration_s", 0.0)
    if not isinstance(duration, (int, float)) or isinstance(duration, bool):
        raise _fail(source, f"{where}.duration_s", "a number", duration)


def _check_case(case: Any, where: str, source: str) -> None:
    if not isinstance(case, dict):
        raise _fail(source, where, "an object (a case)", case)
    for key in ("id", "group"):
        if not isinstance(case.get(key), str):
            raise _fail(source, f"{where}.{key}", "a string", case.get(key))
    for key in ("name", "input", "expected"):
        value = case.get(key)
        if value is not None and not isinstance(value, str):
            raise _fail(source, f"{where}.{key}", "a string or null", value)
    if not isinstance(case.get("critical", False), bool):
        raise _fail(source, f"{where}.critical", "a boolean", case.get("critical"))
    dims = case.get("dimensions", {})
    if not isinstance(dims, dict) or not all(isinstance(v, str) for v in dims.values()):
        raise _fail(source, f"{where}.dimensions", "an object of string values", dims)
    location = case.get("location")
    if location is not None and not isinstance(location, dict):
        raise _fail(source, f"{where}.location", "an object (file, line) or null", location)
    trials = case.get("trials", [])
    if not isinstance(trials, list):
        raise _fail(source, f"{where}.trials", "a list", trials)
    for t_index, trial in enumerate(trials):
        _check_trial(trial, f"{where}.trials.{t_index}", source)


def _check_suite(suite: Any, where: str, source: str) -> None:
    if not isinstance(suite, dict):
        raise _fail(source, where, "an object (a suite)", suite)
    if not isinstance(suite.get("id"), str):
        raise _fail(source, f"{where}.id", "a string", suite.get("id"))
    if suite.get("kind") not in ("benchmark", "evals"):
        raise _fail(source, f"{where}.kind", "'benchmark' or 'evals'", suite.get("kind"))
    gate = suite.get("gate")
    if gate is not None and not isinstance(gate, dict):
        raise _fail(source, f"{where}.gate", "an object or null", gate)
    cases = suite.get("cases", [])
    if not isinstance(cases, list):
        raise _fail(source, f"{where}.cases", "a list", cases)


def _check_cases(cases: list[Any], where: str, source: str) -> None:
    for c_index, case in enumerate(cases):
        _check_case(case, f"{where}.cases.{c_index}", source)


def check_document(data: Any, *, source: str = "<run record>", cases: bool = True) -> Document:
    """Check a decoded run record (schema id, structure the gate reads); return it in the current shape.

    ``cases=False`` leaves the cases themselves to the caller (``gate.summary`` checks them as it
    summarises them, with the same messages); the suites' own fields and case lists are still checked."""
    if not isinstance(data, dict):
        raise RunRecordError(f"{source}: expected a JSON object at the top level, found {_kind(data)}")
    schema = data.get("schema")
    if schema not in READABLE_SCHEMAS:
        from agent_evals.core.foreign import not_a_run_record

        raise RunRecordError(not_a_run_record(data, source))
    cases_too = cases
    upgrade = _UPGRADERS.get(schema)
    if upgrade is not None:
        data = upgrade(data)
    run = data.get("run")
    if not isinstance(run, dict):
        raise _fail(source, "run", "an object", run)
    _check_run(run, source)
    suites = data.get("suites", [])
    if not isinstance(suites, list):
        raise _fail(source, "suites", "a list", suites)
    for s_index, suite in enumerate(suites):
        try:
            _check_suite(suite, f"suites.{s_index}", source)
        except RunRecordError:
            if not cases_too:
                # a malformed case of an earlier suite comes first in the record: report that one
                for earlier in range(s_index):
                    _check_cases(suites[earlier].get("cases", []), f"suites.{earlier}", source)
            raise
        if cases_too:
            _check_cases(suite.get("cases", []), f"suites.{s_index}", source)
    checked: Document = data
    return checked


MAX_RECORD_MIB = 256
"""Largest run record ``compare`` and ``report`` read by default (``--max-record-size`` raises it)."""


def check_record_size(path: str | os.PathLike[str], max_mib: float = MAX_RECORD_MIB) -> None:
    """Refuse a record file larger than ``max_mib`` MiB before reading it (RunRecordError, exit 2)."""
    p = Path(path)
    try:
        size = p.stat().st_size
    except OSError:
        return  # the reader names a missing or unreadable file
    if size > max_mib * 1024 * 1024:
        raise RunRecordError(
            f"{p}: the run record is {size / 1024 / 1024:,.0f} MiB, over the {max_mib:g} MiB limit for "
            "reading it whole; raise the limit with --max-record-size MIB if it is really that big"
        )


def decode_json(raw: bytes) -> Any:
    """Decode a JSON document: with msgspec when installed (the ``speed`` extra; several times faster
    on large records), else the standard library. Anything msgspec rejects is decoded again by the
    standard library, which also reads NaN and Infinity and words the error messages."""
    try:
        import msgspec
    except ImportError:
        return json.loads(raw)
    try:
        return msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return json.loads(raw)


def read_document(path: str | os.PathLike[str], *, cases: bool = True) -> Document:
    """Read and check a run record file for comparison; any problem is a RunRecordError naming the file.
    ``cases=False``: see :func:`check_document`."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise RunRecordError(f"cannot read run record {p}: {exc.strerror or exc}") from exc
    with gc_paused():
        try:
            data = decode_json(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            where = f"{exc.lineno}:{exc.colno}: " if isinstance(exc, json.JSONDecodeError) else ""
            raise RunRecordError(f"{p}:{where}not valid JSON: {exc}") from exc
        except RecursionError as exc:
            raise RunRecordError(f"{p}: not a run record: JSON nested too deeply to read") from exc
        except ValueError as exc:  # e.g. an integer of more than 4,300 digits
            raise RunRecordError(f"{p}: not a run record: {exc}") from exc
        return check_document(data, source=str(p), cases=cases)


def record_to_document(record: RunRecord) -> Document:
    """A run record model as the plain document the comparison consumes."""
    doc: Document = record.model_dump(mode="json", by_alias=True)
    return doc
