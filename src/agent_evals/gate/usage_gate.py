"""Gating on usage: tokens, cost and latency per trial, paired per case, with an exact sign test.

Per paired case and side, the value is the mean per valid (non-errored) trial that measured it.
A suite's change is ``sum(candidate) / sum(baseline) - 1`` over the cases measured on both sides.
It counts only when it is beyond the policy's threshold **and** the one-sided exact sign test on the
per-case differences says the rise is significant (Holm over every usage check of the comparison, a
family of its own so the pass-rate tests keep their power). The sign test is exact, deterministic
and assumes nothing about the spread of token counts, which is heavy-tailed; it needs at least five
cases that moved, all upwards, to reach 5%. A case the baseline measured and the candidate did not
fails a gated check: a candidate that stops reporting usage must not pass by hiding its usage.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Sequence
from operator import attrgetter, itemgetter, lt, sub
from typing import TYPE_CHECKING, cast

from agent_evals.gate.model import CaseUsageChange, GroupUsage, Reason, UsageCheck, UsageMetric
from agent_evals.stats.exact import binom_sf, holm

if TYPE_CHECKING:
    from agent_evals.cost.prices import PriceTable
    from agent_evals.gate.model import Outcome, SuiteComparison, Verdict
    from agent_evals.gate.policy import Knobs
    from agent_evals.record.views import CaseView, SuiteView, Use

METRICS: tuple[UsageMetric, ...] = ("tokens", "cost", "latency")
KNOB: dict[UsageMetric, str] = {
    "tokens": "max_tokens_increase",
    "cost": "max_cost_increase",
    "latency": "max_latency_increase",
}
TOP_CASES = 5
"""Largest per-case increases a check lists."""
MISSING_LISTED = 5
"""Cases without usage named in a reason (the rest are counted)."""


def priced(use: Use, table: PriceTable, unpriced: set[str] | None) -> Use:
    """A case side's usage (``CaseView.use``, from the summary walk) with the cost of its trials that
    have a per-model breakdown worked out with ``table`` (each falls back to the cost it recorded, on
    the candidate side only when ``table.recorded``); ``unpriced`` (the candidate side's) collects the
    models that have tokens but no price."""
    if use[4] is None:
        return use
    cost, n_cost, breakdowns = use[4]
    for models, recorded in breakdowns:
        value = table.cost(models)
        if value is None:
            if unpriced is not None:
                unpriced.update(table.unpriced(models))
            value = recorded if unpriced is None or table.recorded else None
        if value is not None:
            cost += value
            n_cost += 1
    return (use[0], use[1], cost / n_cost if n_cost else None, use[3], None)


def relative(base: float, cand: float) -> float | None:
    """``cand / base - 1``; inf for a rise from 0; None when both are 0."""
    if base > 0:
        return cand / base - 1
    return math.inf if cand > 0 else None


def check_suite(
    base: SuiteView, cand: SuiteView, knobs: Knobs, table: PriceTable
) -> tuple[list[UsageCheck], list[GroupUsage]]:
    """The suite's usage checks (p-values raw; :func:`settle` adjusts and decides) and group rows."""
    checks: list[UsageCheck] = []
    groups: list[GroupUsage] = []
    latency = knobs.max_latency_increase is not None
    # tokens and cost only where a side recorded usage; latency only when gated (it shifts with the runner)
    recorded = base.usage.recorded or cand.usage.recorded
    metrics = [m for m in METRICS if (m == "latency" and latency) or (m != "latency" and recorded)]
    if not metrics:
        return checks, groups
    unpriced: set[str] = set()
    # per paired case with a valid trial on both sides: candidate view, baseline use, candidate use
    views: list[CaseView] = []
    b_uses: list[Use] = []
    c_uses: list[Use] = []
    base_case = base.cases.get
    for cid, c in cand.cases.items():
        b = base_case(cid)
        if b is None:
            continue
        b_use, c_use = b.use, c.use
        if b_use[4] is not None:
            b_use = priced(b_use, table, None)
        if c_use[4] is not None:
            c_use = priced(c_use, table, unpriced)
        if b_use[0] and c_use[0]:
            views.append(c)
            b_uses.append(b_use)
            c_uses.append(c_use)
    for metric in metrics:
        at = METRICS.index(metric) + 1  # the metric's place in a Use
        b_all = _measures(map(itemgetter(at), b_uses))
        c_all = _measures(map(itemgetter(at), c_uses))
        if None in b_all or None in c_all:  # some case measured it on one side only, or on neither
            m_views, vbs, vcs, missing, only_cand = _measured(views, b_all, c_all)
        else:
            vbs, vcs = cast("list[float]", b_all), cast("list[float]", c_all)  # no None: checked
            m_views, missing, only_cand = views, [], 0
        threshold = getattr(knobs, KNOB[metric])
        if not vbs and not missing:
            if only_cand:
                checks.append(
                    UsageCheck(
                        metric=metric,
                        threshold=threshold,
                        verdict="not-measured",
                        unmeasured_in_baseline=only_cand,
                    )
                )
            continue
        total_b, total_c = math.fsum(vbs), math.fsum(vcs)
        # the largest rises first; among equal rises, the earlier case
        rises = [(d, i) for i, d in enumerate(map(sub, vbs, vcs)) if d < 0]
        up = len(rises)
        down = sum(map(lt, vcs, vbs))
        top = [i for _, i in heapq.nsmallest(TOP_CASES, rises)]
        checks.append(
            UsageCheck(
                metric=metric,
                threshold=threshold,
                verdict="passed",
                n_paired=len(vbs),
                baseline_total=total_b,
                candidate_total=total_c,
                increase=relative(total_b, total_c) if vbs else None,
                n_up=up,
                n_down=down,
                p_value=binom_sf(up, up + down) if up + down else 1.0,
                missing_case_ids=missing,
                unmeasured_in_baseline=only_cand,
                unpriced_models=sorted(unpriced) if metric == "cost" else [],
                top_cases=[
                    CaseUsageChange(case_id=m_views[i].id, baseline=vbs[i], candidate=vcs[i]) for i in top
                ],
            )
        )
        groups.extend(_group_rows(metric, _positions_by_group(m_views), vbs, vcs))
    return checks, groups


def _measures(values: Iterable[float | None]) -> list[float | None]:
    """Per-case values of a metric, None for one that is no measurement: NaN, infinite or negative.
    A NaN compares false with every limit, so a candidate that recorded one passed whatever it spent;
    as not measured, it fails a gated check like a candidate that stopped recording usage."""
    return [v if v is None or 0.0 <= v < math.inf else None for v in values]


def _measured(
    views: list[CaseView], b_all: list[float | None], c_all: list[float | None]
) -> tuple[list[CaseView], list[float], list[float], list[str], int]:
    """The cases measured on both sides (views, baseline and candidate values), the ids of those the
    baseline measured and the candidate did not, and how many only the candidate measured."""
    m_views: list[CaseView] = []
    vbs: list[float] = []
    vcs: list[float] = []
    missing: list[str] = []
    only_cand = 0
    for view, vb, vc in zip(views, b_all, c_all, strict=True):
        if vb is not None and vc is not None:
            m_views.append(view)
            vbs.append(vb)
            vcs.append(vc)
        elif vb is not None:
            missing.append(view.id)
        elif vc is not None:
            only_cand += 1
    return m_views, vbs, vcs, missing, only_cand


def _positions_by_group(views: list[CaseView]) -> dict[str, list[int]]:
    """Group -> the positions of its cases in ``views``, groups in name order."""
    positions: dict[str, list[int]] = {}
    for i, group in enumerate(map(attrgetter("group"), views)):
        found = positions.get(group)
        if found is None:
            positions[group] = [i]
        else:
            found.append(i)
    return dict(sorted(positions.items()))


def _group_rows(
    metric: UsageMetric, positions: dict[str, list[int]], vbs: list[float], vcs: list[float]
) -> list[GroupUsage]:
    """Per group, the sums over its paired measured cases (``positions`` into ``vbs``/``vcs``)."""
    rows = []
    for group, at in positions.items():
        gb, gc = math.fsum(map(vbs.__getitem__, at)), math.fsum(map(vcs.__getitem__, at))
        rows.append(
            GroupUsage(
                group=group,
                metric=metric,
                n_paired=len(at),
                baseline_total=gb,
                candidate_total=gc,
                increase=relative(gb, gc),
            )
        )
    return rows


def settle(suites: Sequence[SuiteComparison]) -> None:
    """Holm-adjust every gated usage check of the comparison (one family) and set each verdict."""
    gated = [
        (check, suite.policy)
        for suite in suites
        for check in suite.usage_checks
        if check.threshold is not None and check.p_value is not None
    ]
    for (check, knobs), p_adj in zip(gated, holm([c.p_value or 1.0 for c, _ in gated]), strict=True):
        check.p_adjusted = p_adj
        check.significant = p_adj < knobs.alpha
    for suite in suites:
        for check in suite.usage_checks:
            if check.threshold is None or check.verdict == "not-measured":
                continue
            beyond = check.increase is not None and check.increase > check.threshold
            if check.missing_case_ids or (beyond and check.significant):
                check.verdict = "failed"
            elif beyond:
                check.verdict = "inconclusive"


_NAMES: dict[UsageMetric, str] = {"tokens": "tokens", "cost": "cost", "latency": "latency"}


def _amount(metric: UsageMetric, value: float) -> str:
    if metric == "tokens":
        return f"{value:,.0f} tokens"
    if metric == "cost":
        return f"${value:.4g}"
    return f"{value:.2f} s"


def _rise(value: float | None) -> str:
    if value is None:
        return "no change"
    if math.isinf(value):
        return "a rise from zero"
    return f"{value * 100:+.1f}%"


def decisions(suite: SuiteComparison) -> list[tuple[Verdict, Outcome, Reason]]:
    """The verdict, outcome and reason of each usage check of ``suite`` that did not pass."""
    out: list[tuple[Verdict, Outcome, Reason]] = []
    sid, knobs = suite.suite_id, suite.policy
    for check in suite.usage_checks:
        metric, knob = check.metric, KNOB[check.metric]
        if check.threshold is None or check.verdict in ("passed", "not-measured"):
            continue
        limit = f"{knob} {check.threshold * 100:g}%"
        if check.missing_case_ids:
            shown = ", ".join(check.missing_case_ids[:MISSING_LISTED])
            more = len(check.missing_case_ids) - MISSING_LISTED
            extra = f" and {more} more" if more > 0 else ""
            why = (
                f"; no price for {', '.join(check.unpriced_models)}: add it under prices: in agent-evals.yaml"
                if metric == "cost" and check.unpriced_models
                else ""
            )
            message = (
                f"Suite {sid}: the candidate recorded no {_NAMES[metric]} (or none that is a finite, "
                f"non-negative number) for {len(check.missing_case_ids)} "
                f"paired case(s) the baseline measured ({shown}{extra}){why}. A run that stops reporting "
                f"usage could hide any increase, so {limit} cannot pass; restore the usage capture "
                f"(docs/cost.md) or set {knob}: off."
            )
            reason = Reason(kind="usage-missing", message=message, suite_id=sid, blocking=True)
            out.append(("failed", "fail", reason))
            continue
        n = max(check.n_paired, 1)
        per_trial = (
            f"{_amount(metric, (check.baseline_total or 0.0) / n)} -> "
            f"{_amount(metric, (check.candidate_total or 0.0) / n)} "
            f"per trial, the mean over {check.n_paired} paired case(s)"
        )
        test = f"sign test {check.n_up} up / {check.n_down} down, Holm p = {check.p_adjusted or 1.0:.3g}"
        if check.verdict == "failed":
            message = f"Suite {sid}: {_NAMES[metric]} rose {_rise(check.increase)} ({per_trial}; {test}), beyond {limit}."
            out.append(("failed", "fail", Reason(kind="usage", message=message, suite_id=sid, blocking=True)))
        else:
            action = knobs.on_inconclusive
            message = (
                f"Suite {sid}: {_NAMES[metric]} rose {_rise(check.increase)} ({per_trial}), beyond {limit}, "
                f"but not significantly ({test}); more cases would settle it."
            )
            outcome: Outcome = "fail" if action == "fail" else "warn" if action == "warn" else "pass"
            reason = Reason(kind="usage", message=message, suite_id=sid, blocking=action == "fail")
            out.append(("inconclusive", outcome, reason))
    return out
