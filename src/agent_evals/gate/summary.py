"""One walk over a decoded run record: check it against the run record schema and summarise every suite."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NoReturn

from agent_evals.core.schema_ids import READABLE_SCHEMAS
from agent_evals.errors import RunRecordError
from agent_evals.gate.align import CaseView, SuiteView, add_tally
from agent_evals.gate.usage import UsageSums

HEADER_FIELDS = ("id", "kind", "source", "fingerprint", "agent", "gate", "inputs", "reused")
"""The fields of a suite (besides its cases) that a comparison reads."""

Kinds = frozenset[type]
"""The classes a field's value may have (``NoneType``: null)."""
Table = dict[str, Kinds]
"""Field -> the classes its value may have."""

_NONE: type = type(None)
_STR: Kinds = frozenset((str, _NONE))
_INT: Kinds = frozenset((int, _NONE))
_NUM: Kinds = frozenset((int, float, _NONE))
_BOOL: Kinds = frozenset((bool, _NONE))
_OBJ: Kinds = frozenset((dict, _NONE))
_COUNT: Kinds = frozenset((int,))
_NUMBER: Kinds = frozenset((int, float))

# Per object: field -> the classes its value may have (None: null allowed). A field missing from the
# table is an addition of a newer writer and is kept unread. These tables are the run record schema
# (schemas/run.schema.json) as the reader applies it; the schema test checks that the two agree.
_RUN: Table = {
    "tool_version": frozenset((str,)),
    "started_at": frozenset((str,)),
    "finished_at": _STR,
    "complete": frozenset((bool,)),
    "incomplete_reason": _STR,
    "budget": _OBJ,
    "suite_ids": _STR,
    "git": frozenset((dict,)),
    "ci": frozenset((dict,)),
    "shard": _OBJ,
}
_GIT: Table = {"sha": _STR, "ref": _STR}
_CI: Table = {"provider": _STR, "run_id": _STR, "pr": _INT}
_SHARD: Table = {"index": frozenset((int,)), "count": frozenset((int,))}
_AGENT: Table = {"name": _STR, "version": _STR}
_SUITE: Table = {
    "id": frozenset((str,)),
    "source": frozenset((str,)),
    "fingerprint": frozenset((str,)),
    "agent": frozenset((dict,)),
    "gate": _OBJ,
    "inputs": _OBJ,
    "reused": _OBJ,
    "case_positions": frozenset((list, _NONE)),
    "cases": frozenset((list,)),
}
_CASE: Table = {
    "id": frozenset((str,)),
    "group": frozenset((str,)),
    "name": _STR,
    "dimensions": frozenset((dict,)),
    "critical": frozenset((bool,)),
    "location": _OBJ,
    "input": _STR,
    "expected": _STR,
    "labels": frozenset((list,)),
    "trials": frozenset((list,)),
}
_LOCATION: Table = {"file": _STR, "line": _INT}
_TRIAL: Table = {
    "passed": frozenset((bool,)),
    "error": _STR,
    "scores": frozenset((dict,)),
    "duration_s": frozenset((int, float)),
    "usage": _OBJ,
    "output": _STR,
    "graded": frozenset((bool,)),
    "traceback": _STR,
    "attempts": frozenset((list, _NONE)),
    "cache": _OBJ,
}
_USAGE: Table = {"input_tokens": _INT, "output_tokens": _INT, "cost_usd": _NUM, "models": _OBJ}
_MODEL_USAGE: Table = {"input_tokens": _COUNT, "output_tokens": _COUNT, "calls": _COUNT}
_ATTEMPT: Table = {"error": _STR, "duration_s": _NUMBER, "reason": _STR, "waited_s": _NUMBER}
_CACHE: Table = {"replayed": _COUNT, "recorded": _COUNT, "missed": _COUNT}
_BUDGET: Table = {"limit_usd": _NUMBER, "spent_usd": _NUMBER, "skipped_trials": _COUNT}
_SCORE: Table = {
    "value": _NUM,
    "passed": _BOOL,
    "error": _STR,
    "notes": _STR,
    "expected": _STR,
    "actual": _STR,
    "source": _STR,
}

_WORDS = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "a boolean",
    dict: "an object",
    list: "a list",
}


@dataclass
class SuiteSummary:
    """One suite of a run record: its fields but the cases, its case views and trials per case."""

    header: dict[str, Any]
    """The suite's fields the gate reads (:data:`HEADER_FIELDS`), those the record has."""
    view: SuiteView
    """Per-case views (critical only as recorded; the comparison applies the policy's globs)."""
    trial_counts: list[int]
    """Distinct numbers of trials per case, sorted."""


@dataclass
class RunSummary:
    """A run record as the comparison reads it: the ``run`` block and every suite's summary."""

    run: dict[str, Any]
    """The record's ``run`` block (provenance, completeness)."""
    suites: list[SuiteSummary]
    """Suites in record order."""


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


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _expected(allowed: Kinds) -> str:
    words = [_WORDS[t] for t in (str, int, float, bool, dict, list) if t in allowed]
    if int in allowed and float in allowed:
        words.remove(_WORDS[int])
    text = " or ".join(words)
    return f"{text} or null" if _NONE in allowed else text


def fail(source: str, path: str, expected: str, value: Any) -> RunRecordError:
    """The reader's one error: where in the record, what was expected there, what was found."""
    if value is MISSING:
        found = "nothing (the field is missing)"
    else:
        found = "null" if value is None else f"{_kind(value)} {_shown(value)}"
    return RunRecordError(f"{source}: invalid run record at '{path}': expected {expected}, found {found}")


def _fits(value: Any, allowed: Kinds) -> bool:
    cls = value.__class__
    if cls in allowed:
        return True
    # JSON has one number type: 3.0 is an integer (as the schema and the record models read it)
    return cls is float and int in allowed and value.is_integer()


def _check(obj: dict[str, Any], table: Table, source: str, where: str) -> None:
    """Check each field of ``obj`` that ``table`` names; raise at the first that does not fit."""
    for key, value in obj.items():
        allowed = table.get(key)
        if allowed is not None and value.__class__ not in allowed and not _fits(value, allowed):
            raise fail(source, f"{where}.{key}" if where else key, _expected(allowed), value)


def _object(value: Any, source: str, where: str, what: str, table: Table) -> None:
    if value.__class__ is not dict:
        raise fail(source, where, what, value)
    _check(value, table, source, where)


def _index(items: list[Any], item: Any) -> int:
    return next(i for i, x in enumerate(items) if x is item)


def summarise(data: Any, source: str = "<run record>") -> RunSummary:
    """Check a decoded run record and summarise it, in one walk; a RunRecordError locates the first
    problem (JSON path, what was expected, what was found). Every command reads records through this.

    Beyond the schema: the schema id must be one this version reads, suite ids must be unique, and
    case ids unique within their suite (a repeated id would hide one of its cases from the comparison).
    """
    if data.__class__ is not dict:
        raise RunRecordError(f"{source}: expected a JSON object at the top level, found {_kind(data)}")
    schema = data.get("schema")
    if schema.__class__ is not str or schema not in READABLE_SCHEMAS:
        from agent_evals.core.foreign import not_a_run_record

        raise RunRecordError(not_a_run_record(data, source))
    _object(data.get("run", MISSING), source, "run", "an object", _RUN)
    run: dict[str, Any] = data["run"]
    for key in ("tool_version", "started_at"):
        if key not in run:
            raise fail(source, f"run.{key}", "a string", MISSING)
    if "git" in run:
        _check(run["git"], _GIT, source, "run.git")
    if "ci" in run:
        _check(run["ci"], _CI, source, "run.ci")
        pr = run["ci"].get("pr")
        if pr is not None and abs(pr) >= MAX_NUMBER:  # a pull request number is never that big
            raise fail(source, "run.ci.pr", f"an integer below {MAX_NUMBER:,}", pr)
    shard = run.get("shard")
    if shard is not None:
        _check(shard, _SHARD, source, "run.shard")
        for key in ("index", "count"):
            value = shard.get(key, MISSING)
            if value is MISSING or value < 1:
                raise fail(source, f"run.shard.{key}", "an integer of 1 or more", value)
    budget = run.get("budget")
    if budget is not None:
        _check(budget, _BUDGET, source, "run.budget")
        for key in ("limit_usd", "spent_usd"):
            if key not in budget:
                raise fail(source, f"run.budget.{key}", "a number", MISSING)
    suites = data.get("suites", [])
    if suites.__class__ is not list:
        raise fail(source, "suites", "a list", suites)
    out: list[SuiteSummary] = []
    seen: dict[str, int] = {}
    for s_index, suite in enumerate(suites):
        where = f"suites.{s_index}"
        header = _suite_header(suite, source, where)
        sid = header["id"]
        if sid in seen:
            raise fail(source, f"{where}.id", f"a suite id not used before (suites.{seen[sid]})", sid)
        seen[sid] = s_index
        cases = suite.get("cases", [])
        view = _walk_cases(cases, source, where)
        counts = sorted({len(c.get("trials", ())) for c in cases})
        out.append(SuiteSummary(header, view, counts))
    return RunSummary(run, out)


def _suite_header(suite: Any, source: str, where: str) -> dict[str, Any]:
    _object(suite, source, where, "an object (a suite)", _SUITE)
    if "id" not in suite:
        raise fail(source, f"{where}.id", "a string", MISSING)
    kind = suite.get("kind")
    if kind.__class__ is not str or kind not in ("benchmark", "evals"):
        raise fail(source, f"{where}.kind", "'benchmark' or 'evals'", kind)
    if "source" not in suite:
        raise fail(source, f"{where}.source", "a string", MISSING)
    if "agent" in suite:
        _check(suite["agent"], _AGENT, source, f"{where}.agent")
    for i, position in enumerate(suite.get("case_positions") or ()):
        if not _fits(position, _INT) or position is None:
            raise fail(source, f"{where}.case_positions.{i}", "an integer", position)
    return {k: suite[k] for k in HEADER_FIELDS if k in suite}


def _case_problem(case: Any, source: str, where: str) -> NoReturn:
    """The full check of one case's own fields (not its trials); raises at the first problem."""
    _object(case, source, where, "an object (a case)", _CASE)
    for key in ("id", "group"):
        if key not in case:
            raise fail(source, f"{where}.{key}", "a string", MISSING)
    for name, value in case.get("dimensions", {}).items():
        if value.__class__ is not str:
            raise fail(source, f"{where}.dimensions.{name}", "a string", value)
    location = case.get("location")
    if location is not None:
        _check(location, _LOCATION, source, f"{where}.location")
    for i, label in enumerate(case.get("labels", ())):
        if label.__class__ is not str:
            raise fail(source, f"{where}.labels.{i}", "a string", label)
    # not reached while the quick checks and these agree; if they ever do not, refuse all the same
    raise fail(source, where, "a case as the run record schema describes it", case)


def _trial_problem(trial: Any, source: str, where: str) -> NoReturn:
    """The full check of one trial; raises at the first problem."""
    _object(trial, source, where, "an object (a trial)", _TRIAL)
    if "passed" not in trial:
        raise fail(source, f"{where}.passed", "a boolean", MISSING)
    usage = trial.get("usage")
    if usage is not None:
        _check(usage, _USAGE, source, f"{where}.usage")
        for model, tally in (usage.get("models") or {}).items():
            _object(
                tally, source, f"{where}.usage.models.{model}", "an object (a model's usage)", _MODEL_USAGE
            )
    for i, attempt in enumerate(trial.get("attempts") or ()):
        _object(attempt, source, f"{where}.attempts.{i}", "an object (an attempt)", _ATTEMPT)
    cache = trial.get("cache")
    if cache is not None:
        _check(cache, _CACHE, source, f"{where}.cache")
        mode = cache.get("mode", MISSING)
        if mode != "record" and mode != "replay":
            raise fail(source, f"{where}.cache.mode", "'record' or 'replay'", mode)
    for name, score in trial.get("scores", {}).items():
        _object(score, source, f"{where}.scores.{name}", "an object (a score)", _SCORE)
    # not reached while the quick checks and these agree; if they ever do not, refuse all the same
    raise fail(source, where, "a trial as the run record schema describes it", trial)


_NO_TRIALS: list[Any] = []
_NO_LABELS: list[Any] = []
_NO_DIMENSIONS: dict[str, str] = {}
_SCORE_CORE = frozenset(("passed", "value", "error"))
"""Score fields checked in the walk itself; a score with others gets the table's check too."""


def _fine(obj: dict[str, Any], table: Table) -> bool:
    """Whether every field of ``obj`` that ``table`` names fits (the quick form of :func:`_check`)."""
    for key, value in obj.items():
        allowed = table.get(key)
        if allowed is not None and value.__class__ not in allowed and not _fits(value, allowed):
            return False
    return True


def _models_fine(models: Any) -> bool:
    """Whether a trial's per-model usage fits the schema (an object of objects with integer counts)."""
    if models.__class__ is not dict:
        return False
    for tally in models.values():
        if tally.__class__ is not dict or not _fine(tally, _MODEL_USAGE):
            return False
    return True


def _extras_fine(attempts: Any, cache: Any) -> bool:
    """Whether a trial's retried attempts and response-cache block fit the schema (either may be null)."""
    if attempts is not None:
        if attempts.__class__ is not list:
            return False
        for attempt in attempts:
            if attempt.__class__ is not dict or not _fine(attempt, _ATTEMPT):
                return False
    if cache is not None:
        if cache.__class__ is not dict or not _fine(cache, _CACHE):
            return False
        mode = cache.get("mode")
        if mode != "record" and mode != "replay":
            return False
    return True


def _all_str(values: Any) -> bool:
    if not values:
        return True
    for value in values:  # noqa: SIM110 (a plain loop: cheaper than all() over a generator)
        if value.__class__ is not str:
            return False
    return True


def _trial_at(where: str, cases: list[Any], case: Any, trials: list[Any], trial: Any) -> str:
    return f"{where}.cases.{_index(cases, case)}.trials.{_index(trials, trial)}"


def add_cases(view: SuiteView, cases: list[Any], source: str = "<suite>") -> None:
    """Check and summarise more cases of a suite into ``view``, as :func:`summarise` walks a record's:
    the run writer feeds each case it writes through here, so a run's own verdict reads the same
    summary ``compare`` would read from the file."""
    _walk_cases(cases, source, "suite", view)


def _walk_cases(cases: list[Any], source: str, where: str, into: SuiteView | None = None) -> SuiteView:
    """Check and summarise a suite's cases: per-case counts, per-scorer tallies and usage, in one pass
    (into ``into``, adding to what it holds, when given).

    This loop runs once per trial (hundreds of thousands on a large run), so each object is checked
    in place with class tests; at the first that fails, the full check of that object words the error.
    """
    out = SuiteView() if into is None else into
    views, scorers, groups, dimensions = out.cases, out.scorers, out.groups, out.dimensions
    n_trials = n_usages = 0
    duration = 0.0
    tokens_in = tokens_out = n_in = n_out = 0
    costs: list[float] = []
    labels: dict[str, dict[str, list[str]]] = {}  # dimension -> value -> case ids (the index's lists)
    str_, dict_, list_, int_, float_ = str, dict, list, int, float
    for case in cases:
        if case.__class__ is not dict_:
            _case_problem(case, source, f"{where}.cases.{_index(cases, case)}")
        get = case.get
        cid, group, name, dims = get("id"), get("group"), get("name"), get("dimensions", _NO_DIMENSIONS)
        location, critical, trials = get("location"), get("critical", False), get("trials", _NO_TRIALS)
        text_in, expected, tags = get("input"), get("expected"), get("labels", _NO_LABELS)
        if not (
            cid.__class__ is str_
            and group.__class__ is str_
            and (name is None or name.__class__ is str_)
            and dims.__class__ is dict_
            and (critical is True or critical is False)
            and trials.__class__ is list_
            and (text_in is None or text_in.__class__ is str_)
            and (expected is None or expected.__class__ is str_)
            and (location is None or (location.__class__ is dict_ and _fine(location, _LOCATION)))
            and tags.__class__ is list_
            and _all_str(tags)
            and (not dims or _all_str(dims.values()))
        ):
            _case_problem(case, source, f"{where}.cases.{_index(cases, case)}")
        if cid in views:
            at = f"{where}.cases.{_index(cases, case)}.id"
            raise fail(source, at, "a case id not used before in this suite", cid)
        errors = passes = ungraded = 0
        # usage over the valid trials, for the usage gate: tokens and seconds of the trials that
        # measured them; cost as recorded, or (models, recorded cost) where the comparison prices it
        valid_trials = n_tokens = n_seconds = n_cost = 0
        case_tokens = case_seconds = case_cost = 0.0
        priced: list[tuple[dict[str, Any], Any]] | None = None
        # a scorer's verdicts are counted in locals while consecutive ones are its own (the usual
        # case: one scorer per trial), and added to the case's tally when another scorer comes
        current: str | None = None
        t_n = t_p = t_e = 0
        for trial in trials:
            if trial.__class__ is not dict_:
                _trial_problem(trial, source, _trial_at(where, cases, case, trials, trial))
            tget = trial.get
            error = tget("error")
            passed = tget("passed")
            graded = tget("graded", True)
            seconds = tget("duration_s", 0.0)
            usage = tget("usage")
            scores = tget("scores")
            output = tget("output")
            trace = tget("traceback")
            attempts = tget("attempts")
            cache = tget("cache")
            if not (
                (passed is True or passed is False)
                and (error is None or error.__class__ is str_)
                and (graded is True or graded is False)
                and (seconds.__class__ is float_ or seconds.__class__ is int_)
                and (output is None or output.__class__ is str_)
                and (trace is None or trace.__class__ is str_)
                and (usage is None or usage.__class__ is dict_)
                and ((scores is None and "scores" not in trial) or scores.__class__ is dict_)
                and ((attempts is None and cache is None) or _extras_fine(attempts, cache))
            ):
                _trial_problem(trial, source, _trial_at(where, cases, case, trials, trial))
            errored = error is not None
            if errored:
                errors += 1
            else:
                valid_trials += 1
                if graded is False:
                    ungraded += 1  # numeric-only: no pass/fail verdict, left out of the pass fraction
                elif passed:
                    passes += 1
            if seconds:
                duration += seconds
                if not errored:
                    case_seconds += seconds
                    n_seconds += 1
            if usage:
                n_usages += 1
                uget = usage.get
                t_in, t_out, cost, models = (
                    uget("input_tokens"),
                    uget("output_tokens"),
                    uget("cost_usd"),
                    uget("models"),
                )
                if t_in is not None:
                    if t_in.__class__ is not int_ and not _fits(t_in, _INT):
                        _trial_problem(trial, source, _trial_at(where, cases, case, trials, trial))
                    tokens_in += t_in
                    n_in += 1
                if t_out is not None:
                    if t_out.__class__ is not int_ and not _fits(t_out, _INT):
                        _trial_problem(trial, source, _trial_at(where, cases, case, trials, trial))
                    tokens_out += t_out
                    n_out += 1
                if cost is not None:
                    if cost.__class__ is not float_ and cost.__class__ is not int_:
                        _trial_problem(trial, source, _trial_at(where, cases, case, trials, trial))
                    costs.append(cost)
                if models is not None and not _models_fine(models):
                    _trial_problem(trial, source, _trial_at(where, cases, case, trials, trial))
                if not errored:
                    if t_in is not None or t_out is not None:
                        case_tokens += (t_in or 0) + (t_out or 0)
                        n_tokens += 1
                    if models:
                        if priced is None:
                            priced = []
                        priced.append((models, cost))
                    elif cost is not None:
                        case_cost += cost
                        n_cost += 1
            if not scores:
                continue
            for scorer, score in scores.items():
                if score.__class__ is not dict_:
                    _trial_problem(trial, source, _trial_at(where, cases, case, trials, trial))
                sget = score.get
                verdict, value, failure = sget("passed"), sget("value"), sget("error")
                if not (
                    (verdict is None or verdict is True or verdict is False)
                    and (value is None or value.__class__ is float_ or value.__class__ is int_)
                    and (failure is None or failure.__class__ is str_)
                    and (score.keys() <= _SCORE_CORE or _fine(score, _SCORE))
                ):
                    _trial_problem(trial, source, _trial_at(where, cases, case, trials, trial))
                failed_scorer = failure is not None
                if verdict is None and not failed_scorer and not errored:
                    continue  # numeric-only score: no pass/fail verdict of its own
                if scorer is not current:
                    if current is not None:
                        add_tally(scorers, current, cid, (t_n, t_p, t_e))
                    current = scorer
                    t_n = t_p = t_e = 0
                t_n += 1
                if errored or failed_scorer:
                    t_e += 1
                elif verdict:
                    t_p += 1
        if current is not None:
            add_tally(scorers, current, cid, (t_n, t_p, t_e))
        n_trials += len(trials)
        counted = len(trials) - ungraded
        valid = counted - errors
        fraction = passes / valid if valid else None
        use = (
            valid_trials > 0,
            case_tokens / n_tokens if n_tokens else None,
            case_seconds / n_seconds if n_seconds else None,
            case_cost,
            n_cost,
            priced,
        )
        views[cid] = CaseView(case, cid, group, (counted, passes, errors), fraction, critical, use)
        members = groups.get(group)
        if members is None:
            groups[group] = [cid]
        else:
            members.append(cid)
        if dims:
            for dim, label in dims.items():
                by_label = labels.get(dim)
                if by_label is None:
                    by_label = labels[dim] = {}
                members = by_label.get(label)
                if members is None:  # a new name=value: its list, shared with the index
                    members = dimensions.get(f"{dim}={label}")  # one an earlier walk began
                    if members is None:
                        members = dimensions[f"{dim}={label}"] = []
                    by_label[label] = members
                members.append(cid)
    usage = UsageSums(
        input_tokens=int(tokens_in) if n_in else None,
        output_tokens=int(tokens_out) if n_out else None,
        cost_usd=math.fsum(costs) if costs else None,
        duration_s=duration,
        trials=n_trials,
        recorded=n_usages > 0,
    )
    if into is None:
        out.usage = usage
    else:
        out.usage.merge(usage)
    return out
