"""Inline SVG charts for the HTML report, drawn in Python (no JavaScript, no network)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING

from agent_evals.core.percent import percent
from agent_evals.report.escape import clean_text, strip_controls

if TYPE_CHECKING:
    from agent_evals.gate.model import CaseDiff, CaseSide, TrendPoint

OUTCOMES = ("pass", "flaky", "fail", "errored", "absent")
"""A case's outcome on one side, as the flip matrix groups them."""

BASELINE_COLOR = "#9aa5b1"
CANDIDATE_COLOR = "#2f6fde"
WORSE_COLOR = "#d1453b"
BETTER_COLOR = "#2e9e5b"
SAME_COLOR = "#c9d3dd"
TEXT_COLOR = "#1f2933"
MAX_BAR_ROWS = 60
"""Groups drawn in the pass-rate chart (the largest drops first when there are more)."""
MAX_STRIP_CASES = 2500
"""Cases drawn as cells of the per-case strip."""
MAX_TREND_POINTS = 60
"""Runs drawn in the trend chart (the latest ones, the candidate always)."""
TREND_LABELS = 12
"""Runs labelled under the trend chart's axis at most (every n-th when there are more)."""


def _e(text: object) -> str:
    # untrusted text (case ids, groups): no control or bidi character, no lone surrogate, no markup
    return escape(strip_controls(clean_text(str(text))), quote=True)


def _label(text: str, limit: int = 28) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Bar:
    """One group of the pass-rate chart."""

    label: str
    """Group name (untrusted; escaped when drawn)."""
    baseline: float | None
    """Baseline pass rate, None when absent."""
    candidate: float | None
    """Candidate pass rate, None when absent."""


def pass_rate_bars(bars: Sequence[Bar], *, title: str) -> str:
    """Horizontal bars, baseline vs candidate pass rate per group, with a 0-100% axis."""
    shown = list(bars)
    hidden = 0
    if len(shown) > MAX_BAR_ROWS:

        def drop(bar: Bar) -> float:
            """Candidate minus baseline (0 when a side is missing)."""
            if bar.baseline is None or bar.candidate is None:
                return 0.0
            return bar.candidate - bar.baseline

        shown = sorted(shown, key=drop)[:MAX_BAR_ROWS]
        hidden = len(bars) - MAX_BAR_ROWS
    label_w, plot_w, row_h, top = 170, 420, 34, 40
    width = label_w + plot_w + 70
    height = top + row_h * max(len(shown), 1) + 40
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" aria-label="{_e(title)}">',
        f"<title>{_e(title)}</title>",
        f'<text x="0" y="16" font-size="14" font-weight="600" fill="{TEXT_COLOR}">{_e(title)}</text>',
        f'<rect x="{label_w}" y="22" width="12" height="10" fill="{BASELINE_COLOR}"/>'
        f'<text x="{label_w + 16}" y="31" font-size="11" fill="{TEXT_COLOR}">baseline</text>'
        f'<rect x="{label_w + 80}" y="22" width="12" height="10" fill="{CANDIDATE_COLOR}"/>'
        f'<text x="{label_w + 96}" y="31" font-size="11" fill="{TEXT_COLOR}">candidate</text>',
    ]
    axis_y = top + row_h * max(len(shown), 1)
    for tick in (0, 25, 50, 75, 100):
        x = label_w + plot_w * tick / 100
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{axis_y}" stroke="#e4e7eb"/>')
        parts.append(
            f'<text x="{x:.1f}" y="{axis_y + 14}" font-size="10" text-anchor="middle" fill="#52606d">{tick}%</text>'
        )
    for index, bar in enumerate(shown):
        y = top + index * row_h
        parts.append(
            f'<text x="{label_w - 8}" y="{y + 20}" font-size="12" text-anchor="end" fill="{TEXT_COLOR}">'
            f"<title>{_e(bar.label)}</title>{_e(_label(bar.label))}</text>"
        )
        for offset, value, color, who in (
            (4, bar.baseline, BASELINE_COLOR, "baseline"),
            (17, bar.candidate, CANDIDATE_COLOR, "candidate"),
        ):
            if value is None:
                continue
            fill = color
            if who == "candidate" and bar.baseline is not None and value < bar.baseline - 1e-9:
                fill = WORSE_COLOR
            w = max(plot_w * value, 1.0)
            parts.append(
                f'<rect x="{label_w}" y="{y + offset}" width="{w:.1f}" height="12" fill="{fill}">'
                f"<title>{_e(bar.label)} {who}: {percent(value)}</title></rect>"
            )
            parts.append(
                f'<text x="{label_w + w + 4:.1f}" y="{y + offset + 10}" font-size="10" fill="#52606d">'
                f"{percent(value)}</text>"
            )
    if hidden:
        parts.append(
            f'<text x="0" y="{height - 6}" font-size="11" fill="#52606d">'
            f"{hidden} more groups not drawn (largest drops shown)</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def outcome_of(side: CaseSide | None) -> str:
    """``pass`` (every valid trial passed), ``fail`` (none), ``flaky``, ``errored`` (no valid trial) or ``absent``."""
    if side is None:
        return "absent"
    if side.pass_fraction is None:
        return "errored"
    if side.pass_fraction >= 1:
        return "pass"
    if side.pass_fraction <= 0:
        return "fail"
    return "flaky"


_RANK = {"pass": 3, "flaky": 2, "fail": 1, "errored": 0, "absent": -1}


def _transition_color(base: str, cand: str) -> str:
    if base == cand or "absent" in (base, cand):
        return SAME_COLOR
    return BETTER_COLOR if _RANK[cand] > _RANK[base] else WORSE_COLOR


def flip_counts(cases: Sequence[CaseDiff]) -> dict[tuple[str, str], int]:
    """How many cases went from each baseline outcome to each candidate outcome."""
    counts = {(b, c): 0 for b in OUTCOMES for c in OUTCOMES}
    for case in cases:
        counts[(outcome_of(case.baseline), outcome_of(case.candidate))] += 1
    return counts


def flip_matrix(cases: Sequence[CaseDiff], *, title: str) -> str:
    """A 5x5 matrix of case counts, baseline outcome (rows) to candidate outcome (columns);
    red cells got worse, green got better, grey stayed."""
    counts = flip_counts(cases)
    cell, left, top = 54, 70, 62
    width = left + cell * len(OUTCOMES) + 10
    height = top + cell * len(OUTCOMES) + 10
    peak = max([v for (b, c), v in counts.items() if b != c] + [1])
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" aria-label="{_e(title)}">',
        f"<title>{_e(title)}</title>",
        f'<text x="0" y="16" font-size="14" font-weight="600" fill="{TEXT_COLOR}">{_e(title)}</text>',
        f'<text x="{left}" y="36" font-size="11" fill="#52606d">candidate →</text>',
        f'<text x="0" y="{top - 6}" font-size="11" fill="#52606d">baseline ↓</text>',
    ]
    for j, cand in enumerate(OUTCOMES):
        parts.append(
            f'<text x="{left + j * cell + cell / 2}" y="{top - 6}" font-size="11" text-anchor="middle" '
            f'fill="{TEXT_COLOR}">{cand}</text>'
        )
    for i, base in enumerate(OUTCOMES):
        y = top + i * cell
        parts.append(
            f'<text x="{left - 8}" y="{y + cell / 2 + 4}" font-size="11" text-anchor="end" '
            f'fill="{TEXT_COLOR}">{base}</text>'
        )
        for j, cand in enumerate(OUTCOMES):
            n = counts[(base, cand)]
            color = _transition_color(base, cand)
            opacity = 0.12 if n == 0 else (0.9 if base == cand else 0.35 + 0.6 * n / peak)
            x = left + j * cell
            parts.append(
                f'<rect x="{x + 1}" y="{y + 1}" width="{cell - 2}" height="{cell - 2}" rx="4" fill="{color}" '
                f'fill-opacity="{opacity:.2f}"><title>{base} → {cand}: {n} cases</title></rect>'
            )
            parts.append(
                f'<text x="{x + cell / 2}" y="{y + cell / 2 + 5}" font-size="13" text-anchor="middle" '
                f'fill="{TEXT_COLOR}">{n:,}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def case_strip(cases: Sequence[CaseDiff], *, title: str) -> str:
    """One small cell per case, coloured by its flip (worse first), each with its id as a tooltip."""
    ordered = sorted(
        cases,
        key=lambda c: (
            {WORSE_COLOR: 0, BETTER_COLOR: 1, SAME_COLOR: 2}[
                _transition_color(outcome_of(c.baseline), outcome_of(c.candidate))
            ],
            c.suite_id,
            c.case_id,
        ),
    )
    shown = ordered[:MAX_STRIP_CASES]
    size, per_row, top = 12, 60, 26
    rows = max((len(shown) + per_row - 1) // per_row, 1)
    width = per_row * size + 2
    height = top + rows * size + (18 if len(ordered) > len(shown) else 4)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" aria-label="{_e(title)}">',
        f"<title>{_e(title)}</title>",
        f'<text x="0" y="16" font-size="14" font-weight="600" fill="{TEXT_COLOR}">{_e(title)}</text>',
    ]
    for index, case in enumerate(shown):
        base, cand = outcome_of(case.baseline), outcome_of(case.candidate)
        x = (index % per_row) * size
        y = top + (index // per_row) * size
        parts.append(
            f'<rect x="{x + 1}" y="{y + 1}" width="{size - 2}" height="{size - 2}" '
            f'fill="{_transition_color(base, cand)}"><title>{_e(case.case_id)}: {base} → {cand}</title></rect>'
        )
    if len(ordered) > len(shown):
        parts.append(
            f'<text x="0" y="{height - 4}" font-size="11" fill="#52606d">'
            f"first {len(shown):,} of {len(ordered):,} cases drawn</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _run_label(point: TrendPoint) -> str:
    if point.role == "candidate":
        return "candidate"
    if point.sha:
        return point.sha[:7]
    if point.date:
        return point.date[:10]
    return point.run_id or point.role


def trend_chart(points: Sequence[TrendPoint], *, title: str) -> str:
    """Pass rate per run, oldest baseline on the left and the candidate on the right, on a 0-100%
    axis; the candidate's dot is red when it is below the baseline. Runs without a graded case have
    no dot. Every label and tooltip is escaped."""
    shown = list(points[-MAX_TREND_POINTS:])
    if points and points[-1] not in shown:
        shown[-1] = points[-1]
    left, top, plot_w, plot_h = 44, 34, 520, 150
    width, height = left + plot_w + 30, top + plot_h + 46
    step = plot_w / max(len(shown) - 1, 1)
    every = max(-(-len(shown) // TREND_LABELS), 1)

    def xy(index: int, rate: float) -> tuple[float, float]:
        return left + index * step, top + plot_h * (1 - rate)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" aria-label="{_e(title)}">',
        f"<title>{_e(title)}</title>",
        f'<text x="0" y="16" font-size="14" font-weight="600" fill="{TEXT_COLOR}">{_e(title)}</text>',
    ]
    for tick in (0, 25, 50, 75, 100):
        y = top + plot_h * (1 - tick / 100)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#e4e7eb"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" font-size="10" text-anchor="end" fill="#52606d">{tick}%</text>'
        )
    baselines = [(i, p.rate) for i, p in enumerate(shown) if p.role != "candidate" and p.rate is not None]
    if len(baselines) > 1:
        line = " ".join(f"{x:.1f},{y:.1f}" for x, y in (xy(i, r) for i, r in baselines))
        parts.append(f'<polyline points="{line}" fill="none" stroke="{BASELINE_COLOR}" stroke-width="2"/>')
    last = shown[-1]
    base_rate = next((p.rate for p in reversed(shown) if p.role == "baseline"), None)
    if baselines and last.role == "candidate" and last.rate is not None:
        (x1, y1), (x2, y2) = xy(*baselines[-1]), xy(len(shown) - 1, last.rate)
        parts.append(
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{CANDIDATE_COLOR}" '
            'stroke-width="2" stroke-dasharray="5 4"/>'
        )
    for index, point in enumerate(shown):
        label = _run_label(point)
        tip = " ".join(x for x in (point.role, point.sha and point.sha[:7], point.date) if x)
        x = left + index * step
        if index % every == 0 or index == len(shown) - 1:
            parts.append(
                f'<text x="{x:.1f}" y="{top + plot_h + 16}" font-size="10" text-anchor="middle" '
                f'fill="#52606d">{_e(label)}</text>'
            )
        if point.rate is None:
            continue
        _, y = xy(index, point.rate)
        color = BASELINE_COLOR
        if point.role == "candidate":
            worse = base_rate is not None and point.rate < base_rate - 1e-9
            color = WORSE_COLOR if worse else CANDIDATE_COLOR
        radius = 5 if point.role != "history" else 3.5
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{radius}" fill="{color}">'
            f"<title>{_e(tip)}: {percent(point.rate)}</title></circle>"
        )
        if point.role != "history":
            parts.append(
                f'<text x="{x:.1f}" y="{y - 9:.1f}" font-size="10" text-anchor="middle" fill="{TEXT_COLOR}">'
                f"{percent(point.rate)}</text>"
            )
    parts.append(
        f'<text x="{left}" y="{height - 6}" font-size="11" fill="#52606d">'
        f"{len(shown) - 2} earlier baselines, the baseline and the candidate</text>"
    )
    parts.append("</svg>")
    return "".join(parts)
