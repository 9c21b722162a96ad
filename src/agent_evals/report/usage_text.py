"""The usage lines of the terminal report (each suite's usage checks, the groups and cases that rose) and what ran again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_evals.report.filters import per_trial, pvalue, rise, usage_amount, usage_rows

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_evals.gate.model import Comparison


def usage_lines(comparison: Comparison, safe: Callable[[object, int], str]) -> list[str]:
    """One line per usage check (the mean per trial over the paired cases), then its groups and top
    cases; ``safe`` makes untrusted text (ids) printable. A check or group that measured nothing but
    zeros on both sides has no line."""
    lines: list[str] = []
    for suite in comparison.suites:
        for check in usage_rows(suite.usage_checks):
            metric = check.metric
            limit = f"limit {check.threshold * 100:g}%" if check.threshold is not None else "not gated"
            if check.verdict == "not-measured":
                lines.append(
                    f"usage {safe(suite.suite_id, 80)} {metric}: only the candidate measured it "
                    f"({check.unmeasured_in_baseline} cases), nothing to compare"
                )
                continue
            test = f"{check.n_up} up / {check.n_down} down"
            if check.p_adjusted is not None:
                test += f", p {pvalue(check.p_adjusted)}"
            missing = (
                f", {len(check.missing_case_ids)} cases lost their usage" if check.missing_case_ids else ""
            )
            lines.append(
                f"usage {safe(suite.suite_id, 80)} {metric} per trial: "
                f"{usage_amount(per_trial(check.baseline_total, check.n_paired), metric)} -> "
                f"{usage_amount(per_trial(check.candidate_total, check.n_paired), metric)} "
                f"({rise(check.increase)}; {test}{missing}) {limit}: {check.verdict}"
            )
            groups = [g for g in suite.usage_groups if g.metric == metric]
            for group in usage_rows(groups) if len(groups) > 1 else []:
                lines.append(
                    f"  group {safe(group.group, 60)}: "
                    f"{usage_amount(per_trial(group.baseline_total, group.n_paired), metric)} -> "
                    f"{usage_amount(per_trial(group.candidate_total, group.n_paired), metric)} "
                    f"({rise(group.increase)})"
                )
            if check.top_cases:
                top = "; ".join(
                    f"{safe(t.case_id, 60)} {usage_amount(t.baseline, metric)} -> {usage_amount(t.candidate, metric)}"
                    for t in check.top_cases
                )
                lines.append(f"  rose most: {top}")
    return lines


def reruns_clauses(retried: int, attempts: int, replayed: int) -> list[str]:
    """What ran again or was not run live, as clauses of a closing line (none when nothing did):
    trials ``--retry-errors`` retried with their earlier attempts, calls the cache replayed."""
    out = []
    if retried:
        trials = "trial" if retried == 1 else "trials"
        tries = "attempt" if attempts == 1 else "attempts"
        out.append(f"{retried} {trials} retried ({attempts} earlier {tries} errored)")
    if replayed:
        calls = "model call" if replayed == 1 else "model calls"
        out.append(f"{replayed} {calls} replayed from the cache")
    return out
