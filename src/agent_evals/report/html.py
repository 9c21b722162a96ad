"""The full, self-contained static HTML report: inline CSS and SVG charts, opens offline."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_evals.core.redact import Redactor
from agent_evals.gate.policy import TEST_ASSUMPTIONS
from agent_evals.record.read import gc_paused
from agent_evals.report.charts import Bar, case_strip, flip_matrix, pass_rate_bars, trend_chart
from agent_evals.report.environment import build_environment
from agent_evals.report.headline import headline, overall_rate, plain_id
from agent_evals.report.view import collect_cases

if TYPE_CHECKING:
    from agent_evals.gate.model import Comparison, SuiteComparison

TEMPLATE_NAME = "report.html.j2"
"""The packaged HTML template."""

SECTION_LIMIT = 5000
"""Cases listed per section of the HTML report (the JSON verdict and run records hold the rest)."""

TEXT_LIMIT = 4000
"""Characters kept from each untrusted value (outputs, notes, expected vs actual)."""


def _suite_charts(suite: SuiteComparison) -> dict[str, Any]:
    from markupsafe import Markup

    bars = [
        Bar(
            label=row.key,
            baseline=row.baseline.rate if row.baseline is not None else None,
            candidate=row.candidate.rate if row.candidate is not None else None,
        )
        for row in suite.groups
    ]
    if not bars:
        bars = [
            Bar(
                label=suite.suite_id,
                baseline=suite.baseline.rate if suite.baseline is not None else None,
                candidate=suite.candidate.rate,
            )
        ]
    charts = {
        "bars": Markup(pass_rate_bars(bars, title="Pass rate by capability")),
        "matrix": None,
        "strip": None,
        "trend": Markup(trend_chart(suite.trend, title="Pass rate over the baselines"))
        if suite.trend
        else None,
    }
    if suite.cases and any(c.baseline is not None for c in suite.cases):
        charts["matrix"] = Markup(flip_matrix(suite.cases, title="Case flips: baseline → candidate"))
        charts["strip"] = Markup(case_strip(suite.cases, title="Every case, worst flips first"))
    return charts


def report_title(comparison: Comparison) -> str:
    """``agent-evals: home, support · PR #17 · 1a2b3c4`` (what the candidate ran, where), as plain text."""
    from agent_evals.report.filters import short_sha

    suites = [s.suite_id for s in comparison.suites]
    shown = ", ".join(suites[:3]) + (f" +{len(suites) - 3} more" if len(suites) > 3 else "")
    parts = [f"agent-evals: {shown or 'no suites'}"]
    candidate = comparison.candidate
    match = re.match(r"refs/pull/(\d+)/", candidate.ref or "")
    if match:
        parts.append(f"PR #{match.group(1)}")
    elif candidate.ref:
        parts.append(candidate.ref.removeprefix("refs/heads/"))
    if candidate.sha:
        parts.append(short_sha(candidate.sha))
    return " · ".join(parts)


def render_html(
    comparison: Comparison,
    *,
    env: Mapping[str, str] | None = None,
    template_dir: Path | None = None,
) -> str:
    """A single HTML file with everything inline: verdict, suite and group tables, charts (pass rate by
    capability, baseline vs candidate; the per-case flip matrix), every regressed, improved, errored,
    flaky, new and removed case with its evidence, provenance and policy.

    A Content-Security-Policy forbids any network load, so the file renders the same offline.
    Secrets of ``env`` (default ``os.environ``) are redacted; ``template_dir`` may override
    ``report.html.j2`` blocks like the Markdown template.
    """
    with gc_paused():  # a large comparison makes every cyclic GC pass slow; nothing here forms cycles
        from agent_evals.version import __version__

        redactor = Redactor.from_env(env)
        environment = build_environment(kind="html", template_dir=template_dir, env=env)
        template = environment.get_template(TEMPLATE_NAME)
        cases = collect_cases(comparison)
        text = template.render(
            c=comparison,
            headline=headline(comparison, icon=False, name=lambda text: plain_id(redactor(text))),
            title=report_title(comparison),
            cases=cases,
            limit=SECTION_LIMIT,
            text_limit=TEXT_LIMIT,
            charts={s.suite_id: _suite_charts(s) for s in comparison.suites},
            overall={
                "candidate": overall_rate(comparison, "candidate"),
                "baseline": overall_rate(comparison, "baseline"),
            },
            tool_version=__version__,
            test_assumptions=TEST_ASSUMPTIONS,
        )
        # Chart labels and tooltips carry case ids and group names: one last pass catches any secret there.
        return redactor(text)
