"""Small formatting filters shared by the report templates and the plain-text renderers."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agent_evals.core.percent import NONE_MARK, interval_text, percent
from agent_evals.core.percent import points as percent_points
from agent_evals.core.redact import Redactor
from agent_evals.report.escape import DEFAULT_LIMIT, clean_text, escape_untrusted, strip_controls, truncate

VERDICT_ICONS: Mapping[str, str] = {
    "failed": "❌",
    "inconclusive": "⚠️",
    "no-baseline": "ℹ️",
    "passed": "✅",
    "reused": "♻️",
}
"""Icon per verdict."""

OUTCOME_ICONS: Mapping[str, str] = {"fail": "❌", "warn": "⚠️", "pass": "✅", "incomplete": "⛔"}
"""Icon per outcome (what the verdict does under the policy)."""

STATUS_LABELS: Mapping[str, str] = {
    "ok": "✅ ok",
    "regressed": "❌ regressed",
    "inconclusive": "⚠️ inconclusive",
    "improved": "⬆️ improved",
    "below-floor": "❌ below floor",
    "new": "🆕 new",
    "removed": "➖ removed",
    "no-baseline": "ℹ️ no baseline",
}
"""Label per breakdown-row status."""


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def pct(value: Any, digits: int = 1) -> str:
    """A rate in [0, 1] as a percentage: ``0.853`` -> ``85.3%``; None -> ``–`` (``core.percent``)."""
    return percent(value, digits)


def delta(value: Any, digits: int = 1) -> str:
    """A rate difference as signed percentage points: ``-0.08`` -> ``-8.0 pp``; None -> ``–``."""
    return percent_points(value, digits, signed=True)


def points(value: Any, digits: int = 1) -> str:
    """A size of a rate difference, unsigned, in percentage points: ``0.041`` -> ``4.1 pp``."""
    return percent_points(value, digits)


def interval(value: Any, *, points: bool = False, digits: int = 1) -> str:
    """An interval object (``low``/``high``) as ``[71.2%, 88.9%]``, or in points ``[-9.1, -2.3]``."""
    if value is None:
        return ""
    return interval_text(getattr(value, "low", None), getattr(value, "high", None), digits, points=points)


def pvalue(value: Any) -> str:
    """A p-value for humans: ``0.0312`` -> ``0.031``; below 0.001 -> ``<0.001``; None -> ``–``."""
    if not _finite(value):
        return NONE_MARK
    if value < 0.001:
        return "<0.001"
    return f"{value:.3f}"


def pluralize(count: Any, singular: str, plural: str | None = None) -> str:
    """``1 regression``, ``3 regressions``; ``plural`` for irregular words (``1 case``, ``2 cases``)."""
    n = int(count)
    word = singular if n == 1 else (plural if plural is not None else singular + "s")
    return f"{number(n)} {word}"


def number(value: Any) -> str:
    """An integer with thousands separators: ``20000`` -> ``20,000``; None -> ``–``."""
    if value is None:
        return NONE_MARK
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.2f}"
    return f"{int(value):,}"


def usd(value: Any) -> str:
    """Dollars: ``0.01234`` -> ``$0.0123``, ``12.5`` -> ``$12.50``; None -> ``–``."""
    if not _finite(value):
        return NONE_MARK
    sign = "-" if value < 0 else ""
    amount = abs(value)
    return f"{sign}${amount:.4f}" if amount < 1 else f"{sign}${amount:,.2f}"


def seconds(value: Any) -> str:
    """A duration: ``0.42`` -> ``420 ms``, ``3.2`` -> ``3.2 s``, ``125`` -> ``2m 05s``; None -> ``–``."""
    if not _finite(value):
        return NONE_MARK
    sign = "-" if value < 0 else ""
    v = abs(value)
    if v < 1:
        return f"{sign}{v * 1000:.0f} ms"
    if v < 60:
        return f"{sign}{v:.1f} s"
    minutes, secs = divmod(round(v), 60)
    return f"{sign}{minutes}m {secs:02d}s"


def signed(value: Any, unit: str = "number") -> str:
    """A change with an explicit sign; ``unit`` is ``number``, ``usd`` or ``seconds`` (``+1,200``, ``-$0.0100``)."""
    if not _finite(value):
        return NONE_MARK
    formatter: Callable[[Any], str] = {"usd": usd, "seconds": seconds}.get(unit, number)
    text = formatter(value)
    return text if text.startswith("-") else "+" + text


def usage_amount(value: Any, metric: str) -> str:
    """A usage check's amount: tokens as a number, cost in dollars, latency as a duration."""
    return {"cost": usd, "latency": seconds}.get(metric, number)(value)


def per_trial(total: float | None, cases: int) -> float | None:
    """A usage check's or group row's amount per trial: its sum of per-case means per trial over its
    ``cases`` paired cases, divided by them (the check compares sums; a reader wants one trial)."""
    return None if total is None or cases <= 0 else total / cases


def _zero(value: float | None) -> bool:
    return value is None or value == 0


def usage_row_shown(row: Any) -> bool:
    """Whether a usage check or group row is worth a line: not when both sides measured nothing but
    zeros (a run without real usage would print ``$0.0000 -> $0.0000`` for every group), unless cases
    lost their usage or only the candidate measured it."""
    if getattr(row, "verdict", None) == "not-measured" or getattr(row, "missing_case_ids", None):
        return True
    return not (_zero(row.baseline_total) and _zero(row.candidate_total))


def usage_rows(rows: Any) -> list[Any]:
    """The usage checks or group rows of a suite worth a line (:func:`usage_row_shown`)."""
    return [row for row in rows if usage_row_shown(row)]


def with_usage_lines(suites: Any) -> list[Any]:
    """The suites with a usage check worth a line."""
    return [suite for suite in suites if usage_rows(suite.usage_checks)]


def trials_per_case(summary: Any) -> str:
    """``7 trials per case``, or ``2–7 trials per case`` when the cases' trial counts differ (after
    ``--confirm-trials`` only the flipped cases have the most)."""
    low = summary.k_min
    span = f"{low}–{summary.k}" if low is not None and low < summary.k else str(summary.k)
    return f"{span} trials per case"


def k_cover(summary: Any) -> str:
    """Which cases pass@k and pass^k average over, when not all of them: `` (over the 2 of 5 cases with 7
    valid trials)``; empty when every case has ``k``."""
    if summary.cases_at_k >= summary.cases:
        return ""
    return f" (over the {summary.cases_at_k} of {summary.cases} cases with {summary.k} valid trials)"


def rise(value: Any) -> str:
    """A relative change of usage: ``0.3`` -> ``+30.0%``; a rise from zero -> ``from 0``; None -> ``–``."""
    if value is None:
        return NONE_MARK
    if value == float("inf"):
        return "from 0"
    return f"{value * 100:+.1f}%"


def short_sha(value: Any) -> str:
    """The first 7 characters of a commit SHA (the form GitHub shows)."""
    return str(value)[:7] if value else NONE_MARK


def timestamp(value: Any) -> str:
    """An ISO 8601 time as ``2026-11-30 04:28 UTC``; a naive time without the zone; anything else as given."""
    text = str(value)
    try:
        # Python 3.10's fromisoformat does not read a ``Z`` suffix.
        moment = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
    except ValueError:
        return text
    if moment.tzinfo is None:
        return moment.strftime("%Y-%m-%d %H:%M")
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def display_path(value: Any, cwd: str | None = None) -> str:
    """A file path fit for a public report: relative to ``cwd`` (default: the working directory) when
    below it, a relative path as given, else only the file name (an absolute path shows the runner's layout).
    """
    text = str(value)
    path = Path(text)
    if not path.is_absolute():
        return path.as_posix()
    target = path.resolve()
    try:
        inside = target.relative_to((Path(cwd) if cwd is not None else Path.cwd()).resolve())
    except ValueError:
        return target.name or text
    return inside.as_posix() if inside.parts else (target.name or text)


def knob_text(value: Any, name: str) -> str:
    """One gate knob's value as the report states it: ``5.0 pp`` (max_drop), ``70.0%`` (min_pass_rate), ``on``."""
    if name == "max_drop":
        shown = points(value)
    elif name in ("min_pass_rate", "max_error_rate"):
        shown = "none" if value is None else pct(value)
    elif name == "critical_cases":
        shown = ", ".join(str(v) for v in value) if value else "none"
    elif isinstance(value, bool):
        shown = "on" if value else "off"
    else:
        shown = str(value)
    return shown


def knob_changes(knobs: Any, defaults: Any) -> list[tuple[str, str]]:
    """``(name, value text)`` of each knob of ``knobs`` (a ``Knobs`` model) that differs from ``defaults``."""
    mine, base = knobs.model_dump(), defaults.model_dump()
    return [(name, knob_text(value, name)) for name, value in mine.items() if value != base.get(name)]


def verdict_icon(verdict: Any) -> str:
    """Icon for a verdict (``failed`` -> ❌)."""
    return VERDICT_ICONS.get(str(verdict), "❔")


def outcome_icon(outcome: Any) -> str:
    """Icon for an outcome (``warn`` -> ⚠️)."""
    return OUTCOME_ICONS.get(str(outcome), "❔")


def status_label(status: Any) -> str:
    """Icon and word for a row status (``regressed`` -> ``❌ regressed``)."""
    return STATUS_LABELS.get(str(status), str(status))


def make_untrusted_filter(redactor: Redactor, *, markdown: bool) -> Callable[..., str]:
    """The ``escape_untrusted`` filter: redact secrets first, then escape (Markdown) or just truncate (HTML,
    where the template's autoescaping handles markup)."""

    def untrusted(value: Any, limit: int | None = DEFAULT_LIMIT, line_break: str = "<br>") -> str:
        """Redact, then escape (Markdown) or truncate (HTML) one untrusted value."""
        if value is None:
            return ""
        text = redactor(value if isinstance(value, str) else str(value))
        if markdown:
            return escape_untrusted(text, limit, line_break=line_break)
        return truncate(strip_controls(clean_text(text)), limit)

    return untrusted


def plain_filters() -> dict[str, Callable[..., Any]]:
    """Every format filter that does not depend on the output format, by template name."""
    return {
        "pct": pct,
        "delta": delta,
        "points": points,
        "interval": interval,
        "pvalue": pvalue,
        "pluralize": pluralize,
        "number": number,
        "usd": usd,
        "seconds": seconds,
        "signed": signed,
        "usage_amount": usage_amount,
        "per_trial": per_trial,
        "trials_per_case": trials_per_case,
        "k_cover": k_cover,
        "usage_rows": usage_rows,
        "with_usage_lines": with_usage_lines,
        "rise": rise,
        "short_sha": short_sha,
        "timestamp": timestamp,
        "display_path": display_path,
        "knob_changes": knob_changes,
        "knob_text": knob_text,
        "verdict_icon": verdict_icon,
        "outcome_icon": outcome_icon,
        "status_label": status_label,
    }
