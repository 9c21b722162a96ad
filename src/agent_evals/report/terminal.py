"""Plain-text rendering of a comparison for the terminal (ANSI colours only when asked)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from agent_evals.core.redact import Redactor
from agent_evals.gate.policy import TEST_ASSUMPTIONS
from agent_evals.report.escape import truncate
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
from agent_evals.report.headline import headline
from agent_evals.report.view import collect_cases

if TYPE_CHECKING:
    from agent_evals.gate.model import CaseDiff, CaseSide, Comparison, RateSummary

LIST_LIMIT = 20
"""Cases listed per section before ``...and N more``."""

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
        text = self.redactor(value if isinstance(value, str) else str(value))
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


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [
            cell.ljust(w) if i in (0, 3, 6) else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        out.append("  ".join(cells).rstrip())
    return out


def _case_line(t: _Text, case: CaseDiff, multi_suite: bool, evidence: bool) -> str:
    where = f"{t.safe(case.suite_id, 60)} :: " if multi_suite else ""
    line = f"  {where}{t.safe(case.case_id, 100)}  {_frac(case.baseline)} -> {_frac(case.candidate)}"
    if case.critical:
        line += "  [critical]"
    if evidence and case.failing_scorers:
        f = case.failing_scorers[0]
        line += f"  {t.safe(f.name, 60)}"
        if f.notes:
            line += f": {t.safe(f.notes, 100)}"
        if f.expected is not None or f.actual is not None:
            line += f" (expected {t.safe(f.expected, 60)!s}, got {t.safe(f.actual, 60)!s})"
    elif evidence and case.error:
        line += f"  error: {t.safe(case.error, 120)}"
    return line


def _section(
    t: _Text, title: str, cases: list[CaseDiff], multi: bool, evidence: bool, style: str
) -> list[str]:
    if not cases:
        return []
    lines = ["", t.paint(f"{title} ({number(len(cases))}):", style)]
    lines += [_case_line(t, c, multi, evidence) for c in cases[:LIST_LIMIT]]
    if len(cases) > LIST_LIMIT:
        lines.append(
            f"  ...and {number(len(cases) - LIST_LIMIT)} more (see the Markdown, HTML or JSON report)"
        )
    return lines


def _at(sha: str | None) -> str:
    return f" {short_sha(sha)}" if sha else ""


def render_terminal(
    comparison: Comparison, *, color: bool = False, env: Mapping[str, str] | None = None
) -> str:
    """A readable plain-text summary: verdict line, suite and group table, reasons, the regressed,
    improved, errored and new/removed cases (the first 20 of each), inconclusive notes and the policy.

    ANSI colours are added only when ``color`` is true. Untrusted text is redacted (secrets of ``env``,
    default ``os.environ``), stripped of control characters and kept to one line.
    """
    t = _Text(Redactor.from_env(env), color)
    lines = [t.paint(headline(comparison), comparison.outcome)]
    cand = comparison.candidate
    base = comparison.baseline
    if comparison.mode == "single_run":
        lines.append(f"Candidate{_at(cand.sha)}; single run, no baseline.")
    elif base.source == "none":
        lines.append(f"Candidate{_at(cand.sha)}; no baseline: {t.safe(base.reason_missing or 'not found')}")
    else:
        if base.source == "artifact":
            origin = f"CI run {t.safe(base.run_id, 40)}" if base.run_id else "a CI run"
        else:
            origin = f"file {t.safe(display_path(base.path), 120)}" if base.path else "a file"
        lines.append(f"Candidate{_at(cand.sha)} vs baseline{_at(base.sha)} ({origin})")
    rows = [["Suite / group", "Baseline", "Candidate", "Delta (95% CI)", "p", "MDE", "Status"]]
    for s in comparison.suites:
        d = s.delta
        rows.append(
            [
                t.safe(s.suite_id, 60),
                _rate(s.baseline),
                _rate(s.candidate),
                f"{delta(d.delta)} {interval(d.interval, points=True)}".strip() if d else "–",
                pvalue(d.p_adjusted if d.p_adjusted is not None else d.p_value) if d else "–",
                ("cannot fail" if not d.can_fail else points(d.mde)) if d else "–",
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
                    "",
                    "",
                    g.status,
                ]
            )
    lines.append("")
    table = _table(rows)
    lines.append(t.paint(table[0], "bold"))
    lines += table[1:]
    if comparison.reasons or comparison.notes:
        lines.append("")
        for reason in comparison.reasons:
            mark = t.paint("x", "fail") if reason.blocking else t.paint("!", "warn")
            lines.append(f"{mark} {t.safe(reason.message, 300)}")
        for note in comparison.notes:
            lines.append(f"i {t.safe(note, 300)}")
    multi = len(comparison.suites) > 1
    listed = collect_cases(comparison)
    lines += _section(t, "Regressed cases", listed["regressed"], multi, True, "fail")
    lines += _section(t, "Failing cases (no baseline)", listed["failing"], multi, True, "fail")
    lines += _section(t, "Improved cases", listed["improved"], multi, False, "pass")
    lines += _section(t, "Cases with errored trials", listed["errored"], multi, True, "warn")
    lines += _section(t, "New cases", listed["new"], multi, False, "dim")
    lines += _section(t, "Removed cases", listed["removed"], multi, False, "dim")
    for s in comparison.suites:
        d = s.delta
        if d is None:
            continue
        if s.confirm_flaky:
            shown = ", ".join(t.safe(c, 60) for c in s.confirm_flaky[:10])
            lines.append(f"\nnote: {t.safe(s.suite_id, 60)}: flaky in the confirm run: {shown}")
        if d.history_runs:
            flaky = ", ".join(t.safe(c, 60) for c in d.history_flaky[:10])
            lines.append(
                f"\nnote: {t.safe(s.suite_id, 60)}: {d.history_runs} earlier baselines pooled into the test; "
                f"{len(d.history_flaky)} cases flaky in them" + (f" ({flaky})" if flaky else "")
            )
        if d.capacity is not None:
            lines.append(f"\nnote: {t.safe(s.suite_id, 60)}: {t.safe(d.capacity, 400)}")
        if d.settle is not None:
            lines.append(f"note: {t.safe(s.suite_id, 60)}: {t.safe(d.settle.message, 300)}")
    k = comparison.effective_policy
    floor = pct(k.min_pass_rate) if k.min_pass_rate is not None else "none"
    lines.append("")
    lines.append(
        t.paint(
            f"policy: alpha {k.alpha}, max_drop {points(k.max_drop)}, min_pass_rate {floor}, "
            f"max_error_rate {pct(k.max_error_rate)}, on_missing_baseline {k.on_missing_baseline}, "
            f"on_inconclusive {k.on_inconclusive} (sources: {' < '.join(comparison.policy.sources)})",
            "dim",
        )
    )
    lines.append(t.paint(f"policy: {TEST_ASSUMPTIONS[k.test]}", "dim"))
    for s in comparison.suites:
        changes = knob_changes(s.policy, k)
        if changes:
            text = ", ".join(f"{name} {t.safe(value, 200)}" for name, value in changes)
            lines.append(t.paint(f"policy of {t.safe(s.suite_id, 60)}: {text}", "dim"))
    return "\n".join(lines) + "\n"
