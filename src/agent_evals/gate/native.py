"""Run-record summaries decoded straight into typed structs by msgspec (the optional ``speed`` extra).

The structs below declare exactly the types ``gate.reader`` checks, so msgspec checks them in C while
it decodes, and the summary walk reads attributes instead of building a dict per trial. Fields the
gate does not read are skipped. Whatever these structs refuse (a malformed record, but also a record
the reader accepts and they do not, e.g. NaN or extra keys in ``usage``) makes :func:`read_native`
return None, and the caller reads the file the standard way: the outcome, or the located error
message, is always the reader's own.
"""

from __future__ import annotations

import math
from operator import attrgetter
from typing import Any

import msgspec

from agent_evals.errors import RunRecordError
from agent_evals.gate.align import CaseView, SuiteView, add_tally
from agent_evals.gate.reader import check_document, needs_upgrade
from agent_evals.gate.summary import HEADER_FIELDS, RunSummary, SuiteSummary
from agent_evals.gate.usage import UsageSums


class _Fields(msgspec.Struct, gc=False):
    """A decoded object that reads like the document's dict where the gate reads it (``case_diff``,
    usage sums): ``get`` returns the field, and a key left out of the record holds the default the
    readers assume for it. A key that is not a field raises AttributeError, so a reader of a new
    key fails loudly here instead of seeing None."""

    def get(self, key: str, default: Any = None) -> Any:
        """The field ``key`` (``default`` is not needed: every field has the readers' default)."""
        return getattr(self, key)


class _Score(_Fields):
    passed: Any = None
    error: Any = None
    value: Any = None
    notes: Any = None
    expected: Any = None
    actual: Any = None


class _Trial(_Fields):
    passed: bool
    error: str | None = None
    graded: Any = True
    duration_s: float = 0.0
    usage: dict[str, int | float | None] | None = None
    scores: dict[str, _Score] | None = None
    output: str | None = None


class _Case(_Fields):
    id: str
    group: str
    name: str | None = None
    input: str | None = None
    expected: str | None = None
    critical: bool = False
    dimensions: dict[str, str] = {}
    location: dict[str, Any] | None = None
    trials: list[_Trial] = []


_TRIALS = attrgetter("trials")


class _Suite(msgspec.Struct, gc=False):
    # summary.HEADER_FIELDS, the suite fields the gate reads; checked as the reader checks them
    id: Any = msgspec.UNSET
    kind: Any = msgspec.UNSET
    source: Any = msgspec.UNSET
    fingerprint: Any = msgspec.UNSET
    agent: Any = msgspec.UNSET
    gate: Any = msgspec.UNSET
    cases: list[_Case] = []


class _Record(msgspec.Struct, gc=False):
    schema: Any = msgspec.UNSET
    run: Any = msgspec.UNSET
    suites: list[_Suite] = []


_RECORD = msgspec.json.Decoder(_Record)


def read_native(raw: bytes, source: str) -> RunSummary | None:
    """Summarise a run record's bytes, or None when the typed decoding refuses anything in it (the
    caller then reads it with ``reader.read_document``, which accepts it or says what is wrong).

    One pass over the bytes. The summary's views keep the decoded cases as their raw cases (see
    :class:`_Fields`); suite headers hold the fields the gate reads."""
    try:
        record = _RECORD.decode(raw)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError, ValueError):
        return None
    if needs_upgrade(record.schema):
        return None  # an older schema is rewritten from the plain document
    headers = [
        {key: value for key in HEADER_FIELDS if (value := getattr(suite, key)) is not msgspec.UNSET}
        for suite in record.suites
    ]
    skeleton = {
        key: getattr(record, key) for key in ("schema", "run") if getattr(record, key) is not msgspec.UNSET
    }
    skeleton["suites"] = [{**header, "cases": []} for header in headers]
    try:
        check_document(skeleton, source=source, cases=False)
    except RunRecordError:
        return None  # the reader names the first problem, which may be in an earlier suite's cases
    out = []
    for suite, header in zip(record.suites, headers, strict=True):
        cases = suite.cases
        out.append(SuiteSummary(header, view_structs(cases), sorted(set(map(len, map(_TRIALS, cases))))))
    run = record.run
    return RunSummary(run if isinstance(run, dict) else {}, out)


def view_structs(cases: list[_Case]) -> SuiteView:
    """``align.view_suite`` over decoded structs: the same counts, tallies and sums, attribute reads.

    Keep the two in step: tests run both on the same records and compare the results."""
    out = SuiteView()
    views, scorers, groups, dimensions = out.cases, out.scorers, out.groups, out.dimensions
    n_trials = n_usages = 0
    duration = 0.0
    tokens_in: float = 0
    tokens_out: float = 0
    n_in = n_out = 0
    costs: list[float] = []
    labels: dict[str, dict[str, list[str]]] = {}  # dimension -> value -> case ids (the index's lists)
    for case in cases:
        cid = case.id
        trials = case.trials
        errors = passes = ungraded = 0
        # a scorer's tally is counted in locals while consecutive verdicts are its own (the usual
        # case: one scorer per trial), and added to the case's tally when another scorer comes
        current: str | None = None
        t_n = t_p = t_e = 0
        for trial in trials:
            errored = trial.error is not None
            if errored:
                errors += 1
            elif trial.graded is False:
                ungraded += 1
            elif trial.passed:
                passes += 1
            seconds = trial.duration_s
            if seconds:
                duration += seconds
            usage = trial.usage
            if usage:
                n_usages += 1
                value = usage.get("input_tokens")
                if value is not None:
                    tokens_in += value
                    n_in += 1
                value = usage.get("output_tokens")
                if value is not None:
                    tokens_out += value
                    n_out += 1
                value = usage.get("cost_usd")
                if value is not None:
                    costs.append(value)
            scores = trial.scores
            if not scores:
                continue
            for name, score in scores.items():
                verdict = score.passed
                failed_scorer = score.error is not None
                if verdict is None and not failed_scorer and not errored:
                    continue
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
        counted = len(trials) - ungraded
        valid = counted - errors
        group = case.group
        views[cid] = CaseView(
            case, cid, group, (counted, passes, errors), passes / valid if valid else None, case.critical
        )
        members = groups.get(group)
        if members is None:
            groups[group] = [cid]
        else:
            members.append(cid)
        dims = case.dimensions
        if dims:
            for dim, label in dims.items():
                by_label = labels.get(dim)
                if by_label is None:
                    by_label = labels[dim] = {}
                members = by_label.get(label)
                if members is None:  # a new name=value: its list, shared with the index
                    members = by_label[label] = dimensions[f"{dim}={label}"] = []
                members.append(cid)
    out.usage = UsageSums(
        input_tokens=int(tokens_in) if n_in else None,
        output_tokens=int(tokens_out) if n_out else None,
        cost_usd=math.fsum(costs) if costs else None,
        duration_s=duration,
        trials=n_trials,
        recorded=n_usages > 0,
    )
    return out
