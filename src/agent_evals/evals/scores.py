"""The eval score type and the parsing of every form ``ctx.store`` and evaluators accept."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ACCEPTED_FORMS = (
    "accepted score forms: True/False (pass/fail under the default key); a number (a value under the "
    "default key); a dict {'key': str, 'passed': bool, 'value': number, 'notes': str} with a key and at "
    "least one of 'passed'/'value'; an EvalScore; or a list of these"
)
"""Human-readable list of the accepted forms, quoted in every score error."""

_SCORE_FIELDS = frozenset({"key", "passed", "value", "notes"})


class InvalidScore(ValueError):
    """A value given as a score that is none of the accepted forms."""


@dataclass(slots=True)
class EvalScore:
    """One named score of an eval result: a pass/fail verdict, a number, or both."""

    key: str
    """Name of the score; storing another score under the same key replaces this one."""
    value: float | None = None
    """Numeric value (any finite number, not limited to [0, 1]); None for pass/fail only."""
    passed: bool | None = None
    """Pass/fail verdict; None for a numeric-only score."""
    notes: str | None = None
    """Why: an assertion message, a judge's comment, a parse error."""


def _is_bool(value: Any) -> bool:
    # numpy.bool_ is not a bool subclass; accept it by name so array comparisons work as verdicts.
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not _is_bool(value)


def _number(value: Any, where: str) -> float:
    number = float(value)
    if not math.isfinite(number):
        raise InvalidScore(f"{where}: score value must be a finite number, got {value!r}; {ACCEPTED_FORMS}")
    return number


def _from_mapping(data: Mapping[str, Any], default_key: str | None, where: str) -> EvalScore:
    unknown = sorted(str(k) for k in data if k not in _SCORE_FIELDS)
    if unknown:
        raise InvalidScore(f"{where}: unknown score field(s) {', '.join(unknown)}; {ACCEPTED_FORMS}")
    key = data.get("key", default_key)
    if not isinstance(key, str) or not key:
        raise InvalidScore(
            f"{where}: a score dict needs a non-empty string 'key', got {key!r}; {ACCEPTED_FORMS}"
        )
    passed = data.get("passed")
    value = data.get("value")
    if passed is None and value is None:
        raise InvalidScore(f"{where}: score {key!r} has neither 'passed' nor 'value'; {ACCEPTED_FORMS}")
    if passed is not None and not _is_bool(passed):
        raise InvalidScore(
            f"{where}: score {key!r}: 'passed' must be True or False, got {passed!r}; {ACCEPTED_FORMS}"
        )
    if value is not None and not _is_number(value):
        raise InvalidScore(
            f"{where}: score {key!r}: 'value' must be a number, got {value!r}; {ACCEPTED_FORMS}"
        )
    notes = data.get("notes")
    return EvalScore(
        key=key,
        value=None if value is None else _number(value, where),
        passed=None if passed is None else bool(passed),
        notes=None if notes is None else str(notes),
    )


def _one(item: Any, default_key: str | None, where: str) -> EvalScore:
    if isinstance(item, EvalScore):
        return item
    if _is_bool(item):
        if default_key is None:
            raise InvalidScore(f"{where}: a bare True/False needs a default key; {ACCEPTED_FORMS}")
        return EvalScore(key=default_key, passed=bool(item))
    if _is_number(item):
        if default_key is None:
            raise InvalidScore(f"{where}: a bare number needs a default key; {ACCEPTED_FORMS}")
        return EvalScore(key=default_key, value=_number(item, where))
    if isinstance(item, Mapping):
        return _from_mapping(item, default_key, where)
    raise InvalidScore(f"{where}: {type(item).__name__} {item!r:.80} is not a score; {ACCEPTED_FORMS}")


def _keyless(item: Any) -> bool:
    """A bare True/False or number, or a dict without ``key``: it would take the default key."""
    if isinstance(item, Mapping):
        return "key" not in item
    return _is_bool(item) or _is_number(item)


def parse_scores(
    raw: Any, *, default_key: str, where: str = "score", key_required: bool = True
) -> list[EvalScore]:
    """Turn any accepted score form into a list of ``EvalScore``.

    ``default_key`` names bare ``True``/``False`` and numbers; with ``key_required=False`` it also
    names dicts without a ``key`` (the evaluator rule). A list with more than one score without a key
    is refused, as in ezvals: they would all share the default key and only the last would count.
    Raises ``InvalidScore`` listing the accepted forms.
    """
    dict_key = None if key_required else default_key
    if isinstance(raw, (list, tuple)):
        keyless = [i for i, item in enumerate(raw) if _keyless(item)]
        if len(keyless) > 1:
            shown = ", ".join(f"{where}[{i}]" for i in keyless)
            raise InvalidScore(
                f"{where}: {shown} have no key, so all would be stored under {default_key!r} and only "
                f"the last kept; give each a 'key' (e.g. {{'key': 'tone', 'passed': True}}); {ACCEPTED_FORMS}"
            )
        out: list[EvalScore] = []
        for index, item in enumerate(raw):
            item_where = f"{where}[{index}]"
            if isinstance(item, (list, tuple)):
                raise InvalidScore(f"{item_where}: nested lists are not scores; {ACCEPTED_FORMS}")
            if isinstance(item, Mapping):
                out.append(_from_mapping(item, dict_key, item_where))
            else:
                out.append(_one(item, default_key, item_where))
        return out
    if isinstance(raw, Mapping):
        return [_from_mapping(raw, dict_key, where)]
    return [_one(raw, default_key, where)]


def merge_scores(existing: list[EvalScore], new: list[EvalScore]) -> None:
    """Add ``new`` to ``existing`` in place; a score whose key is already present replaces the old one."""
    for score in new:
        for index, old in enumerate(existing):
            if old.key == score.key:
                existing[index] = score
                break
        else:
            existing.append(score)
