"""`ci`'s outcome as data: the precedence of the facts, read as a table (ci/outcome.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from agent_evals.ci.outcome import PRECEDENCE, Facts, Outcome, decide

COMMENT = "<!-- agent-evals:gate:g -->\n### ❌ agent-evals: gate failed\n\nthe cases\n"
SUMMARY = "<!-- agent-evals:gate:g -->\n### ❌ agent-evals: gate failed\n\nthe cases, all of them\n"
DIED = "The suites did not finish: `agent-evals run` was killed by SIGKILL after recording 2 cases.\n"
LABEL = "agent-evals:accept-regression"

# One fact each, on top of a compared run whose verdict is "fail" (exit 1).
FACT: dict[str, dict[str, Any]] = {
    "unavailable": {"unavailable": "GitHub answered 502 for the baseline"},
    "died": {"died": DIED},
    "setup": {"setup_failures": ("bench: ValueError: no key",)},
    "interrupted": {"interrupted": 2},  # SIGINT
    "no-record": {"recorded": False},
    "incomplete": {"incomplete": True, "gate_exit": 3},
    "accepted": {"accepted": True},
}
SAYS = {
    "unavailable": "no verdict: GitHub gave no usable answer for the baseline",
    "died": "killed by SIGKILL after recording 2 cases",
    "setup": "Agent setup failed (bench: ValueError: no key)",
    "accepted": f"Regression accepted with the {LABEL!r} label",
    "verdict": "gate failed",
}

# facts (joined by +) -> exit code, status output, the rule that gave the exit code, a line it says.
# Every pair of facts is here: each row says which of the two wins the exit code and the status.
TABLE: list[tuple[str, int, str, str, str]] = [
    ("", 1, "fail", "verdict", SAYS["verdict"]),
    ("unavailable", 3, "error", "github-unavailable", SAYS["unavailable"]),
    ("died", 3, "fail", "died", SAYS["died"]),
    ("setup", 3, "fail", "setup-failed", SAYS["setup"]),
    ("interrupted", 130, "fail", "interrupted", SAYS["verdict"]),
    ("no-record", 3, "error", "no-record", SAYS["verdict"]),
    ("incomplete", 3, "incomplete", "verdict", SAYS["verdict"]),
    ("accepted", 0, "accepted", "accepted", SAYS["accepted"]),
    ("unavailable+died", 3, "error", "github-unavailable", SAYS["died"]),
    ("unavailable+setup", 3, "error", "github-unavailable", SAYS["setup"]),
    ("unavailable+interrupted", 3, "error", "github-unavailable", SAYS["unavailable"]),
    ("unavailable+no-record", 3, "error", "github-unavailable", SAYS["unavailable"]),
    ("unavailable+incomplete", 3, "error", "github-unavailable", SAYS["unavailable"]),
    ("unavailable+accepted", 3, "error", "github-unavailable", SAYS["unavailable"]),
    ("died+setup", 3, "fail", "died", SAYS["setup"]),
    ("died+interrupted", 3, "fail", "died", SAYS["died"]),
    ("died+no-record", 3, "error", "died", SAYS["died"]),
    ("died+incomplete", 3, "incomplete", "died", SAYS["died"]),
    ("died+accepted", 3, "accepted", "died", SAYS["accepted"]),
    ("setup+interrupted", 3, "fail", "setup-failed", SAYS["setup"]),
    ("setup+no-record", 3, "error", "setup-failed", SAYS["setup"]),
    ("setup+incomplete", 3, "incomplete", "setup-failed", SAYS["setup"]),
    ("setup+accepted", 3, "accepted", "setup-failed", SAYS["accepted"]),
    ("interrupted+no-record", 130, "error", "interrupted", SAYS["verdict"]),
    ("interrupted+incomplete", 130, "incomplete", "interrupted", SAYS["verdict"]),
    ("interrupted+accepted", 130, "accepted", "interrupted", SAYS["accepted"]),
    ("no-record+incomplete", 3, "error", "no-record", SAYS["verdict"]),
    ("no-record+accepted", 3, "error", "no-record", SAYS["accepted"]),
    ("incomplete+accepted", 0, "incomplete", "accepted", SAYS["accepted"]),
]


def _facts(names: str, **more: Any) -> Facts:
    fields: dict[str, Any] = {"gate_exit": 1, "verdict": "fail", "comment": True, "accept_label": LABEL}
    for name in filter(None, names.split("+")):
        fields.update(FACT[name])
    return Facts(**{**fields, **more})


def _everything_said(outcome: Outcome) -> str:
    lines = [outcome.comment_md, outcome.job_summary, outcome.died or "", outcome.no_verdict or ""]
    return "\n".join([*lines, *outcome.warnings, *outcome.notices])


def test_table__covers_every_pair_of_facts() -> None:
    names = list(FACT)
    pairs = {f"{a}+{b}" for i, a in enumerate(names) for b in names[i + 1 :]}
    assert pairs <= {row[0] for row in TABLE}


@pytest.mark.parametrize(("names", "exit_code", "status", "decided_by", "says"), TABLE, ids=lambda v: v)
def test_decide__facts__exit_code_status_and_message_by_precedence(
    names: str, exit_code: int, status: str, decided_by: str, says: str
) -> None:
    outcome = decide(_facts(names), comment_md=COMMENT, summary_md=SUMMARY)

    assert (outcome.exit_code, outcome.status, outcome.decided_by) == (exit_code, status, decided_by)
    assert says in _everything_said(outcome)


def test_precedence__is_one_ordered_list__highest_first() -> None:
    assert [rule.name for rule in PRECEDENCE] == [
        "github-unavailable",
        "died",
        "setup-failed",
        "interrupted",
        "no-record",
        "incomplete",
        "accepted",
        "verdict",
    ]
    last = PRECEDENCE[-1]
    assert last.holds(Facts()) and last.exit_code is not None and last.status is not None


@pytest.mark.parametrize(("signal", "exit_code"), [(2, 130), (15, 143)])
def test_decide__cancelled__exits_128_plus_the_signal(signal: int, exit_code: int) -> None:
    outcome = decide(_facts("interrupted", interrupted=signal), comment_md=COMMENT, summary_md=SUMMARY)

    assert outcome.exit_code == exit_code


@pytest.mark.parametrize(
    ("names", "gate_exit", "comment", "verdict"),
    [
        ("", 1, True, True),
        ("accepted", 1, True, True),  # comment: on-failure still creates it: the gate failed
        ("unavailable", 3, True, True),
        ("interrupted", 1, False, True),  # cancelled: the comment is left alone (no network)
        ("no-record", 3, True, False),  # the report already says "no verdict"
        ("interrupted+no-record", 3, False, False),
    ],
)
def test_decide__facts__what_the_comment_follows(
    names: str, gate_exit: int, comment: bool, verdict: bool
) -> None:
    facts = _facts(names)
    if "no-record" in names:
        facts = dataclasses.replace(facts, gate_exit=3)
    outcome = decide(facts, comment_md=COMMENT, summary_md=SUMMARY)

    assert (outcome.gate_exit, outcome.comment, outcome.verdict) == (gate_exit, comment, verdict)


@pytest.mark.parametrize(
    ("more", "warnings", "notices"),
    [
        ({"baseline_missing": "no artifact yet"}, [], ["No baseline: no artifact yet"]),
        ({"baseline_missing": "no artifact", "unavailable": "502"}, [], []),  # unknown, not missing
        ({"baseline_unreadable": "corrupt zip", "baseline_missing": "corrupt zip"}, ["corrupt zip"], []),
        (
            {"label_notices": ("label unreadable",), "accepted": True, "baseline_missing": "first run",
             "setup_failures": ("b: no key",)},
            [],
            [
                "label unreadable",
                f"Regression accepted with the {LABEL!r} label: the gate failed, and the pull request may "
                "merge because the label acknowledges it (exit code 0).",
                "No baseline: first run",
                "Agent setup failed (b: no key); its cases are recorded as errored (exit code 3).",
            ],
        ),
    ],
)  # fmt: skip
def test_decide__facts__warnings_and_notices_in_order(
    more: dict[str, Any], warnings: list[str], notices: list[str]
) -> None:
    outcome = decide(_facts("", **more), comment_md=COMMENT, summary_md=SUMMARY)

    assert (list(outcome.warnings), list(outcome.notices)) == (warnings, notices)


def test_decide__github_unavailable__comment_and_summary_say_no_verdict_keeping_the_results() -> None:
    outcome = decide(_facts("unavailable"), comment_md=COMMENT, summary_md=SUMMARY)

    for markdown in (outcome.comment_md, outcome.summary_md):
        head = markdown.splitlines()
        assert head[0] == "<!-- agent-evals:gate:g -->"
        assert head[1].startswith("### ⛔ agent-evals: no verdict: GitHub gave no usable answer")
        assert "gate failed" not in markdown
    assert "the cases" in outcome.comment_md
    assert outcome.no_verdict == "GitHub answered 502 for the baseline"


def test_decide__died__its_report_follows_the_results_and_its_first_line_is_the_error() -> None:
    outcome = decide(_facts("died"), comment_md=COMMENT, summary_md=SUMMARY)

    assert outcome.comment_md.startswith(COMMENT.rstrip("\n")) and outcome.comment_md.endswith(DIED)
    assert outcome.summary_md == SUMMARY + "\n" + DIED
    assert outcome.died == DIED.splitlines()[0]


def test_decide__warnings_and_notices__follow_the_report_in_the_job_summary_only() -> None:
    facts = _facts("", baseline_unreadable="bad `zip`\nsecond line", label_notices=("a note",))
    outcome = decide(facts, comment_md=COMMENT, summary_md=SUMMARY)

    assert outcome.comment_md == COMMENT and outcome.summary_md == SUMMARY
    assert outcome.job_summary.startswith(SUMMARY + "\n> [!WARNING]\n> bad")
    assert outcome.job_summary.endswith("\n> [!NOTE]\n> a note\n")


def test_decide__nothing_else__the_report_stands_as_rendered() -> None:
    outcome = decide(_facts(""), comment_md=COMMENT, summary_md=SUMMARY)

    assert (outcome.comment_md, outcome.summary_md, outcome.job_summary) == (COMMENT, SUMMARY, SUMMARY)
    assert (outcome.died, outcome.no_verdict, outcome.warnings, outcome.notices) == (None, None, (), ())
