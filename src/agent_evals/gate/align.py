"""Summarise each case side in one walk over its trials, and classify a case from its two sides."""

from __future__ import annotations

import fnmatch
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_evals.gate.model import CaseClass, ScorerFailure
from agent_evals.gate.usage import UsageSums

SNIPPET_CHARS = 2_000
"""Untrusted text kept per field in a case diff (reports escape and truncate further)."""

CLASS_ORDER: tuple[CaseClass, ...] = (
    "regressed",
    "errored",
    "flaky",
    "improved",
    "new",
    "removed",
    "not-run",
    "stable-fail",
    "stable-pass",
    "ungraded",
)
"""Order of cases in a report: regressions first, then what else needs a look."""


Key = tuple[int, int, int]
"""A case side's trial counts: (graded or errored trials, passes, errored trials); ungraded trials are left out."""


Facts = tuple[
    Any, dict[str, str], str | None, list[ScorerFailure], str | None, str | None, str | None, str | None
]
"""What a case diff reads of its main side's raw case: name, dimensions, location, failing scorers,
first error, output of a failing trial, input and expected (as snippets)."""

Tally = tuple[int, int, int]
"""A scorer's verdicts in one case: (trials with a verdict or an error, passes, errors)."""

RawCase = Any
"""A case as decoded: the document's dict, or a ``gate.native`` struct read the same way (``get``)."""


@dataclass(slots=True)
class CaseView:
    """One side of one case, summarised in a single pass over its trials (raw case kept for details)."""

    raw: RawCase
    id: str
    group: str
    key: Key
    fraction: float | None
    """Pass fraction over valid trials; None when every trial errored (or there are none)."""
    critical: bool
    details: tuple[UsageSums, str | None] | None = None
    """Usage sums and first output, when worked out where the raw case is (another process)."""
    facts: Facts | None = None
    """What a case diff reads of this side's raw case, when worked out ahead (see :func:`case_facts`)."""

    def usage(self) -> UsageSums:
        """Usage over this side's trials (computed on demand: only cases a report details need it)."""
        if self.details is not None:
            return self.details[0]
        trials = self.raw.get("trials", [])
        duration = 0.0
        tokens_in: int | None = None
        tokens_out: int | None = None
        cost: float | None = None
        recorded = False
        for trial in trials:
            seconds = trial.get("duration_s")
            if seconds:
                duration += seconds
            usage = trial.get("usage")
            if usage:
                recorded = True
                value = usage.get("input_tokens")
                if value is not None:
                    tokens_in = (tokens_in or 0) + int(value)
                value = usage.get("output_tokens")
                if value is not None:
                    tokens_out = (tokens_out or 0) + int(value)
                value = usage.get("cost_usd")
                if value is not None:
                    cost = (cost or 0.0) + value
        return UsageSums(tokens_in, tokens_out, cost, duration, len(trials), recorded)

    def first_output(self) -> str | None:
        """The first trial output (as a snippet), shown beside the other side's in a case diff."""
        if self.details is not None:
            return self.details[1]
        return _first(self.raw.get("trials", []), "output")


@dataclass
class SuiteView:
    """Every case of one suite side, plus what is summed over them."""

    cases: dict[str, CaseView] = field(default_factory=dict)
    scorers: dict[str, dict[str, Tally]] = field(default_factory=dict)
    """scorer -> case id -> (trials, passes, errors) over trials where it gave a pass/fail verdict."""
    usage: UsageSums = field(default_factory=UsageSums)
    groups: dict[str, list[str]] = field(default_factory=dict)
    """group -> case ids."""
    dimensions: dict[str, list[str]] = field(default_factory=dict)
    """``name=value`` -> case ids."""
    counted: dict[tuple[str, str], Counter[Any]] = field(default_factory=dict)
    """Per-side counts worked out so far (see ``breakdown.side_counts``)."""


_NUMBER = (int, float)


def _case_ok(case: Any) -> bool:
    """A quick test that a case's own fields have the types the reader requires (False: look closer)."""
    if case.__class__ is not dict:
        return False
    get = case.get
    name, text_in, expected, location = get("name"), get("input"), get("expected"), get("location")
    if not (
        get("id").__class__ is str
        and (location is None or location.__class__ is dict)
        and get("group").__class__ is str
        and (name is None or name.__class__ is str)
        and (text_in is None or text_in.__class__ is str)
        and (expected is None or expected.__class__ is str)
        and get("critical", False).__class__ is bool
        and get("trials", _NO_TRIALS).__class__ is list
    ):
        return False
    dims = get("dimensions", _NO_DIMENSIONS)
    if dims.__class__ is not dict:
        return False
    # a plain loop: cheaper than all() over a generator, run once per case (100,000s of times)
    for value in dims.values():  # noqa: SIM110
        if value.__class__ is not str:
            return False
    return True


_NO_TRIALS: list[Any] = []
_NO_DIMENSIONS: dict[str, str] = {}


def view_suite(
    suite: dict[str, Any],
    critical_globs: Sequence[str] = (),
    *,
    recheck: Callable[[], None] | None = None,
) -> SuiteView:
    """Summarise a suite document: per-case counts, per-scorer tallies and usage, in one pass.

    With ``recheck``, the cases are also checked as they are summarised (the types the reader checks):
    at the first thing that looks wrong ``recheck`` is called, which raises the reader's located error
    (or returns when it was fine after all). One walk over the trials instead of two.

    This loop runs once per trial (hundreds of thousands on a large run): lookups are bound to locals
    and usage is summed in place rather than gathered first.
    """
    checking = recheck is not None
    out = SuiteView()
    views, scorers, groups, dimensions = out.cases, out.scorers, out.groups, out.dimensions
    n_trials = n_usages = 0
    duration = 0.0
    tokens_in = tokens_out = n_in = n_out = 0
    costs: list[float] = []
    for case in suite.get("cases", []):
        if checking and not _case_ok(case) and recheck is not None:
            recheck()
        cid = case["id"]
        trials = case.get("trials", [])
        errors = passes = ungraded = 0
        # a scorer's verdicts are counted in locals while consecutive ones are its own (the usual
        # case: one scorer per trial), and added to the case's tally when another scorer comes
        current: str | None = None
        t_n = t_p = t_e = 0
        for trial in trials:
            if checking and trial.__class__ is not dict and recheck is not None:
                recheck()
            get = trial.get
            error = get("error")
            errored = error is not None
            passed = get("passed")
            seconds = get("duration_s", 0.0)
            usage = get("usage")
            scores = get("scores")
            if checking and recheck is not None:
                output = get("output")
                if not (
                    (passed is True or passed is False)
                    and (not errored or error.__class__ is str)
                    and (seconds.__class__ is float or seconds.__class__ is int)
                    and (usage is None or usage.__class__ is dict)
                    and (scores is None or scores.__class__ is dict)
                    and (output is None or output.__class__ is str)
                ):
                    recheck()
            if errored:
                errors += 1
            elif get("graded", True) is False:
                ungraded += 1  # numeric-only: no pass/fail verdict, left out of the pass fraction
            elif passed:
                passes += 1
            if seconds:
                duration += seconds
            if usage:
                n_usages += 1
                value = usage.get("input_tokens")
                if value is not None:
                    if checking and value.__class__ is not int and value.__class__ is not float and recheck:
                        recheck()
                    tokens_in += value
                    n_in += 1
                value = usage.get("output_tokens")
                if value is not None:
                    if checking and value.__class__ is not int and value.__class__ is not float and recheck:
                        recheck()
                    tokens_out += value
                    n_out += 1
                value = usage.get("cost_usd")
                if value is not None:
                    if checking and value.__class__ is not int and value.__class__ is not float and recheck:
                        recheck()
                    costs.append(value)
            if not scores:
                continue
            for name, score in scores.items():
                if checking and score.__class__ is not dict and recheck is not None:
                    recheck()
                verdict = score.get("passed")
                failed_scorer = score.get("error") is not None
                if verdict is None and not failed_scorer and not errored:
                    continue  # numeric-only score: no pass/fail verdict of its own
                if name is not current:
                    if current is not None:
                        add_tally(scorers, current, cid, (t_n, t_p, t_e))
                    current = name
                    t_n = t_p = t_e = 0
                t_n += 1
                if errored or failed_scorer:
                    t_e += 1
                elif verdict:
                    t_p += 1
        if current is not None:
            add_tally(scorers, current, cid, (t_n, t_p, t_e))
        n_trials += len(trials)
        critical = bool(case.get("critical", False))
        if not critical and critical_globs:
            critical = any(fnmatch.fnmatchcase(cid, g) for g in critical_globs)
        counted = len(trials) - ungraded
        valid = counted - errors
        fraction = passes / valid if valid else None
        group = case["group"]
        views[cid] = CaseView(case, cid, group, (counted, passes, errors), fraction, critical)
        members = groups.get(group)
        if members is None:
            groups[group] = [cid]
        else:
            members.append(cid)
        dims = case.get("dimensions")
        if dims:
            for name, value in dims.items():
                dimensions.setdefault(f"{name}={value}", []).append(cid)
    out.usage = UsageSums(
        input_tokens=int(tokens_in) if n_in else None,
        output_tokens=int(tokens_out) if n_out else None,
        cost_usd=math.fsum(costs) if costs else None,
        duration_s=duration,
        trials=n_trials,
        recorded=n_usages > 0,
    )
    return out


def add_tally(scorers: dict[str, dict[str, Tally]], name: str, cid: str, tally: Tally) -> None:
    """Add a run of one scorer's verdicts in case ``cid`` to its tally there (the summary walks)."""
    per_case = scorers.get(name)
    if per_case is None:
        per_case = scorers[name] = {}
    found = per_case.get(cid)
    if found is None:
        per_case[cid] = tally
    else:
        per_case[cid] = (found[0] + tally[0], found[1] + tally[1], found[2] + tally[2])


def fraction_of(key: Key) -> float | None:
    """A case side's pass fraction from its trial counts, as the summary walks work it out."""
    counted, passes, errors = key
    valid = counted - errors
    return passes / valid if valid else None


def view_cases(suite: dict[str, Any], critical_globs: Sequence[str] = ()) -> dict[str, CaseView]:
    """Summarise every case of a suite document, keyed by case id."""
    return view_suite(suite, critical_globs).cases


def _state(x: float) -> str:
    return "pass" if x == 1.0 else "fail" if x == 0.0 else "flaky"


def classify(base: CaseView | None, cand: CaseView | None) -> CaseClass:
    """Trial-aware class of a case from its two sides."""
    if base is None:
        return "new"
    if cand is None:
        return "removed"
    return _classify(base.fraction, cand.fraction, bool(base.key[2] or cand.key[2]))


def classify_keys(base: Key, cand: Key) -> CaseClass:
    """:func:`classify` of two sides known by their keys alone (a side's fraction follows from its key)."""
    return _classify(fraction_of(base), fraction_of(cand), bool(base[2] or cand[2]))


def _classify(xb: float | None, xc: float | None, errored: bool) -> CaseClass:
    if xb is None or xc is None:
        # no valid trial on a side: because they errored, or because none has a pass/fail verdict
        return "errored" if errored else "ungraded"
    sb, sc = _state(xb), _state(xc)
    if sb == "flaky" or sc == "flaky":
        return "flaky"
    if sb == sc:
        return "stable-pass" if sb == "pass" else "stable-fail"
    return "regressed" if sb == "pass" else "improved"


def snippet(value: Any) -> str | None:
    """Untrusted text of a case diff, cut to :data:`SNIPPET_CHARS` (reports escape and cut further)."""
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    return text[:SNIPPET_CHARS]


def _first(trials: Sequence[dict[str, Any]], key: str) -> str | None:
    for trial in trials:
        value = trial.get(key)
        if value is not None:
            return snippet(value)
    return None
