"""Terminal summary of one run record: a table per suite and group, then the failures with notes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from agent_evals.core.percent import percent
from agent_evals.record.case_stats import CaseStats, GroupStats, group_stats
from agent_evals.report.colour import paint
from agent_evals.report.escape import clean_text, strip_controls, terminal_text
from agent_evals.report.evidence import evidence
from agent_evals.report.filters import pluralize
from agent_evals.report.run_digest import RunDigest, SuiteDigest
from agent_evals.report.usage_text import reruns_clauses
from agent_evals.report.width import TERMINAL_WIDTH, display_width, fit, wrap

if TYPE_CHECKING:
    from agent_evals.record.model import RunRecord

NOTE_LIMIT = 200
"""Longest note or error shown per failure line."""
EVIDENCE_CHARS = 80
"""Longest expected or actual value shown per failure line."""


def _pct(value: float | None) -> str:
    return percent(value)


def _short(text: str | None, limit: int = NOTE_LIMIT) -> str:
    flat = " ".join(terminal_text(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _evidence_text(text: str) -> str:
    return _short(text, EVIDENCE_CHARS)


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


def _suite_lines(suite: SuiteDigest) -> list[str]:
    groups: dict[str, list[CaseStats]] = {}
    for _, group, stats in suite.ordered():
        groups.setdefault(group, []).append(stats)
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
    rows += [
        _row(terminal_text(name), group_stats(cases), with_k, with_numeric) for name, cases in groups.items()
    ]
    if len(groups) > 1:
        rows.append(_row("(all)", total, with_k, with_numeric))
    counts = sorted({s.trials for cases in groups.values() for s in cases})
    low = counts[0] if counts else total.k
    trials = f", {total.k} trials per case" if low == total.k else f", {low}-{total.k} trials per case"
    lines = [fit(f"{terminal_text(suite.id)} ({suite.kind}{trials if with_k else ''})", WIDTH), *_table(rows)]
    if with_k and low < total.k:  # say plainly which cases pass@k/pass^k cover
        lines.append(f"  pass@{total.k} and pass^{total.k} cover only the cases with {total.k} valid trials")
    return lines


def _failure_lines(digest: RunDigest, verbose: bool, color: bool = False) -> list[str]:
    lines: list[str] = []
    hidden_tracebacks = False
    for failure in digest.failures():
        counts = failure.stats
        where = f" ({counts.passes}/{counts.valid} trials passed)" if counts.trials > 1 else ""
        label = (
            paint("ERROR", "error", color) if counts.outcome == "errored" else paint("FAIL", "fail", color)
        )
        word = "ERROR" if counts.outcome == "errored" else "FAIL"
        name = fit(terminal_text(failure.case_id), WIDTH - 3 - len(word) - len(where))
        lines.append(f"  {label} {name}{where}")
        shown: set[str] = set()
        for scorer, text, trace, expected, actual in failure.details:
            detail = (
                f"error: {_short(text)}"
                if scorer is None
                else evidence(_short(scorer), text or None, expected, actual, _short, _evidence_text)
            )
            if detail in shown:
                continue
            shown.add(detail)
            lines += wrap(detail, WIDTH, indent="      ", max_lines=DETAIL_LINES)
            if verbose and trace:
                lines += [f"        {strip_controls(clean_text(line))}" for line in trace.splitlines()]
            hidden_tracebacks = hidden_tracebacks or (not verbose and bool(trace))
    count = digest.failure_count
    if not count:
        return []
    limit = digest.max_failures
    more = f" (showing {limit})" if count > limit else ""
    hint = " (use -v for tracebacks)" if hidden_tracebacks else ""
    return [f"Failures: {count}{more}{hint}", *lines]


def _reruns(digest: RunDigest) -> str:
    """What ran again or was not run live: trials retried by ``--retry-errors``, calls the cache replayed."""
    return "".join(
        f"; {clause}" for clause in reruns_clauses(digest.retried, digest.retries, digest.replayed)
    )


def render_run_summary(
    record: RunRecord, *, verbose: bool = False, max_failures: int = 50, color: bool = False
) -> str:
    """Render the summary of a whole record (see :func:`render_digest`)."""
    digest = RunDigest.of_record(record, max_failures)
    return render_digest(
        digest, range(len(record.suites)), complete=record.run.complete, verbose=verbose, color=color
    )


def render_digest(
    digest: RunDigest, suites: Iterable[int], *, complete: bool, verbose: bool = False, color: bool = False
) -> str:
    """Render the summary: per suite (``suites``: the record's, in order) a table by group (dataset or
    capability), the failures with their notes (tracebacks too when ``verbose``), and one closing line
    with the run's totals. ``color`` marks FAIL and ERROR (and the closing counts) with ANSI colours."""
    lines: list[str] = []
    everything: list[CaseStats] = []
    for suite in digest.ordered_suites(suites):
        lines += _suite_lines(suite)
        lines.append("")
        everything += suite.all_stats()
    lines += _failure_lines(digest, verbose, color)
    total = group_stats(everything)
    parts = [
        pluralize(total.cases, "case"),
        f"{total.passed} passed",
        paint(f"{total.failed} failed", "fail", color and total.failed > 0),
        paint(f"{total.errored} errored", "error", color and total.errored > 0),
    ]
    if total.numeric:
        parts.append(f"{total.numeric} numeric-only (not in the pass rate)")
    errored, trials = total.error_trials, total.trials
    share = f"; {errored} of {trials} trials errored ({_pct(errored / trials)})" if errored else ""
    state = "" if complete else " (interrupted: partial results)"
    lines.append(f"Run: {', '.join(parts)}{share}; pass rate {_pct(total.pass_rate)}{_reruns(digest)}{state}")
    return "\n".join(lines).strip("\n") + "\n"


def run_pass_rate(record: RunRecord) -> float | None:
    """The run's pass rate: mean per-case pass fraction over every suite (None when nothing counts)."""
    return group_stats(case for suite in record.suites for case in suite.cases).pass_rate
