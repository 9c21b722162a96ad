"""The one trial writer: a trial's plain values (output, scores, error, usage) as run-record trial data."""

from __future__ import annotations

import json
import math
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from agent_evals.record.text import bytes_text

if TYPE_CHECKING:
    from pydantic import BaseModel

TEXT_LIMIT = 100_000
"""Longest text a trial's ``output`` (and an eval case's ``input``/``expected``) keeps in the record,
in characters; the first ``TEXT_LIMIT`` are kept, nothing is appended. The same for evals,
benchmarks and ``EvalResult.to_run_record()``, and long enough for ``regrade`` to re-score what it reads."""


class Redact(Protocol):
    """Masks secret values in a text (``core.redact.Redactor`` is one)."""

    @property
    def active(self) -> bool:
        """Whether there is anything to mask (when not, JSON values need not be redacted)."""
        ...

    def __call__(self, text: str) -> str:
        """``text`` with every secret value masked."""
        ...


class _Unchanged:
    """A redaction that masks nothing: for callers that redact the whole record afterwards."""

    active = False

    def __call__(self, text: str) -> str:
        return text


UNCHANGED: Redact = _Unchanged()
"""No redaction (the caller masks secrets in what it writes, as a whole)."""


@dataclass(slots=True)  # not frozen: a frozen dataclass sets each field through object.__setattr__
class ScoreData:
    """One score of a trial, as plain values (each layer maps its own score type into this)."""

    value: float | None = None
    """The numeric value, None for a pass/fail-only score."""
    passed: bool | None = None
    """The verdict, None for a numeric-only score (recorded as False when ``error`` is set)."""
    error: str | None = None
    """Why the scorer itself failed, when it did."""
    notes: str | None = None
    """Why: a judge's reasoning, an assertion message."""
    expected: str | None = None
    """What the scorer expected, as short text."""
    actual: str | None = None
    """What it found, as short text."""
    source: str | None = None
    """Which step of a code-first eval produced it (``body``, ``evaluator``, ``auto``)."""


def text_data(value: Any, redact: Redact = UNCHANGED) -> tuple[str | None, Any]:
    """A value as the record keeps it: text cut to :data:`TEXT_LIMIT`, plus the JSON value when the
    value is not text (``output_json``, ``input_json``), both redacted."""
    if value is None:
        return None, None
    if isinstance(value, str):
        return redact(value[:TEXT_LIMIT]), None
    if isinstance(value, (bytes, bytearray)):  # no JSON value: its text (record.text)
        return redact(bytes_text(value[:TEXT_LIMIT])), None
    if isinstance(value, bool):
        return ("true" if value else "false"), value
    if isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)):
        return redact(repr(value)), value  # what json.dumps would write, without its overhead
    try:
        dumped = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        try:  # bytes inside (a final state holding a blob): recorded as their text (record.text)
            dumped = json.dumps(value, ensure_ascii=False, default=_bytes_only)
        except (TypeError, ValueError):
            return redact(_repr(value)[:TEXT_LIMIT]), None
        value = json.loads(dumped)
    if not redact.active:
        return dumped[:TEXT_LIMIT], value
    return redact(dumped[:TEXT_LIMIT]), json.loads(redact(dumped))


def _repr(value: Any) -> str:
    """``repr(value)``; a placeholder naming the type when the value's (or a part's) ``__repr__`` raises."""
    try:
        return repr(value)
    except Exception as exc:  # code under test's object: its broken repr must not end the run
        return f"<{type(value).__qualname__} object: its repr raised {type(exc).__name__}>"


def _bytes_only(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes_text(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def _score(score: ScoreData, redact: Redact) -> dict[str, Any]:
    """A score's record data; a field that is None is left out (the record model's default)."""
    out: dict[str, Any] = {}
    if score.value is not None:
        out["value"] = score.value
    passed = False if score.error is not None else score.passed
    if passed is not None:
        out["passed"] = passed
    if score.error is not None:
        out["error"] = redact(score.error)
    if score.notes is not None:
        out["notes"] = redact(score.notes)
    if score.expected is not None:
        out["expected"] = redact(score.expected)
    if score.actual is not None:
        out["actual"] = redact(score.actual)
    if score.source is not None:
        out["source"] = score.source
    return out


def distinct_key(name: str, taken: Container[str]) -> str:
    """``name``, or ``name#2``, ``name#3``, ... : the first spelling not in ``taken``.

    Run records keep every score of a trial: a second score under a name already used is stored
    under the next free ``#n`` spelling instead of replacing the first.
    """
    if name not in taken:
        return name
    n = 2
    while f"{name}#{n}" in taken:
        n += 1
    return f"{name}#{n}"


def trial_data(
    *,
    passed: bool,
    error: str | None,
    scores: Mapping[str, ScoreData],
    duration_s: float,
    output: Any,
    usage: Mapping[str, Any] | None = None,
    graded: bool = True,
    traceback: str | None = None,
    attempts: Sequence[Mapping[str, Any]] = (),
    cache: Mapping[str, Any] | None = None,
    redact: Redact = UNCHANGED,
) -> dict[str, Any]:
    """The run-record trial (plain data, as the record's models would dump it) of one finished trial.

    ``usage`` is already in the record's shape (``cost.meter.record_usage``). A trial with an error
    never passes. Strings are masked with ``redact``: pass :data:`UNCHANGED` when the caller masks
    the whole record afterwards. A field that is None is left out, as the record writes it (every
    optional field of a trial defaults to None).
    """
    # Plain data in the record's own shape and key order, serialised as it stands (no model per trial
    # or per case): what record.model would dump for it, byte for byte (tests/unit/record/test_plain_case.py).
    text, as_json = text_data(output, redact)
    out: dict[str, Any] = {"passed": passed and error is None}
    if error is not None:
        out["error"] = redact(error)
    out["scores"] = {key: _score(score, redact) for key, score in scores.items()}
    out["duration_s"] = round(duration_s, 6)
    if usage is not None:
        from agent_evals.record.model import Usage  # the record models load only for rarer data

        out["usage"] = _shaped(Usage, usage)
    if text is not None:
        out["output"] = text
    if as_json is not None:
        out["output_json"] = as_json
    out["graded"] = graded
    if traceback is not None:
        out["traceback"] = redact(traceback)
    if attempts:
        from agent_evals.record.model import Attempt

        out["attempts"] = [
            _shaped(Attempt, {**a, "error": None if a.get("error") is None else redact(a["error"])})
            for a in attempts
        ]
    if cache is not None:
        from agent_evals.record.model import TrialCache

        out["cache"] = _shaped(TrialCache, cache)
    return out


def _shaped(model: type[BaseModel], data: Mapping[str, Any]) -> dict[str, Any]:
    """Rarer nested data (usage, retried attempts, cache) as its record model dumps it: defaults filled,
    null fields left out, in the model's key order."""
    return model.model_validate(data).model_dump(mode="json", exclude_none=True)
