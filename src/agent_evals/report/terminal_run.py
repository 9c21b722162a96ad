"""Terminal summary of one run record: a table per suite and group, then the failures with notes."""

from __future__ import annotations

from collections.abc import Iterable

from agent_evals.core.percent import percent
from agent_evals.core.record import RunRecord, Suite
from agent_evals.evals.stats import CaseStats, GroupStats, case_stats, group_stats
from agent_evals.report.colour import paint
from agent_evals.report.width import TERMINAL_WIDTH, display_width, fit, wrap

NOTE_LIMIT = 200
"""Longest note or error shown per failure line."""


def _pct(value: float | None) -> str:
    return percent(value)


def _short(text: str | None, limit: int = NOTE_LIMIT) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


WIDTH = TERMINAL_WIDTH
"""Terminal width the tables and failure lines fit in (long names are cut with an ellipsis)."""
DETAIL_LINES = 3
"""Lines a failure's note or error wraps to before it is cut (tracebacks with -v are shown whole)."""


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(display_width(row[i]) for row in rows) for i in range(len(rows[0]))]
    overflow = 2 + sum(widths) + 2 * (len(widths) - 1) - WIDTH
    if overflow > 0:
        widths[0] = max(12, widths[0] - overflow)
    lines = []
    for row in rows:
        name = fit(row[0], widths[0])
        cells = [name + " " * (widths[0] - display_width(name))] + [
            cell.rjust(widths[i]) for i, cell in enumerate(row) if i
        ]
        lines.append("  " + "  ".join(cells).rstrip())
    return lines


def _row(name: str, stats: GroupStats, with_k: bool, with_numeric: bool) -> list[str]:
    row = [name, str(stats.cases), str(stats.passed), str(stats.failed), str(stats.errored)]
    if with_numeric:
        row.append(str(stats.numeric))
    row.append(_pct(stats.pass_rate))
    if with_k:
        row += [_pct(stats.pass_at_k), _pct(stats.pass_hat_k)]
    return row


def _suite_lines(suite: Suite, stats: dict[int, CaseStats]) -> list[str]:
    groups: dict[str, list[CaseStats]] = {}
    for case in suite.cases:
        groups.setdefault(case.group, []).append(stats[id(case)])
    total = group_stats(s for cases in groups.values() for s in cases)
    with_k = total.k > 1
    with_numeric = total.numeric > 0
    header = ["group", "cases", "passed", "failed", "errors"]
    if with_numeric:
        header.append("numeric")
    header.append("pass rate")
    if with_k:
        header += [f"pass@{total.k}", f"pass^{total.k}"]
    rows = [header]
    rows += [_row(name, group_stats(cases), with_k, with_numeric) for name, cases in groups.items()]
    if len(groups) > 1:
        rows.append(_row("(all)", total, with_k, with_numeric))
    counts = sorted({s.trials for cases in groups.values() for s in cases})
    low = counts[0] if counts else total.k
    trials = f", {total.k} trials per case" if low == total.k else f", {low}-{total.k} trials per case"
    lines = [fit(f"{suite.id} ({suite.kind}{trials if with_k else ''})", WIDTH), *_table(rows)]
    if with_k and low < total.k:  # say plainly which cases pass@k/pass^k cover
        lines.append(f"  pass@{total.k} and pass^{total.k} cover only the cases with {total.k} valid trials")
    return lines


def _failure_lines(
    suites: Iterable[Suite], stats: dict[int, CaseStats], verbose: bool, limit: int, color: bool = False
) -> list[str]:
    lines: list[str] = []
    count = 0
    hidden_tracebacks = False
    for suite in suites:
        for case in suite.cases:
            counts = stats[id(case)]
            outcome = counts.outcome
            if outcome not in ("failed", "errored"):
                continue
            count += 1
            if count > limit:
                continue
            where = f" ({counts.passes}/{counts.valid} trials passed)" if counts.trials > 1 else ""
            label = paint("ERROR", "error", color) if outcome == "errored" else paint("FAIL", "fail", color)
            word = "ERROR" if outcome == "errored" else "FAIL"
            name = fit(case.id, WIDTH - 3 - len(word) - len(where))
            lines.append(f"  {label} {name}{where}")
            shown: set[str] = set()
            for trial in case.trials:
                if trial.error is not None:
                    detail = f"error: {_short(trial.error)}"
                    if detail not in shown:
                        shown.add(detail)
                        lines += wrap(detail, WIDTH, indent="      ", max_lines=DETAIL_LINES)
                        if verbose and trial.traceback:
                            lines += [f"        {line}" for line in trial.traceback.splitlines()]
                        hidden_tracebacks = hidden_tracebacks or (not verbose and bool(trial.traceback))
                    continue
                for key, score in trial.scores.items():
                    if score.passed is False:
                        note = _short(score.notes or score.error) or "failed"
                        detail = f"{key}: {note}"
                        if detail not in shown:
                            shown.add(detail)
                            lines += wrap(detail, WIDTH, indent="      ", max_lines=DETAIL_LINES)
    if not count:
        return []
    more = f" (showing {limit})" if count > limit else ""
    hint = " (use -v for tracebacks)" if hidden_tracebacks else ""
    return [f"Failures: {count}{more}{hint}", *lines]


def render_run_summary(
    record: RunRecord, *, verbose: bool = False, max_failures: int = 50, color: bool = False
) -> str:
    """Render the summary: per suite a table by group (dataset or capability), the failures with
    their notes (tracebacks too when ``verbose``), and one closing line with the run's totals.

    ``color`` marks FAIL and ERROR (and the closing counts) with ANSI colours."""
    stats = {id(case): case_stats(case) for suite in record.suites for case in suite.cases}
    lines: list[str] = []
    for suite in record.suites:
        lines += _suite_lines(suite, stats)
        lines.append("")
    lines += _failure_lines(record.suites, stats, verbose, max_failures, color)
    total = group_stats(stats.values())
    parts = [
        f"{total.cases} cases",
        f"{total.passed} passed",
        paint(f"{total.failed} failed", "fail", color and total.failed > 0),
        paint(f"{total.errored} errored", "error", color and total.errored > 0),
    ]
    if total.numeric:
        parts.append(f"{total.numeric} numeric-only (not in the pass rate)")
    trials = [t for suite in record.suites for case in suite.cases for t in case.trials]
    errored = sum(1 for t in trials if t.error is not None)
    share = f"; {errored} of {len(trials)} trials errored ({_pct(errored / len(trials))})" if errored else ""
    state = "" if record.run.complete else " (interrupted: partial results)"
    lines.append(f"Run: {', '.join(parts)}{share}; pass rate {_pct(total.pass_rate)}{state}")
    return "\n".join(lines).strip("\n") + "\n"


def run_pass_rate(record: RunRecord) -> float | None:
    """The run's pass rate: mean per-case pass fraction over every suite (None when nothing counts)."""
    return group_stats(case for suite in record.suites for case in suite.cases).pass_rate
