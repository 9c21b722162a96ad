"""The run record schema as the reader applies it: field tables, the located error, the full checks.

The tables are the schema (schemas/run.schema.json) field by field; a test holds them to it. The
summary walk (``record.summary``) checks each object in place with class tests and calls the full
check of an object only when it does not fit, to word the error."""

from __future__ import annotations

from typing import Any, NoReturn

from agent_evals.errors import RunRecordError

Kinds = frozenset[type]
"""The classes a field's value may have (``NoneType``: null)."""
Table = dict[str, Kinds]
"""Field -> the classes its value may have."""

NONE: type = type(None)
STR: Kinds = frozenset((str, NONE))
INT: Kinds = frozenset((int, NONE))
NUM: Kinds = frozenset((int, float, NONE))
BOOL: Kinds = frozenset((bool, NONE))
OBJ: Kinds = frozenset((dict, NONE))
COUNT: Kinds = frozenset((int,))
NUMBER: Kinds = frozenset((int, float))

MAX_USAGE = 1e15
"""The largest token count or cost (US dollars) a usage may hold: a larger finite one cannot be a
measurement, and sums of it overflow a float (``1e308`` twice, ``10**400`` tokens); the reader refuses
it, naming the field, and the writer never writes one (``cost.meter.record_usage``)."""


def oversized(value: Any) -> bool:
    """Whether a usage number is beyond :data:`MAX_USAGE` (NaN and infinity are not: they stay readable
    as no measurement, ``gate.usage_gate``)."""
    return bool((value > MAX_USAGE or value < -MAX_USAGE) and abs(value) != float("inf"))


# Per object: field -> the classes its value may have (None: null allowed). A field missing from the
# table is an addition of a newer writer and is kept unread. These tables are the run record schema
# (schemas/run.schema.json) as the reader applies it; the schema test checks that the two agree.
RUN: Table = {
    "tool_version": frozenset((str,)),
    "started_at": frozenset((str,)),
    "finished_at": STR,
    "complete": frozenset((bool,)),
    "incomplete_reason": STR,
    "incomplete_reasons": frozenset((list, NONE)),
    "budget": OBJ,
    "suite_ids": STR,
    "git": frozenset((dict,)),
    "ci": frozenset((dict,)),
    "shard": OBJ,
}
GIT: Table = {"sha": STR, "ref": STR}
CI: Table = {"provider": STR, "run_id": STR, "pr": INT, "head_sha": STR}
SHARD: Table = {"index": frozenset((int,)), "count": frozenset((int,)), "suites": OBJ}
SHARD_SUITE: Table = {"cases": COUNT, "case_ids": frozenset((str,)), "files": STR}
AGENT: Table = {"name": STR, "version": STR}
SUITE_MODELS: Table = {"agent": frozenset((list, NONE)), "judge": frozenset((list, NONE))}
SUITE: Table = {
    "id": frozenset((str,)),
    "source": frozenset((str,)),
    "fingerprint": frozenset((str,)),
    "agent": frozenset((dict,)),
    "gate": OBJ,
    "models": OBJ,
    "inputs": OBJ,
    "reused": OBJ,
    "policy": OBJ,
    "case_positions": frozenset((list, NONE)),
    "cases": frozenset((list,)),
}
CASE: Table = {
    "id": frozenset((str,)),
    "group": frozenset((str,)),
    "name": STR,
    "dimensions": frozenset((dict,)),
    "critical": frozenset((bool,)),
    "location": OBJ,
    "input": STR,
    "expected": STR,
    "labels": frozenset((list,)),
    "definition": STR,
    "trials": frozenset((list,)),
}
LOCATION: Table = {"file": STR, "line": INT}
TRIAL: Table = {
    "passed": frozenset((bool,)),
    "error": STR,
    "scores": frozenset((dict,)),
    "duration_s": frozenset((int, float)),
    "usage": OBJ,
    "output": STR,
    "graded": frozenset((bool,)),
    "traceback": STR,
    "attempts": frozenset((list, NONE)),
    "cache": OBJ,
}
USAGE: Table = {"input_tokens": INT, "output_tokens": INT, "cost_usd": NUM, "models": OBJ, "replayed": OBJ}
REPLAYED_USAGE: Table = {"input_tokens": COUNT, "output_tokens": COUNT, "cost_usd": NUM, "calls": COUNT}
MODEL_USAGE: Table = {"input_tokens": COUNT, "output_tokens": COUNT, "calls": COUNT}
ATTEMPT: Table = {"error": STR, "duration_s": NUMBER, "reason": STR, "waited_s": NUMBER, "usage": OBJ}
CACHE: Table = {"replayed": COUNT, "recorded": COUNT, "missed": COUNT}
BUDGET: Table = {
    "limit_usd": NUMBER,
    "spent_usd": NUMBER,
    "skipped_trials": COUNT,
    "uncounted_trials": COUNT,
    "uncounted": frozenset((list, NONE)),
}
SCORE: Table = {
    "value": NUM,
    "passed": BOOL,
    "error": STR,
    "notes": STR,
    "expected": STR,
    "actual": STR,
    "source": STR,
}

_WORDS = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "a boolean",
    dict: "an object",
    list: "a list",
}


MAX_NUMBER = 2**63
"""Largest pull request number read (the schema's ``maximum``, less one)."""

MISSING = object()
"""Stands for a required field a record leaves out, in :func:`fail`."""


def _shown(value: Any) -> str:
    """At most 60 characters of ``repr(value)``; never raises (a 5,000-digit integer has no repr)."""
    try:
        return f"{value!r:.60}"
    except (ValueError, RecursionError):
        return f"<a {value.bit_length():,}-bit integer>" if isinstance(value, int) else "<unprintable>"


def kind_of(value: Any) -> str:
    """The JSON name of a value's kind, for an error (``null`` for None, else its class name)."""
    return "null" if value is None else type(value).__name__


def _expected(allowed: Kinds) -> str:
    words = [_WORDS[t] for t in (str, int, float, bool, dict, list) if t in allowed]
    if int in allowed and float in allowed:
        words.remove(_WORDS[int])
    text = " or ".join(words)
    return f"{text} or null" if NONE in allowed else text


def fail(source: str, path: str, expected: str, value: Any) -> RunRecordError:
    """The reader's one error: where in the record, what was expected there, what was found."""
    if value is MISSING:
        found = "nothing (the field is missing)"
    else:
        found = "null" if value is None else f"{kind_of(value)} {_shown(value)}"
    return RunRecordError(f"{source}: invalid run record at '{path}': expected {expected}, found {found}")


def fits(value: Any, allowed: Kinds) -> bool:
    """Whether ``value`` has one of the ``allowed`` classes (an integer-valued float counts as an integer)."""
    cls = value.__class__
    if cls in allowed:
        return True
    # JSON has one number type: 3.0 is an integer (as the schema and the record models read it)
    return cls is float and int in allowed and value.is_integer()


def check_fields(obj: dict[str, Any], table: Table, source: str, where: str) -> None:
    """Check each field of ``obj`` that ``table`` names; raise at the first that does not fit."""
    for key, value in obj.items():
        allowed = table.get(key)
        if allowed is not None and value.__class__ not in allowed and not fits(value, allowed):
            raise fail(source, f"{where}.{key}" if where else key, _expected(allowed), value)


def check_object(value: Any, source: str, where: str, what: str, table: Table) -> None:
    """Check that ``value`` is an object, then its fields against ``table``; raise at the first problem."""
    if value.__class__ is not dict:
        raise fail(source, where, what, value)
    check_fields(value, table, source, where)


def index_of(items: list[Any], item: Any) -> int:
    """The position of ``item`` (by identity) in ``items``: the index of an error's JSON path."""
    return next(i for i, x in enumerate(items) if x is item)


def case_problem(case: Any, source: str, where: str) -> NoReturn:
    """The full check of one case's own fields (not its trials); raises at the first problem."""
    check_object(case, source, where, "an object (a case)", CASE)
    for key in ("id", "group"):
        if key not in case:
            raise fail(source, f"{where}.{key}", "a string", MISSING)
    for name, value in case.get("dimensions", {}).items():
        if value.__class__ is not str:
            raise fail(source, f"{where}.dimensions.{name}", "a string", value)
    location = case.get("location")
    if location is not None:
        check_fields(location, LOCATION, source, f"{where}.location")
    for i, label in enumerate(case.get("labels", ())):
        if label.__class__ is not str:
            raise fail(source, f"{where}.labels.{i}", "a string", label)
    # not reached while the quick checks and these agree; if they ever do not, refuse all the same
    raise fail(source, where, "a case as the run record schema describes it", case)


def trial_problem(trial: Any, source: str, where: str) -> NoReturn:
    """The full check of one trial; raises at the first problem."""
    check_object(trial, source, where, "an object (a trial)", TRIAL)
    if "passed" not in trial:
        raise fail(source, f"{where}.passed", "a boolean", MISSING)
    usage = trial.get("usage")
    if usage is not None:
        usage_problem(usage, source, f"{where}.usage")
    for i, attempt in enumerate(trial.get("attempts") or ()):
        check_object(attempt, source, f"{where}.attempts.{i}", "an object (an attempt)", ATTEMPT)
        if attempt.get("usage") is not None:
            usage_problem(attempt["usage"], source, f"{where}.attempts.{i}.usage")
    cache = trial.get("cache")
    if cache is not None:
        check_fields(cache, CACHE, source, f"{where}.cache")
        mode = cache.get("mode", MISSING)
        if mode != "record" and mode != "replay":
            raise fail(source, f"{where}.cache.mode", "'record' or 'replay'", mode)
    for name, score in trial.get("scores", {}).items():
        check_object(score, source, f"{where}.scores.{name}", "an object (a score)", SCORE)
    # not reached while the quick checks and these agree; if they ever do not, refuse all the same
    raise fail(source, where, "a trial as the run record schema describes it", trial)


def usage_problem(usage: dict[str, Any], source: str, where: str) -> None:
    """The full check of a usage object (a trial's or an attempt's); raises at the first problem."""
    check_fields(usage, USAGE, source, where)
    _sizes(usage, USAGE, source, where)
    for model, tally in (usage.get("models") or {}).items():
        check_object(tally, source, f"{where}.models.{model}", "an object (a model's usage)", MODEL_USAGE)
        _sizes(tally, MODEL_USAGE, source, f"{where}.models.{model}")
    if usage.get("replayed") is not None:
        check_object(
            usage["replayed"], source, f"{where}.replayed", "an object (replayed usage)", REPLAYED_USAGE
        )
        _sizes(usage["replayed"], REPLAYED_USAGE, source, f"{where}.replayed")


def _sizes(obj: dict[str, Any], table: Table, source: str, where: str) -> None:
    key = _oversized_key(obj, table)
    if key is not None:
        raise fail(source, f"{where}.{key}", f"a number of at most {MAX_USAGE:g} in size", obj[key])


def _oversized_key(obj: dict[str, Any], table: Table) -> str | None:
    """The first field ``table`` names whose number is beyond :data:`MAX_USAGE` (None: none is)."""
    for key, value in obj.items():
        if key in table and value.__class__ in (int, float) and oversized(value):
            return key
    return None


def fine(obj: dict[str, Any], table: Table) -> bool:
    """Whether every field of ``obj`` that ``table`` names fits (the quick form of :func:`check_fields`)."""
    for key, value in obj.items():
        allowed = table.get(key)
        if allowed is not None and value.__class__ not in allowed and not fits(value, allowed):
            return False
    return True


def models_fine(models: Any) -> bool:
    """Whether a trial's per-model usage fits the schema (an object of objects with integer counts)."""
    if models.__class__ is not dict:
        return False
    for tally in models.values():
        if tally.__class__ is not dict or not fine(tally, MODEL_USAGE) or _oversized_key(tally, MODEL_USAGE):
            return False
    return True


def usage_fine(usage: dict[str, Any]) -> bool:
    """Whether an attempt's usage fits the schema (the quick form of :func:`usage_problem`)."""
    models, replayed = usage.get("models"), usage.get("replayed")
    return (
        fine(usage, USAGE)
        and _oversized_key(usage, USAGE) is None
        and (models is None or models_fine(models))
        and (replayed is None or replayed_fine(replayed))
    )


def replayed_fine(replayed: Any) -> bool:
    """Whether a usage's ``replayed`` share fits the schema."""
    return (
        replayed.__class__ is dict
        and fine(replayed, REPLAYED_USAGE)
        and _oversized_key(replayed, REPLAYED_USAGE) is None
    )


def extras_fine(attempts: Any, cache: Any) -> bool:
    """Whether a trial's retried attempts and response-cache block fit the schema (either may be null)."""
    if attempts is not None:
        if attempts.__class__ is not list:
            return False
        for attempt in attempts:
            if attempt.__class__ is not dict or not fine(attempt, ATTEMPT):
                return False
            usage = attempt.get("usage")
            if usage is not None and not usage_fine(usage):
                return False
    if cache is not None:
        if cache.__class__ is not dict or not fine(cache, CACHE):
            return False
        mode = cache.get("mode")
        if mode != "record" and mode != "replay":
            return False
    return True


def check_strings(values: list[Any] | None, source: str, where: str) -> None:
    """Check that each item of a list of strings (null: none) is a string; raise at the first that is not."""
    for i, value in enumerate(values or ()):
        if value.__class__ is not str:
            raise fail(source, f"{where}.{i}", "a string", value)


def all_str(values: Any) -> bool:
    """Whether every value is a string (an empty or missing collection is)."""
    if not values:
        return True
    for value in values:  # noqa: SIM110 (a plain loop: cheaper than all() over a generator)
        if value.__class__ is not str:
            return False
    return True
