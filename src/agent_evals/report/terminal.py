"""Plain-text rendering of a comparison for the terminal (ANSI colours only when asked)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from agent_evals.core.redact import Redactor
from agent_evals.gate.policy import TEST_ASSUMPTIONS
from agent_evals.report.escape import clean_text, truncate
from agent_evals.report.evidence import evidence as evidence_line
from agent_evals.report.filters import (
    delta,
    display_path,
    interval,
    knob_changes,
    number,
    pct,
    points,
    pvalue,
    short_sha,
)
from agent_evals.report.headline import ID_CHARS, headline
from agent_evals.report.usage_text import reruns_clauses, usage_lines
from agent_evals.report.view import collect_cases
from agent_evals.report.width import TERMINAL_WIDTH, display_width, fit, fit_middle, wrap

if TYPE_CHECKING:
    from agent_evals.gate.model import CaseDiff, CaseSide, Comparison, RateSummary

LIST_LIMIT = 20
"""Cases listed per section before ``...and N more``."""
EVIDENCE_LINES = 4
"""Lines of evidence (failing scorer, notes, expected vs actual) shown under a listed case."""

_COLORS = {"fail": "31", "warn": "33", "pass": "32", "dim": "2", "bold": "1"}
# Escape sequences and other controls in agent output could rewrite the user's terminal.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_NEWLINES = re.compile("\r\n|[\n\r\u2028\u2029]")


class _Text:
    def __init__(self, redactor: Redactor, color: bool) -> None:
        self.redactor = redactor
        self.color = color

    def safe(self, value: object, limit: int = 120) -> str:
        """Untrusted text made printable on one line."""
        if value is None:
            return ""
        text = self.redactor(clean_text(value if isinstance(value, str) else str(value)))
        text = _NEWLINES.sub(" ⏎ ", truncate(text, limit)).replace("\t", " ")
        return _CONTROLS.sub("", text)

    def paint(self, text: str, style: str) -> str:
        """``text`` in an ANSI style when colours are on."""
        if not self.color or style not in _COLORS:
            return text
        return f"\x1b[{_COLORS[style]}m{text}\x1b[0m"


def _rate(summary: RateSummary | None) -> str:
    return pct(summary.rate) if summary is not None else "–"


def _frac(side: CaseSide | None) -> str:
    if side is None:
        return "–"
    return f"{side.passes}/{side.trials - side.errors}" + (f"+{side.errors}err" if side.errors else "")


def _table(rows: list[list[str]], width: int, left: tuple[int, ...] = (0,)) -> list[str]:
    """Columns two spaces apart, the first cut (``…``) so each line fits ``width`` columns."""
    widths = [max(display_width(row[i]) for row in rows) for i in range(len(rows[0]))]
    overflow = sum(widths) + 2 * (len(widths) - 1) - width
    if overflow > 0:
        widths[0] = max(8, widths[0] - overflow)
    out = []
    for row in rows:
        cells = []
        for i, (cell, w) in enumerate(zip(row, widths, strict=True)):
            text = fit_middle(cell, w) if i == 0 else cell
            pad = " " * max(w - display_width(text), 0)
            cells.append(text + pad if i in left else pad + text)
        out.append(fit("  ".join(cells).rstrip(), width))
    return out


def _case_lines(t: _Text, case: CaseDiff, multi_suite: bool, evidence: bool, width: int) -> list[str]:
    where = f"{t.safe(case.suite_id, 200)} :: " if multi_suite else ""
    tail = f"  {_frac(case.baseline)} -> {_frac(case.candidate)}" + ("  [critical]" if case.critical else "")
    tail += "  [redefined]" if case.redefined else ""
    name = f"{where}{t.safe(case.case_id, 400)}"
    if display_width(f"  {name}{tail}") <= width:
        head = [f"  {name}{tail}"]
    else:  # a case id is what the reader needs to find the case: wrapped whole, never cut
        head = wrap(name.replace(" ", "\x00"), width, indent="  ", hanging="    ")
        if display_width(head[-1] + tail) <= width:
            head[-1] += tail
        else:
            head.append("    " + tail.strip())
    detail = ""
    if evidence and case.failing_scorers:
        f = case.failing_scorers[0]
        # the scorer's own expected and actual, else the case's reference and the failing trial's output
        detail = evidence_line(
            t.safe(f.name, 60),
            f.notes or f.error,
            f.expected if f.expected is not None else case.expected,
            f.actual if f.actual is not None else case.output,
            lambda text: t.safe(text, 100),
            lambda text: t.safe(text, 60),
        )
    elif evidence and case.error:
        detail = f"error: {t.safe(case.error, 120)}"
    lines = [line.replace("\x00", " ") for line in head]
    if detail:
        lines += wrap(detail, width, indent="      ", max_lines=EVIDENCE_LINES)
    return lines


def _section(
    t: _Text, title: str, cases: list[CaseDiff], multi: bool, evidence: bool, style: str, width: int
) -> list[str]:
    if not cases:
        return []
    lines = ["", t.paint(f"{title} ({number(len(cases))}):", style)]
    for case in cases[:LIST_LIMIT]:
        lines += _case_lines(t, case, multi, evidence, width)
    if len(cases) > LIST_LIMIT:
        more = f"...and {number(len(cases) - LIST_LIMIT)} more (see the Markdown, HTML or JSON report)"
        lines += wrap(more, width, indent="  ")
    return lines


def _at(sha: str | None) -> str:
    return f" {short_sha(sha)}" if sha else ""


def _stats_rows(t: _Text, comparison: Comparison) -> list[list[str]]:
    rows = [["Suite", "Delta (95% CI)", "p", "MDE"]]
    for s in comparison.suites:
        d = s.delta
        if d is None:
            continue
        rows.append(
            [
                t.safe(s.suite_id, 60),
                f"{delta(d.delta)} {interval(d.interval, points=True)}".strip(),
                pvalue(d.p_adjusted if d.p_adjusted is not None else d.p_value),
                "cannot fail" if not d.can_fail else points(d.mde),
            ]
        )
    return rows


def _rate_rows(t: _Text, comparison: Comparison) -> list[list[str]]:
    rows = [["Suite / group", "Baseline", "Candidate", "Delta", "Status"]]
    for s in comparison.suites:
        d = s.delta
        rows.append(
            [
                t.safe(s.suite_id, 60),
                _rate(s.baseline),
                _rate(s.candidate),
                delta(d.delta) if d else "–",
                s.verdict,
            ]
        )
        for g in s.groups:
            rows.append(
                [
                    "  " + t.safe(g.key, 58),
                    _rate(g.baseline),
                    _rate(g.candidate),
                    delta(g.delta.delta) if g.delta else "–",
                    g.status,
                ]
            )
    return rows


def _suite_notes(t: _Text, comparison: Comparison, width: int) -> list[str]:
    lines: list[str] = []
    for s in comparison.suites:
        d = s.delta
        if d is None:
            continue
        name = t.safe(s.suite_id, 60)
        notes = []
        if s.confirm_flaky:
            notes.append(
                f"flaky in the confirm run: {', '.join(t.safe(c, 60) for c in s.confirm_flaky[:10])}"
            )
        if d.history_runs:
            flaky = ", ".join(t.safe(c, 60) for c in d.history_flaky[:10])
            notes.append(
                f"{d.history_runs} earlier baselines pooled into the test; "
                f"{len(d.history_flaky)} cases flaky in them" + (f" ({flaky})" if flaky else "")
            )
        said = [r.message for r in comparison.reasons if r.suite_id == s.suite_id]
        if d.capacity is not None and not any(d.capacity in message for message in said):
            notes.append(t.safe(d.capacity, 400))  # unless a reason above already ends with it
        if d.settle is not None:
            notes.append(t.safe(d.settle.message, 300))
        for note in notes:
            lines.append("")
            lines += wrap(f"note: {name}: {note}", width, hanging="  ")
    return lines


def render_terminal(
    comparison: Comparison,
    *,
    color: bool = False,
    env: Mapping[str, str] | None = None,
    width: int = TERMINAL_WIDTH,
) -> str:
    """A readable plain-text summary: verdict line, a table of pass rates by suite and group, the test
    of each suite (delta with its interval, p, MDE), reasons, the regressed, improved, errored and
    new/removed cases (the first 20 of each) with their evidence, notes and the policy.

    Every line fits ``width`` columns (default 80): tables cut their first column, text wraps.
    ANSI colours are added only when ``color`` is true. Untrusted text is redacted (secrets of ``env``,
    default ``os.environ``), stripped of control characters and kept to one line before wrapping.
    """
    t = _Text(Redactor.from_env(env), color)
    head = headline(comparison, name=lambda text: t.safe(text, ID_CHARS))
    lines = [t.paint(line, comparison.outcome) for line in wrap(head, width, hanging="  ")]
    cand = comparison.candidate
    base = comparison.baseline
    if comparison.mode == "single_run":
        where = f"Candidate{_at(cand.sha)}; single run, no baseline."
    elif base.source == "none":
        where = f"Candidate{_at(cand.sha)}; no baseline: {t.safe(base.reason_missing or 'not found')}"
    else:
        if base.source == "artifact":
            origin = f"CI run {t.safe(base.run_id, 40)}" if base.run_id else "a CI run"
        else:
            origin = f"file {t.safe(display_path(base.path), 120)}" if base.path else "a file"
        where = f"Candidate{_at(cand.sha)} vs baseline{_at(base.sha)} ({origin})"
    lines += wrap(where, width, hanging="  ")
    again = reruns_clauses(cand.retried_trials, cand.earlier_attempts, cand.replayed_calls)
    if again:  # what the record's attempts and cache blocks hold, said where a reader looks
        lines += wrap(f"Candidate run: {'; '.join(again)}.", width, hanging="  ")
    for rows, left in ((_rate_rows(t, comparison), (0, 4)), (_stats_rows(t, comparison), (0, 1))):
        if len(rows) < 2:
            continue
        table = _table(rows, width, left)
        lines += ["", t.paint(table[0], "bold"), *table[1:]]
    if comparison.reasons or comparison.notes or comparison.info:
        lines.append("")
        for reason in comparison.reasons:
            mark = t.paint("x", "fail") if reason.blocking else t.paint("!", "warn")
            wrapped = wrap(t.safe(reason.message, 2000), width, indent="  ", hanging="  ")
            lines += [f"{mark} {wrapped[0][2:]}", *wrapped[1:]]
        for note in comparison.notes + comparison.info:
            lines += wrap(f"i {t.safe(note, 2000)}", width, hanging="  ")
    if comparison.reused_suites or comparison.reuse_notes:  # ci --reuse-unchanged
        lines.append("")
        for r in comparison.reused_suites:
            text = (
                f"reused {t.safe(r.suite_id, 60)} ({r.cases} cases copied from the baseline, not re-run, "
                f"no evidence): {t.safe(r.reason, 300)}"
            )
            lines += wrap(text, width, hanging="  ")
        for note in comparison.reuse_notes:
            lines += wrap(f"reuse: {t.safe(note, 300)}", width, hanging="  ")
    usage = usage_lines(comparison, t.safe)
    lines += [""] if usage else []
    for line in usage:
        indent = line[: len(line) - len(line.lstrip())]
        lines += wrap(line.lstrip(), width, indent=indent, hanging=indent + "  ")
    multi = len(comparison.suites) > 1
    listed = collect_cases(comparison)
    for key, title, evidence, style in (
        ("regressed", "Regressed cases", True, "fail"),
        ("failing", "Failing cases (no baseline)", True, "fail"),
        ("improved", "Improved cases", False, "pass"),
        ("errored", "Cases with errored trials", True, "warn"),
        ("new", "New cases", False, "dim"),
        ("removed", "Removed cases", False, "dim"),
    ):
        lines += _section(t, title, listed[key], multi, evidence, style, width)
    lines += _suite_notes(t, comparison, width)
    k = comparison.effective_policy
    floor = pct(k.min_pass_rate) if k.min_pass_rate is not None else "none"
    policy = [
        f"policy: alpha {k.alpha}, max_drop {points(k.max_drop)}, min_pass_rate {floor}, "
        f"max_error_rate {pct(k.max_error_rate)}, on_missing_baseline {k.on_missing_baseline}, "
        f"on_inconclusive {k.on_inconclusive} (sources: {' < '.join(comparison.policy.sources)})",
        f"policy: {TEST_ASSUMPTIONS[k.test]}",
    ]
    for s in comparison.suites:
        changes = knob_changes(s.policy, k)
        if changes:
            knobs = ", ".join(f"{name} {t.safe(value, 200)}" for name, value in changes)
            policy.append(f"policy of {t.safe(s.suite_id, 60)}: {knobs}")
    lines.append("")
    for paragraph in policy:
        lines += [t.paint(line, "dim") for line in wrap(paragraph, width, hanging="  ")]
    return "\n".join(lines) + "\n"
