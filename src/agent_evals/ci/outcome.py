"""`ci`'s outcome as data: the facts known before publishing decide the exit code, status and messages."""

# One ordered list, PRECEDENCE, says which fact wins. Each rule may set the exit code, the ``status``
# output, or both; for each, the first rule that holds and has a say decides. Publishing comes after
# and can only turn the exit code to 3 (ci/publishing.py).

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agent_evals.ci.child_run import with_died
from agent_evals.ci.comment import no_verdict
from agent_evals.errors import EXIT_INTERNAL, EXIT_OK


@dataclass(frozen=True)
class Facts:
    """What `ci` knows once the suites ran and were compared, each read once, before anything is published."""

    recorded: bool = True
    """The child run left a usable record (False: it left none, and nothing was compared)."""
    interrupted: int | None = None
    """The signal (SIGINT, SIGTERM) that cancelled the job."""
    died: str | None = None
    """The child died after recording some cases: the report's paragraph on how it ended."""
    setup_failures: tuple[str, ...] = ()
    """Agents that could not start (their cases are recorded as errored)."""
    unavailable: str | None = None
    """Why GitHub gave no usable answer for the baseline or the base policy: no verdict."""
    accepted: bool = False
    """The accept label acknowledges the failed verdict."""
    accept_label: str = "agent-evals:accept-regression"
    """The label's name."""
    gate_exit: int = EXIT_INTERNAL
    """The comparison's exit code (0 pass, 1 fail, 3 incomplete)."""
    verdict: str = "error"
    """The comparison's verdict (``pass``, ``fail``, ``no-baseline``, ...)."""
    incomplete: bool = False
    """The comparison's outcome is ``incomplete``."""
    baseline_unreadable: str | None = None
    """Why the baseline found could not be used (when the plan compares)."""
    baseline_missing: str | None = None
    """Why there is no baseline (when the plan compares)."""
    label_notices: tuple[str, ...] = ()
    """What reading the accept label said."""
    comment: bool = False
    """The plan and ``--comment`` want the sticky comment."""


@dataclass(frozen=True)
class Rule:
    """One line of the precedence: when it holds, and what it says of the exit code and the status."""

    name: str
    """What the rule is about, in words."""
    holds: Callable[[Facts], bool]
    """Whether it applies."""
    exit_code: Callable[[Facts], int] | None = None
    """The exit code it gives (None: it leaves the exit code to a later rule)."""
    status: Callable[[Facts], str] | None = None
    """The ``status`` output it gives (None: it leaves the status to a later rule)."""


def _signal_code(facts: Facts) -> int:
    return 128 + (facts.interrupted or 0)  # 130 (SIGINT) or 143 (SIGTERM), never "gate failed"


def _infra(_facts: Facts) -> int:
    return EXIT_INTERNAL


def _error(_facts: Facts) -> str:
    return "error"


PRECEDENCE: tuple[Rule, ...] = (
    # unknown, not missing: on_missing_baseline does not apply and there is never a verdict
    Rule("github-unavailable", lambda f: bool(f.unavailable), _infra, _error),
    # killed mid-run: never a pass, never "gate failed", whatever was compared
    Rule("died", lambda f: bool(f.died), _infra),
    # an agent that could not start: infrastructure, never a verdict
    Rule("setup-failed", lambda f: bool(f.setup_failures), _infra),
    Rule("interrupted", lambda f: f.interrupted is not None, _signal_code),
    Rule("no-record", lambda f: not f.recorded, _infra, _error),
    Rule("incomplete", lambda f: f.incomplete, status=lambda _f: "incomplete"),
    # the label accepts a failed verdict (exit 1), never an incomplete run
    Rule("accepted", lambda f: f.accepted, lambda _f: EXIT_OK, lambda _f: "accepted"),
    Rule("verdict", lambda _f: True, lambda f: f.gate_exit, lambda f: f.verdict),
)
"""Highest first; the last rule always holds."""


@dataclass(frozen=True)
class Outcome:
    """What `ci` decided, before any of it is published."""

    exit_code: int
    """The job's exit code."""
    status: str
    """The ``status`` step output (and ``verdict.json``'s)."""
    decided_by: str
    """The name of the rule that gave the exit code."""
    accepted: bool
    """The accept label acknowledges the failed verdict (the ``accepted-regression`` output)."""
    gate_exit: int
    """The exit code the comment's creation follows (``comment: on-failure`` creates it when not 0)."""
    comment: bool
    """Whether to write the sticky comment at all (a cancelled run leaves it alone: no network)."""
    verdict: bool
    """Whether the Markdown gives a verdict (a run that left no record already says "no verdict")."""
    comment_md: str
    """The sticky comment."""
    summary_md: str
    """The report for the job summary (printed as it is outside Actions)."""
    died: str | None = None
    """The first line on how the child died: said as an error."""
    no_verdict: str | None = None
    """Why GitHub gave no usable answer: said as an error."""
    warnings: tuple[str, ...] = ()
    """Said as ``::warning::`` and ``> [!WARNING]``: what no user should miss."""
    notices: tuple[str, ...] = ()
    """Said as ``::notice::`` and ``> [!NOTE]``."""

    @property
    def job_summary(self) -> str:
        """The job summary: the report, then its warnings and notes."""
        extra = "".join(f"\n> [!WARNING]\n> {_quote(w)}\n" for w in self.warnings)
        extra += "".join(f"\n> [!NOTE]\n> {n}\n" for n in self.notices)
        return self.summary_md + extra


def decide(facts: Facts, *, comment_md: str, summary_md: str) -> Outcome:
    """The outcome of ``facts``: exit code and status by PRECEDENCE, the messages, and the comment and
    job summary (``comment_md``, ``summary_md``: the rendered report) saying what overrides the verdict."""
    exit_rule = next(rule for rule in PRECEDENCE if rule.exit_code is not None and rule.holds(facts))
    status_rule = next(rule for rule in PRECEDENCE if rule.status is not None and rule.holds(facts))
    assert exit_rule.exit_code is not None and status_rule.status is not None
    if facts.unavailable:
        comment_md = no_verdict(comment_md, facts.unavailable, "comment")
        summary_md = no_verdict(summary_md, facts.unavailable, "summary")
    if facts.died:  # how it ended and its last lines, beside the cases it recorded
        comment_md, summary_md = with_died(comment_md, facts.died), summary_md + "\n" + facts.died
    warnings, notices = _messages(facts)
    return Outcome(
        exit_code=exit_rule.exit_code(facts),
        status=status_rule.status(facts),
        decided_by=exit_rule.name,
        accepted=facts.accepted,
        gate_exit=EXIT_INTERNAL if facts.unavailable else facts.gate_exit,
        comment=facts.comment and facts.interrupted is None,
        verdict=facts.recorded,
        comment_md=comment_md,
        summary_md=summary_md,
        died=facts.died.splitlines()[0] if facts.died else None,
        no_verdict=facts.unavailable or None,
        warnings=warnings,
        notices=notices,
    )


def _messages(facts: Facts) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The warnings and the notices, in the order they are said."""
    notices = list(facts.label_notices)
    warnings: list[str] = []
    if facts.accepted:
        notices.append(
            f"Regression accepted with the {facts.accept_label!r} label: the gate failed, and the pull "
            "request may merge because the label acknowledges it (exit code 0)."
        )
    if facts.baseline_unreadable is not None:
        warnings.append(facts.baseline_unreadable)
    elif facts.baseline_missing and not facts.unavailable:
        notices.append(f"No baseline: {facts.baseline_missing}")
    for failure in facts.setup_failures:
        notices.append(f"Agent setup failed ({failure}); its cases are recorded as errored (exit code 3).")
    return tuple(warnings), tuple(notices)


def _quote(text: str) -> str:
    """Untrusted text (it may quote an artifact's member names) escaped for one Markdown quote line."""
    from agent_evals.report.escape import escape_untrusted

    return escape_untrusted(text, 1_000, line_break=" ")
