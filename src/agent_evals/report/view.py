"""What a Markdown report shows at each level of detail (the size budget walks down these levels)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_evals.gate.model import CaseDiff, Comparison, GroupRow, SuiteComparison


@dataclass(frozen=True)
class Detail:
    """How much one rendering shows; level 0 is everything, higher levels drop more."""

    level: int
    """0 = full report; each step drops more."""
    passing_rows: bool
    """Show group rows whose status is ``ok``."""
    breakdowns: bool
    """Show per-scorer and per-dimension tables."""
    evidence: bool
    """Show failing scorer notes and expected vs actual for listed cases."""
    case_limit: int | None
    """Regressed cases listed (None: all)."""
    other_limit: int | None
    """Improved, errored, flaky, new and removed cases listed (None: all)."""
    text_limit: int
    """Characters kept from each untrusted value."""
    group_limit: int | None
    """Group rows listed per suite (None: all)."""
    suite_limit: int | None
    """Suite rows listed (None: all); failing and warning suites come first."""
    sections: bool = True
    """Render the collapsible sections at all (False only for the last-resort level)."""


LEVELS: tuple[Detail, ...] = (
    Detail(0, True, True, True, None, None, 300, None, None),
    Detail(1, False, False, True, 500, 200, 200, None, None),
    Detail(2, False, False, True, 200, 50, 120, 100, None),
    Detail(3, False, False, True, 50, 20, 80, 30, None),
    Detail(4, False, False, False, 10, 0, 60, 10, 100),
    Detail(5, False, False, False, 0, 0, 60, 0, 25, sections=False),
)
"""The degradation steps, tried in order until a rendering fits its budget."""


@dataclass
class Listing:
    """Some cases of one kind, as many as the level allows, and how many there are in all."""

    shown: list[CaseDiff]
    """The cases to render."""
    total: int
    """How many there are."""

    @property
    def hidden(self) -> int:
        """How many are left out."""
        return self.total - len(self.shown)


@dataclass
class SuiteView:
    """One suite as the template renders it."""

    suite: SuiteComparison
    """The suite's comparison."""
    groups: list[GroupRow]
    """Group rows to show."""
    groups_hidden: int
    """Group rows left out."""


@dataclass
class ReportView:
    """Everything the Markdown template needs beyond the comparison itself."""

    detail: Detail
    """The level of detail."""
    suites: list[SuiteView]
    """Suites to show, failing/warning first when trimmed."""
    suites_hidden: int
    """Suites left out of the table."""
    multi_suite: bool
    """More than one suite (add a suite column to case tables)."""
    compared: bool
    """At least one suite has a baseline (show baseline, delta and p columns)."""
    regressed: Listing
    """Regressed cases and, with several trials, cases whose pass fraction dropped (critical flips
    first, largest drop first)."""
    failing: Listing
    """Failing cases of suites without a baseline (single runs, first runs)."""
    improved: Listing
    """Improved cases."""
    errored: Listing
    """Cases with errored trials in the candidate."""
    flaky: Listing
    """Cases flaky in the candidate."""
    added: Listing
    """New cases."""
    removed: Listing
    """Removed cases."""
    inconclusive: list[SuiteComparison]
    """Suites whose drop was not significant, or that are too small to detect ``max_drop``."""
    trimmed: list[str] = field(default_factory=list)
    """What this level left out, for the note that points to the full report."""


_SUITE_ORDER = {"fail": 0, "warn": 1, "pass": 2}


def _take(cases: list[CaseDiff], limit: int | None) -> Listing:
    shown = cases if limit is None else cases[:limit]
    return Listing(shown=shown, total=len(cases))


def _regression_order(case: CaseDiff) -> tuple[int, float, str, str]:
    return (
        0 if case.critical_flip else 1,
        case.delta if case.delta is not None else 0.0,
        case.suite_id,
        case.case_id,
    )


def _has_errors(case: CaseDiff) -> bool:
    side = case.candidate
    return case.classification == "errored" or (side is not None and side.errors > 0)


def collect_cases(comparison: Comparison) -> dict[str, list[CaseDiff]]:
    """Every case worth listing, by section, in report order (computed once per comparison)."""
    sections: dict[str, list[CaseDiff]] = {
        "regressed": [],
        "failing": [],
        "improved": [],
        "errored": [],
        "flaky": [],
        "new": [],
        "removed": [],
    }
    for suite in comparison.suites:
        compared = suite.baseline is not None
        for case in suite.cases:
            cls = case.classification
            side = case.candidate
            listed_failing = False
            if not compared:
                # Without a baseline every case is "new": list the failing ones, not all of them.
                if side is not None and (side.pass_fraction is None or side.pass_fraction < 1):
                    sections["failing"].append(case)
                    listed_failing = True
            elif cls == "flaky" and case.delta is not None and case.delta < 0:
                # With several trials a case can drop (3/3 -> 1/3) without failing outright; such
                # drops are what a significant k > 1 regression is made of, so they are listed with it.
                sections["regressed"].append(case)
            elif cls in ("regressed", "improved", "flaky", "new", "removed"):
                sections[cls].append(case)
            elif case.critical_flip:
                sections["regressed"].append(case)
            if _has_errors(case) and not listed_failing:
                sections["errored"].append(case)
    sections["regressed"].sort(key=_regression_order)
    return sections


def build_view(comparison: Comparison, detail: Detail, cases: dict[str, list[CaseDiff]]) -> ReportView:
    """Select what ``detail`` shows of ``comparison`` (``cases`` from :func:`collect_cases`)."""
    ordered = sorted(comparison.suites, key=lambda s: _SUITE_ORDER.get(s.outcome, 3))
    limit = detail.suite_limit
    shown_suites = list(comparison.suites) if limit is None else ordered[:limit]
    trimmed: list[str] = []
    suite_views = []
    rows_hidden = 0
    for suite in shown_suites:
        rows = [g for g in suite.groups if detail.passing_rows or g.status != "ok"]
        rows_hidden += len(suite.groups) - len(rows)
        if detail.group_limit is not None and len(rows) > detail.group_limit:
            rows_hidden += len(rows) - detail.group_limit
            rows = rows[: detail.group_limit]
        suite_views.append(SuiteView(suite=suite, groups=rows, groups_hidden=len(suite.groups) - len(rows)))
    view = ReportView(
        detail=detail,
        suites=suite_views,
        suites_hidden=len(comparison.suites) - len(shown_suites),
        multi_suite=len(comparison.suites) > 1,
        compared=any(s.baseline is not None for s in comparison.suites),
        regressed=_take(cases["regressed"], detail.case_limit),
        failing=_take(cases["failing"], detail.case_limit),
        improved=_take(cases["improved"], detail.other_limit),
        errored=_take(cases["errored"], detail.other_limit),
        flaky=_take(cases["flaky"], detail.other_limit),
        added=_take(cases["new"], detail.other_limit),
        removed=_take(cases["removed"], detail.other_limit),
        inconclusive=[
            s
            for s in comparison.suites
            if s.verdict == "inconclusive" or (s.delta is not None and s.delta.mde_exceeds_max_drop)
        ],
        trimmed=trimmed,
    )
    if view.suites_hidden:
        trimmed.append(f"{view.suites_hidden} passing suites")
    if rows_hidden:
        trimmed.append(f"{rows_hidden} group rows")
    if not detail.breakdowns and any(s.scorers or s.dimensions for s in comparison.suites):
        trimmed.append("the per-scorer and per-dimension tables")
    for label, listing in (
        ("regressed", view.regressed),
        ("failing", view.failing),
        ("improved", view.improved),
        ("errored", view.errored),
        ("flaky", view.flaky),
        ("new", view.added),
        ("removed", view.removed),
    ):
        if listing.hidden:
            trimmed.append(f"{listing.hidden} {label} cases")
    if not detail.evidence and view.regressed.shown:
        trimmed.append("expected vs actual of regressed cases")
    return view
