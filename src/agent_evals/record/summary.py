"""One walk over a decoded run record: check it against the run record schema and summarise every suite."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, NoReturn

from agent_evals.errors import RunRecordError
from agent_evals.record.rules import (
    AGENT,
    BUDGET,
    CI,
    GIT,
    INT,
    LOCATION,
    MAX_NUMBER,
    MAX_USAGE,
    MISSING,
    RUN,
    SCORE,
    SHARD,
    SHARD_SUITE,
    SUITE,
    SUITE_MODELS,
    all_str,
    case_problem,
    check_fields,
    check_object,
    check_strings,
    extras_fine,
    fail,
    fine,
    fits,
    index_of,
    kind_of,
    models_fine,
    oversized,
    replayed_fine,
    trial_problem,
)
from agent_evals.record.schema_ids import READABLE_SCHEMAS
from agent_evals.record.usage import UsageSums
from agent_evals.record.views import CaseView, Key, SuiteView, Tally, Use, add_tally

HEADER_FIELDS = (
    "id",
    "kind",
    "source",
    "fingerprint",
    "agent",
    "gate",
    "models",
    "inputs",
    "reused",
    "policy",
)
"""The fields of a suite (besides its cases) that a comparison reads."""


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

    @property
    def reruns(self) -> tuple[int, int, int]:
        """Over every suite: trials ``--retry-errors`` retried, their earlier attempts, replayed calls."""
        retried = attempts = replayed = 0
        for suite in self.suites:
            r = suite.view.reruns
            retried, attempts, replayed = retried + r[0], attempts + r[1], replayed + r[2]
        return retried, attempts, replayed

    @property
    def errored_trials(self) -> int:
        """Trials that errored, over every suite."""
        return sum(view.key[2] for suite in self.suites for view in suite.view.cases.values())


def summarise(data: Any, source: str = "<run record>") -> RunSummary:
    """Check a decoded run record and summarise it, in one walk; a RunRecordError locates the first
    problem (JSON path, what was expected, what was found). Every command reads records through this.

    Beyond the schema: the schema id must be one this version reads, suite ids must be unique, and
    case ids unique within their suite (a repeated id would hide one of its cases from the comparison).
    """
    if data.__class__ is not dict:
        raise RunRecordError(f"{source}: expected a JSON object at the top level, found {kind_of(data)}")
    schema = data.get("schema")
    if schema.__class__ is not str or schema not in READABLE_SCHEMAS:
        from agent_evals.record.foreign import not_a_run_record

        raise RunRecordError(not_a_run_record(data, source))
    check_object(data.get("run", MISSING), source, "run", "an object", RUN)
    run: dict[str, Any] = data["run"]
    for key in ("tool_version", "started_at"):
        if key not in run:
            raise fail(source, f"run.{key}", "a string", MISSING)
    if "git" in run:
        check_fields(run["git"], GIT, source, "run.git")
    if "ci" in run:
        check_fields(run["ci"], CI, source, "run.ci")
        pr = run["ci"].get("pr")
        if pr is not None and abs(pr) >= MAX_NUMBER:  # a pull request number is never that big
            raise fail(source, "run.ci.pr", f"an integer below {MAX_NUMBER:,}", pr)
    shard = run.get("shard")
    if shard is not None:
        check_fields(shard, SHARD, source, "run.shard")
        for key in ("index", "count"):
            value = shard.get(key, MISSING)
            if value is MISSING or value < 1:
                raise fail(source, f"run.shard.{key}", "an integer of 1 or more", value)
        for suite_id, whole in (shard.get("suites") or {}).items():
            where = f"run.shard.suites.{suite_id}"
            check_object(whole, source, where, "an object", SHARD_SUITE)
            for key, what in (("cases", "an integer of 0 or more"), ("case_ids", "a string")):
                value = whole.get(key, MISSING)
                if value is MISSING or (key == "cases" and value < 0):
                    raise fail(source, f"{where}.{key}", what, value)
    check_strings(run.get("incomplete_reasons"), source, "run.incomplete_reasons")
    budget = run.get("budget")
    if budget is not None:
        check_fields(budget, BUDGET, source, "run.budget")
        for key in ("limit_usd", "spent_usd"):
            if key not in budget:
                raise fail(source, f"run.budget.{key}", "a number", MISSING)
        check_strings(budget.get("uncounted"), source, "run.budget.uncounted")
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
    check_object(suite, source, where, "an object (a suite)", SUITE)
    if "id" not in suite:
        raise fail(source, f"{where}.id", "a string", MISSING)
    kind = suite.get("kind")
    if kind.__class__ is not str or kind not in ("benchmark", "evals"):
        raise fail(source, f"{where}.kind", "'benchmark' or 'evals'", kind)
    if "source" not in suite:
        raise fail(source, f"{where}.source", "a string", MISSING)
    if "agent" in suite:
        check_fields(suite["agent"], AGENT, source, f"{where}.agent")
    models = suite.get("models")
    if models is not None:
        check_fields(models, SUITE_MODELS, source, f"{where}.models")
        for role in ("agent", "judge"):
            check_strings(models.get(role), source, f"{where}.models.{role}")
    for i, position in enumerate(suite.get("case_positions") or ()):
        if not fits(position, INT) or position is None:
            raise fail(source, f"{where}.case_positions.{i}", "an integer", position)
    return {k: suite[k] for k in HEADER_FIELDS if k in suite}


_NO_TRIALS: list[Any] = []
_NO_LABELS: list[Any] = []
_NO_DIMENSIONS: dict[str, str] = {}
_SCORE_CORE = frozenset(("passed", "value", "error"))
"""Score fields checked in the walk itself; a score with others gets the table's check too."""


def _location_fine(location: dict[str, Any]) -> bool:
    """A case location as the schema has it: the usual ``{"file": str, "line": int}`` at a glance,
    anything else field by field."""
    file, line = location.get("file"), location.get("line")
    return (len(location) == 2 and file.__class__ is str and line.__class__ is int) or fine(
        location, LOCATION
    )


_At = tuple[str, str, list[Any]]
"""Where a suite's cases are, to word a problem in one: the source, the suite's JSON path, its cases."""


def _trial_problem(at: _At, case: Any, trials: list[Any], trial: Any) -> NoReturn:
    source, where, cases = at
    trial_problem(trial, source, f"{where}.cases.{index_of(cases, case)}.trials.{index_of(trials, trial)}")


def add_cases(view: SuiteView, cases: list[Any], source: str = "<suite>") -> None:
    """Check and summarise more cases of a suite into ``view``, as :func:`summarise` walks a record's:
    the run writer feeds each case it writes through here, so a run's own verdict reads the same
    summary ``compare`` would read from the file."""
    _walk_cases(cases, source, "suite", view)


@dataclass(slots=True)
class _Sums:
    """What a suite's walk sums over all its trials, carried from case to case."""

    running: tuple[float, int, int, int, int, int] = (0.0, 0, 0, 0, 0, 0)
    """Seconds, trials with usage, input and output tokens, and the trials that recorded each."""
    costs: list[float] = field(default_factory=list)
    trials: int = 0
    reruns: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    """The suite view's :attr:`~agent_evals.record.views.SuiteView.reruns` (added to in place)."""

    def usage(self) -> UsageSums:
        """The sums as the suite's usage."""
        duration, usages, tokens_in, tokens_out, n_in, n_out = self.running
        return UsageSums(
            input_tokens=int(tokens_in) if n_in else None,
            output_tokens=int(tokens_out) if n_out else None,
            cost_usd=_total(self.costs) if self.costs else None,
            duration_s=duration,
            trials=self.trials,
            recorded=usages > 0,
        )


def _total(costs: list[float]) -> float:
    """The sum of a suite's costs; NaN (no measurement) when infinite costs of both signs meet."""
    try:
        return math.fsum(costs)
    except ValueError:  # inf + -inf: both readable, as no measurement
        return math.nan


def _walk_cases(cases: list[Any], source: str, where: str, into: SuiteView | None = None) -> SuiteView:
    """Check and summarise a suite's cases: per-case counts, per-scorer tallies and usage, in one pass
    (into ``into``, adding to what it holds, when given).

    This loop runs once per case and :func:`_walk_trials` once per trial (hundreds of thousands on a
    large run), so each object is checked in place with class tests; at the first that fails, the
    full check of that object words the error.
    """
    out = SuiteView() if into is None else into
    views, scorers, groups, dimensions = out.cases, out.scorers, out.groups, out.dimensions
    sums = _Sums(reruns=out.reruns)
    at = (source, where, cases)
    n_trials = 0
    labels: dict[str, dict[str, list[str]]] = {}  # dimension -> value -> case ids (the index's lists)
    str_, dict_, list_ = str, dict, list
    for case in cases:
        if case.__class__ is not dict_:
            case_problem(case, source, f"{where}.cases.{index_of(cases, case)}")
        get = case.get
        cid, group, name, dims = get("id"), get("group"), get("name"), get("dimensions", _NO_DIMENSIONS)
        location, critical, trials = get("location"), get("critical", False), get("trials", _NO_TRIALS)
        text_in, expected, tags = get("input"), get("expected"), get("labels", _NO_LABELS)
        definition = get("definition")
        if not (
            cid.__class__ is str_
            and group.__class__ is str_
            and (name is None or name.__class__ is str_)
            and dims.__class__ is dict_
            and (critical is True or critical is False)
            and trials.__class__ is list_
            and (text_in is None or text_in.__class__ is str_)
            and (expected is None or expected.__class__ is str_)
            and (definition is None or definition.__class__ is str_)
            and (location is None or (location.__class__ is dict_ and _location_fine(location)))
            and tags.__class__ is list_
            and (not tags or all_str(tags))
            and (not dims or all_str(dims.values()))
        ):
            case_problem(case, source, f"{where}.cases.{index_of(cases, case)}")
        if cid in views:
            path = f"{where}.cases.{index_of(cases, case)}.id"
            raise fail(source, path, "a case id not used before in this suite", cid)
        key, use = _walk_trials(trials, cid, scorers, sums, case, at)
        n_trials += len(trials)
        passes = key[1]
        valid = key[0] - key[2]
        views[cid] = CaseView(
            case, cid, group, key, passes / valid if valid else None, critical, use, definition
        )
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
    sums.trials = n_trials
    if into is None:
        out.usage = sums.usage()
    else:
        out.usage.merge(sums.usage())
    return out


def _count_reruns(reruns: list[int], attempts: Any, cache: Any, errored: bool) -> None:
    """Add a (checked) trial's retried attempts and replayed calls to its suite's counts."""
    if attempts:
        reruns[0] += 1
        reruns[1] += len(attempts)
    if cache is not None:
        replayed = cache.get("replayed")
        reruns[2] += replayed or 0
        if replayed == 0 and not errored:
            reruns[3] += 1


def _walk_trials(
    trials: list[Any], cid: str, scorers: dict[str, dict[str, Tally]], sums: _Sums, case: Any, at: _At
) -> tuple[Key, Use]:
    """Check one case's trials and count them: its key and usage, returned; its scorers' tallies and
    the suite's sums, added into ``scorers`` and ``sums`` (``case`` and ``at`` locate a problem)."""
    str_, dict_, int_, float_, big = str, dict, int, float, MAX_USAGE
    costs = sums.costs
    duration, n_usages, tokens_in, tokens_out, n_in, n_out = sums.running
    errors = passes = ungraded = 0
    valid_trials = n_tokens = n_seconds = n_cost = 0  # the valid trials' usage, for the usage gate:
    case_tokens = case_seconds = case_cost = 0.0  # what they measured, and their cost as recorded
    priced: list[tuple[dict[str, Any], Any]] | None = None  # or, with models, as the gate prices it
    current: str | None = None  # the scorer whose consecutive verdicts (usually one per trial)
    t_n = t_p = t_e = 0  # are counted here before they go to its tally
    for trial in trials:
        if trial.__class__ is not dict_:
            _trial_problem(at, case, trials, trial)
        tget = trial.get
        error, passed, graded = tget("error"), tget("passed"), tget("graded", True)
        seconds, usage, scores = tget("duration_s", 0.0), tget("usage"), tget("scores")
        output, trace, attempts, cache = tget("output"), tget("traceback"), tget("attempts"), tget("cache")
        if not (
            (passed is True or passed is False)
            and (error is None or error.__class__ is str_)
            and (graded is True or graded is False)
            and (seconds.__class__ is float_ or seconds.__class__ is int_)
            and (output is None or output.__class__ is str_)
            and (trace is None or trace.__class__ is str_)
            and (usage is None or usage.__class__ is dict_)
            and ((scores is None and "scores" not in trial) or scores.__class__ is dict_)
            and ((attempts is None and cache is None) or extras_fine(attempts, cache))
        ):
            _trial_problem(at, case, trials, trial)
        errored = error is not None
        if attempts or cache is not None:
            _count_reruns(sums.reruns, attempts, cache, errored)
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
            t_in, t_out, cost = uget("input_tokens"), uget("output_tokens"), uget("cost_usd")
            models, replayed = uget("models"), uget("replayed")
            if t_in is not None:
                if (t_in.__class__ is not int_ and not fits(t_in, INT)) or not -big <= t_in <= big:
                    _trial_problem(at, case, trials, trial)
                tokens_in += t_in
                n_in += 1
            if t_out is not None:
                if (t_out.__class__ is not int_ and not fits(t_out, INT)) or not -big <= t_out <= big:
                    _trial_problem(at, case, trials, trial)
                tokens_out += t_out
                n_out += 1
            if cost is not None:  # a NaN or infinite cost passes (oversized): read as no measurement
                if cost.__class__ not in (float_, int_) or (not -big <= cost <= big and oversized(cost)):
                    _trial_problem(at, case, trials, trial)
                costs.append(cost)
            if (models is not None and not models_fine(models)) or (
                replayed is not None and not replayed_fine(replayed)
            ):
                _trial_problem(at, case, trials, trial)
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
                _trial_problem(at, case, trials, trial)
            sget = score.get
            verdict, value, failure = sget("passed"), sget("value"), sget("error")
            if not (
                (verdict is None or verdict is True or verdict is False)
                and (value is None or value.__class__ is float_ or value.__class__ is int_)
                and (failure is None or failure.__class__ is str_)
                and (score.keys() <= _SCORE_CORE or fine(score, SCORE))
            ):
                _trial_problem(at, case, trials, trial)
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
    sums.running = (duration, n_usages, tokens_in, tokens_out, n_in, n_out)
    return (len(trials) - ungraded, passes, errors), (
        valid_trials > 0,
        case_tokens / n_tokens if n_tokens else None,
        case_cost / n_cost if n_cost else None,
        case_seconds / n_seconds if n_seconds else None,
        None if priced is None else (case_cost, n_cost, priced),
    )
