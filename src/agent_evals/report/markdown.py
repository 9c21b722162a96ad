"""The gate's Markdown report (PR comment or job summary), fitted into GitHub's size limits."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agent_evals.errors import UsageError
from agent_evals.gate.policy import TEST_ASSUMPTIONS
from agent_evals.record.read import gc_paused
from agent_evals.report.environment import build_environment
from agent_evals.report.escape import escape_untrusted
from agent_evals.report.headline import ID_CHARS, headline
from agent_evals.report.view import LEVELS, ReportView, build_view, collect_cases

if TYPE_CHECKING:
    from agent_evals.gate.model import CaseDiff, Comparison

Budget = Literal["comment", "summary"]
"""Where the Markdown goes: a PR comment or a job summary (``$GITHUB_STEP_SUMMARY``)."""

COMMENT_MAX_CHARS = 60_000
"""A comment stays under this many characters (GitHub's limit is 65,536; room is left for edits)."""
COMMENT_MAX_BYTES = 65_536
"""...and under this many UTF-8 bytes."""
SUMMARY_MAX_BYTES = 900 * 1024
"""A job summary stays under 900 KiB (GitHub's limit is 1 MiB per step)."""

TEMPLATE_NAME = "comment.md.j2"
"""The packaged template; a user template folder may hold a file of this name that extends it."""

DEFAULT_FULL_REPORT = "in the HTML and JSON reports of this workflow run's artifacts"
"""Where the full report is said to be when no URL is given."""

_SAFE_URL = re.compile(r"^https?://[^\s<>\"'()\[\]`]+$")
# Rough lower bound of the characters one listed case or table row costs, to skip hopeless levels.
_MIN_ROW_CHARS = 40
# What a listed case's line costs at least besides its id and name ("- removed: <code></code>" + newline).
_CASE_LINE_CHARS = 24
_ID_LIMIT, _NAME_LIMIT = 120, 80  # as the template's case_cell macro truncates them


def gate_marker(gate_id: str = "default") -> str:
    """The hidden HTML comment that identifies a gate's comment, so it is updated in place (the rule
    for gate ids lives in ``core.gate_id``, shared with the GitHub flows)."""
    from agent_evals.core.gate_id import gate_marker as marker

    return marker(gate_id)


def fits(text: str, budget: Budget) -> bool:
    """Whether ``text`` is within the size limit of ``budget``."""
    size = len(text.encode("utf-8"))
    if budget == "comment":
        return len(text) <= COMMENT_MAX_CHARS and size <= COMMENT_MAX_BYTES
    return size <= SUMMARY_MAX_BYTES


def _budget_chars(budget: Budget) -> int:
    return COMMENT_MAX_CHARS if budget == "comment" else SUMMARY_MAX_BYTES


def _case_floor(case: CaseDiff) -> int:
    """Characters a listed case's line takes at least: its id and name are rendered escaped, and
    escaping never shortens printable text (it only replaces characters by longer entities)."""
    cid, name = case.case_id, case.name
    size = _CASE_LINE_CHARS + (min(len(cid), _ID_LIMIT) if cid.isprintable() else 0)
    if name and name != cid and name.isprintable():
        size += 1 + min(len(name), _NAME_LIMIT)
    return max(size, _MIN_ROW_CHARS)


def _lower_bound(view: ReportView, floors: Mapping[int, int]) -> int:
    listed = sum(
        floors[id(case)]
        for listing in (
            view.regressed,
            view.failing,
            view.improved,
            view.errored,
            view.flaky,
            view.added,
            view.removed,
        )
        for case in listing.shown
    )
    rows = sum(1 + len(sv.groups) for sv in view.suites)
    return listed + rows * _MIN_ROW_CHARS


def render_markdown(
    comparison: Comparison,
    *,
    budget: Budget = "comment",
    gate_id: str = "default",
    template_dir: Path | None = None,
    full_report_url: str | None = None,
    env: Mapping[str, str] | None = None,
    accepted_label: str | None = None,
) -> str:
    """Render the comparison as Markdown that fits ``budget``.

    The first line is always the hidden marker ``<!-- agent-evals:gate:{gate_id} -->`` and the second
    the verdict line. When the full report is too large, detail is dropped step by step (passing rows,
    breakdowns, evidence, then all but the top regressions) and a note says what was left out and
    where the full report is (``full_report_url``, or the run's artifacts). ``template_dir`` may hold a
    ``comment.md.j2`` that extends ``builtin/comment.md.j2`` and overrides named blocks. Secret values
    of ``env`` (default ``os.environ``) are redacted from every untrusted string. ``accepted_label``
    names the pull request label that accepted a failed gate: a note under the verdict says so, and
    it is part of what is fitted to the budget.
    """
    with gc_paused():  # a large comparison makes every cyclic GC pass slow; nothing here forms cycles
        if budget not in ("comment", "summary"):
            raise UsageError(f"budget must be 'comment' or 'summary', not {budget!r}")
        marker = gate_marker(gate_id)
        if full_report_url is not None and not _SAFE_URL.match(full_report_url):
            raise UsageError(
                f"full report URL {full_report_url!r} must be an http(s) URL without spaces, quotes or brackets"
            )
        from agent_evals.version import __version__

        environment = build_environment(kind="markdown", template_dir=template_dir, env=env)
        template = environment.get_template(TEMPLATE_NAME)
        untrusted = environment.filters["u"]  # redacts secrets, then escapes
        head = headline(comparison, name=lambda text: str(untrusted(text, ID_CHARS, " ")))
        full_report = f"[here]({full_report_url})" if full_report_url else DEFAULT_FULL_REPORT
        acknowledgement = _acknowledgement(accepted_label) if accepted_label is not None else ""
        cases = collect_cases(comparison)
        floors = {id(case): _case_floor(case) for listed in cases.values() for case in listed}
        for detail in LEVELS:
            view = build_view(comparison, detail, cases)
            if detail is not LEVELS[-1] and _lower_bound(view, floors) > _budget_chars(budget):
                continue
            body = template.render(
                c=comparison,
                v=view,
                d=detail,
                headline=head,
                gate_id=gate_id,
                full_report=full_report,
                tool_version=__version__,
                test_assumptions=TEST_ASSUMPTIONS,
                acknowledgement=acknowledgement,
            )
            text = f"{marker}\n{body.strip()}\n"
            if fits(text, budget):
                return text
        return _last_resort(marker, head, full_report, acknowledgement)


def _acknowledgement(label: str) -> str:
    return (
        f"> [!IMPORTANT]\n> **Regression accepted** with the <code>{escape_untrusted(label, 100)}</code> label: the gate "
        "failed, and the pull request may merge because the label acknowledges it."
    )


def _last_resort(marker: str, head: str, full_report: str, accepted: str = "") -> str:
    # Reached only when even the shortest rendering (verdict and suite table) is too large,
    # e.g. tens of thousands of suites, or a user template that ignores the levels of detail.
    note = f"{accepted}\n\n" if accepted else ""
    return (
        f"{marker}\n### {head}\n\n{note}"
        "> [!NOTE]\n"
        f"> This report is too large for GitHub; only the verdict is shown. The full report is {full_report}.\n"
    )
