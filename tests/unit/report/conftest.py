"""Builders of comparison objects for the renderer tests (straight from the gate's data model)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agent_evals.gate.model import (
    BaselineInfo,
    CaseDiff,
    CaseSide,
    Comparison,
    DeltaStat,
    FingerprintCheck,
    GroupRow,
    Interval,
    RateSummary,
    Reason,
    RunInfoView,
    ScorerFailure,
    SuiteComparison,
    UsageDiff,
    UsageTotals,
)
from agent_evals.gate.policy import Knobs, Policy

CASE_CLASSES = ("stable-pass", "stable-fail", "flaky", "regressed", "improved", "new", "removed", "errored")


def rate(value: float | None, cases: int = 10, errored: int = 0) -> RateSummary:
    return RateSummary(
        rate=value,
        interval=None
        if value is None
        else Interval(low=max(value - 0.1, 0), high=min(value + 0.1, 1), method="wilson"),
        cases=cases,
        cases_scored=cases,
        trials=cases,
        passed_trials=round((value or 0) * cases),
        errored_trials=errored,
        error_rate=errored / cases if cases else None,
    )


def side(passes: int, trials: int = 1, errors: int = 0) -> CaseSide:
    valid = trials - errors
    return CaseSide(
        trials=trials, passes=passes, errors=errors, pass_fraction=passes / valid if valid else None
    )


def case(
    case_id: str,
    classification: str,
    *,
    suite_id: str = "home-v1",
    group: str = "lights",
    base: CaseSide | None = None,
    cand: CaseSide | None = None,
    **fields: Any,
) -> CaseDiff:
    defaults = {
        "regressed": (side(1), side(0)),
        "improved": (side(0), side(1)),
        "stable-pass": (side(1), side(1)),
        "stable-fail": (side(0), side(0)),
        "flaky": (side(1, 3), side(2, 3)),
        "new": (None, side(1)),
        "removed": (side(1), None),
        "errored": (side(1), side(0, 1, 1)),
    }[classification]
    b = base if base is not None else defaults[0]
    c = cand if cand is not None else defaults[1]
    delta = None
    if b is not None and c is not None and b.pass_fraction is not None and c.pass_fraction is not None:
        delta = c.pass_fraction - b.pass_fraction
    return CaseDiff(
        suite_id=suite_id,
        case_id=case_id,
        group=group,
        classification=classification,  # type: ignore[arg-type]
        baseline=b,
        candidate=c,
        delta=delta,
        **fields,
    )


def failing(name: str = "state_match", **fields: Any) -> ScorerFailure:
    return ScorerFailure(name=name, **fields)


def delta_stat(value: float | None, p: float | None = None, **fields: Any) -> DeltaStat:
    return DeltaStat(
        delta=value,
        interval=None if value is None else Interval(low=value - 0.04, high=value + 0.04, method="paired-t"),
        test="mcnemar" if p is not None else "none",
        p_value=p,
        p_adjusted=p,
        n_paired=fields.pop("n_paired", 10),
        mde=fields.pop("mde", 0.04),
        **fields,
    )


def group(key: str, base: float | None, cand: float | None, status: str = "ok", **fields: Any) -> GroupRow:
    return GroupRow(
        kind="group",
        key=key,
        baseline=None if base is None else rate(base),
        candidate=None if cand is None else rate(cand),
        delta=None if base is None or cand is None else delta_stat(cand - base),
        status=status,  # type: ignore[arg-type]
        **fields,
    )


def suite(
    suite_id: str = "home-v1",
    *,
    cases: list[CaseDiff] | None = None,
    verdict: str = "passed",
    outcome: str = "pass",
    base: float | None = 0.9,
    cand: float = 0.9,
    delta: DeltaStat | None = None,
    reasons: list[Reason] | None = None,
    groups: list[GroupRow] | None = None,
    usage: UsageDiff | None = None,
    **fields: Any,
) -> SuiteComparison:
    listed = cases or []
    counts = {k: 0 for k in CASE_CLASSES}
    for c in listed:
        counts[c.classification] += 1
    n = max(len(listed), 10)
    if delta is None and base is not None:
        delta = delta_stat(cand - base, p=0.5)
    return SuiteComparison(
        suite_id=suite_id,
        kind="benchmark",
        source=f"benchmarks/{suite_id}.yaml",
        verdict=verdict,  # type: ignore[arg-type]
        outcome=outcome,  # type: ignore[arg-type]
        reasons=reasons or [],
        policy=Knobs(),
        baseline=None if base is None else rate(base, n),
        candidate=rate(cand, n),
        delta=delta,
        groups=groups or [],
        cases=listed,
        fingerprint=FingerprintCheck(baseline="abc", candidate="abc"),
        usage=usage or UsageDiff(candidate=UsageTotals()),
        counts=counts,
        **fields,
    )


def comparison(
    suites: list[SuiteComparison],
    *,
    verdict: str = "passed",
    outcome: str = "pass",
    mode: str = "compare",
    baseline: BaselineInfo | None = None,
    **fields: Any,
) -> Comparison:
    reasons = [r for s in suites for r in s.reasons]
    reasons.sort(key=lambda r: not r.blocking)
    return Comparison(
        mode=mode,  # type: ignore[arg-type]
        verdict=verdict,  # type: ignore[arg-type]
        outcome=outcome,  # type: ignore[arg-type]
        reasons=reasons,
        suites=suites,
        policy=Policy(),
        effective_policy=Knobs(),
        baseline=baseline
        or BaselineInfo(
            source="artifact", run_id="4242", sha="a" * 40, ref="main", date="2026-11-29T10:00:00Z"
        ),
        candidate=RunInfoView(run_id="4243", sha="b" * 40, ref="feature", date="2026-11-30T10:00:00Z"),
        **fields,
    )


def regression_reason(suite_id: str = "home-v1", *, blocking: bool = True) -> Reason:
    return Reason(
        kind="regression",
        message=f"{suite_id}: pass rate dropped 20.0 points (p = 0.002 < alpha 0.05)",
        suite_id=suite_id,
        blocking=blocking,
    )


class Builders:
    """The builder functions, handed to tests as one fixture."""

    rate = staticmethod(rate)
    side = staticmethod(side)
    case = staticmethod(case)
    failing = staticmethod(failing)
    delta_stat = staticmethod(delta_stat)
    group = staticmethod(group)
    suite = staticmethod(suite)
    comparison = staticmethod(comparison)
    regression_reason = staticmethod(regression_reason)
    usage_totals: Callable[..., UsageTotals] = UsageTotals
    usage_diff: Callable[..., UsageDiff] = UsageDiff
    reason: Callable[..., Reason] = Reason
    baseline_info: Callable[..., BaselineInfo] = BaselineInfo


@pytest.fixture
def build() -> type[Builders]:
    return Builders
