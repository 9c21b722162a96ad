"""The one-line verdict every report starts with, and the overall figures derived from a comparison."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from agent_evals.report.escape import clean_text, strip_controls, truncate
from agent_evals.report.filters import outcome_icon, pct, pluralize

if TYPE_CHECKING:
    from agent_evals.gate.model import Comparison, SuiteComparison

_GATE_WORDS = {
    "fail": "gate failed",
    "warn": "gate passed with warnings",
    "pass": "gate passed",
    "incomplete": "run incomplete: gate not passed",
}

# Reason kinds, besides significant regressions, that the headline names (in this order).
_EXTRA_REASONS = (
    ("critical-case", "critical case flipped in {suites}"),
    ("replaced", "every case renamed or replaced in {suites}"),
    ("renamed", "renamed or replaced cases dropped in {suites}"),
    ("fewer-trials", "fewer trials in {suites}"),
    ("floor", "below the pass-rate floor in {suites}"),
    ("error-budget", "over the error budget in {suites}"),
    ("usage", "usage rose in {suites}"),
    ("usage-missing", "usage not recorded in {suites}"),
    ("redefined", "cases redefined in {suites}"),
    ("inconclusive", "inconclusive drop in {suites}"),
    ("missing-baseline", "no baseline for {suites}"),
    ("removed-suite", "{suites} removed"),
    ("removed-cases", "cases removed"),
    ("incomplete-run", "incomplete run"),
    ("ungraded", "no graded trial in {suites}"),
    ("lost-grade", "cases lost their grade in {suites}"),
    ("fingerprint", "runs not alike in {suites}"),
)


def suites_with(comparison: Comparison, kind: str) -> list[SuiteComparison]:
    """Suites carrying at least one reason of ``kind``."""
    return [s for s in comparison.suites if any(r.kind == kind for r in s.reasons)]


def regressed_cases_in(suite: SuiteComparison) -> int:
    """Cases behind a suite's regression: the ``regressed`` ones, or the paired cases that dropped
    when trials make the drop partial (k > 1, no case flipped outright)."""
    regressed = suite.counts.get("regressed", 0)
    if regressed == 0 and suite.delta is not None:
        return suite.delta.n_down
    return regressed


def overall_rate(comparison: Comparison, side: str) -> float | None:
    """Pass rate across every suite of one side (``baseline``/``candidate``), macro over scored cases."""
    total = 0.0
    cases = 0
    for suite in comparison.suites:
        summary = suite.baseline if side == "baseline" else suite.candidate
        if summary is None or summary.rate is None or summary.cases_scored == 0:
            continue
        total += summary.rate * summary.cases_scored
        cases += summary.cases_scored
    return total / cases if cases else None


def total_cases(comparison: Comparison) -> int:
    """Cases in the candidate run, across suites."""
    return sum(s.candidate.cases for s in comparison.suites)


NAMED = 3
"""Removed case and suite ids the headline names (the rest are counted)."""

ID_CHARS = 60
"""Characters kept of each id the headline names."""

_SPACES = re.compile(r"\s+")


def plain_id(text: str) -> str:
    """An id as plain text on one line: no control character, cut to ``ID_CHARS``."""
    return _SPACES.sub(" ", strip_controls(clean_text(truncate(text, ID_CHARS))))


def _named(ids: list[str], name: Callable[[str], str]) -> str:
    shown = ", ".join(name(i) for i in ids[:NAMED])
    return shown + (f" and {len(ids) - NAMED:,} more" if len(ids) > NAMED else "")


def _changes(comparison: Comparison, name: Callable[[str], str]) -> dict[str, str]:
    """The phrases of what changed in what is measured, naming the first ids (through ``name``)."""
    out = {}
    removed = [
        f"{s.suite_id}: {cid}" for s in comparison.suites for cid in s.removed_case_ids if not s.replaced
    ]
    if removed:
        out["removed-cases"] = f"{pluralize(len(removed), 'case')} removed: {_named(removed, name)}"
    if comparison.removed_suite_ids:
        ids = comparison.removed_suite_ids
        out["removed-suite"] = f"{pluralize(len(ids), 'suite')} removed: {_named(ids, name)}"
    changes = sorted({s.trials_change for s in comparison.suites if s.trials_change and s.fewer_trials})
    if changes and any(r.kind == "fewer-trials" for r in comparison.reasons):
        n = len([s for s in comparison.suites if s.fewer_trials])
        out["fewer-trials"] = f"fewer trials in {pluralize(n, 'suite')} ({', '.join(changes)})"
    return out


def headline(comparison: Comparison, *, icon: bool = True, name: Callable[[str], str] = plain_id) -> str:
    """The verdict line: icon, ``N regressions in M suites``, ``N cases regressed; not enough evidence``
    (cases flipped but no suite has the evidence), or ``no regression``; other reasons; outcome.

    Built from counts, and the first few removed case and suite ids, each passed through ``name``: the
    default keeps them plain text on one line (for the terminal, JSON and autoescaped HTML); Markdown
    passes its escaping. ``icon=False`` leaves out the leading emoji (for renderers that show the
    outcome otherwise).
    """
    mark = outcome_icon(comparison.outcome) + " " if icon else ""
    gate = _GATE_WORDS.get(comparison.outcome, comparison.outcome)
    reused = len(comparison.reused_suites)
    if comparison.verdict == "reused" and not comparison.suites:
        # nothing ran: no evidence either way, and the line must not read as a pass
        mark = "♻️ " if icon else ""
        return (
            f"{mark}agent-evals: nothing ran: every suite reused from the baseline ({reused}; inputs "
            f"unchanged), no new evidence · gate not evaluated (exit {comparison.exit_code})"
        )
    if comparison.outcome == "incomplete" and comparison.candidate.incomplete_reason == "budget":
        gate = "budget exhausted: gate not passed"
    if comparison.mode == "single_run":
        rate = pct(overall_rate(comparison, "candidate"))
        cases = pluralize(total_cases(comparison), "case")
        suites = pluralize(len(comparison.suites), "suite")
        return (
            f"{mark}agent-evals: {rate} pass rate over {cases} in {suites} (single run, no baseline) · {gate}"
        )
    regressed = suites_with(comparison, "regression")
    renamed = {r.suite_id for r in comparison.reasons if r.kind == "renamed" and r.blocking}
    unsettled = {r.suite_id for r in comparison.reasons if r.kind == "renamed" and not r.blocking}
    if regressed:
        n = sum(regressed_cases_in(s) for s in regressed)
        main = f"{pluralize(max(n, 1), 'regression')} in {pluralize(len(regressed), 'suite')}"
    elif comparison.regressed_case_count:
        # cases went from passing to failing, but no suite has the evidence to call it a regression
        n = comparison.regressed_case_count
        tolerated = all(
            s.delta is None or s.delta.delta is None or s.delta.delta > -s.policy.max_drop
            for s in comparison.suites
            if s.counts.get("regressed")
        )
        why = (
            "within the tolerated drop"
            if tolerated
            else f"not enough evidence at alpha {comparison.effective_policy.alpha:g}"
        )
        main = f"{pluralize(n, 'case')} regressed; {why}"
    elif comparison.replaced:
        main = "every case renamed or replaced, nothing in common with the baseline"
    elif renamed:
        main = f"pass rate dropped over renamed or replaced cases in {pluralize(len(renamed), 'suite')}"
    elif unsettled:
        main = (
            f"pass rate dropped over renamed or replaced cases in {pluralize(len(unsettled), 'suite')}; "
            f"not enough evidence at alpha {comparison.effective_policy.alpha:g}"
        )
    elif comparison.baseline.unreadable and comparison.mode == "compare":
        main = "baseline unreadable, nothing compared"
    else:
        main = "no regression"
    extras = []
    changes = _changes(comparison, name)
    for kind, phrase in _EXTRA_REASONS:
        if kind in changes:
            extras.append(changes[kind])
            continue
        if (kind in ("replaced", "removed-cases") and comparison.replaced) or (
            kind == "renamed" and main.startswith("pass rate dropped over renamed")
        ):
            continue  # the main phrase says it
        ids = {s.suite_id for s in suites_with(comparison, kind)}
        ids |= {r.suite_id for r in comparison.reasons if r.kind == kind and r.suite_id is not None}
        if ids or any(r.kind == kind for r in comparison.reasons):
            extras.append(phrase.format(suites=pluralize(max(len(ids), 1), "suite")))
    noted = sum(1 for s in comparison.suites if s.fingerprint.info)
    if noted:  # a note, not a reason: named here too, so no shortened report can drop it
        extras.append(f"model recorded on one side only in {pluralize(noted, 'suite')}")
    if reused:
        extras.append(f"{pluralize(reused, 'suite')} reused, not re-run")
    tail = f" ({'; '.join(extras)})" if extras else ""
    return f"{mark}agent-evals: {main}{tail} · {gate}"
