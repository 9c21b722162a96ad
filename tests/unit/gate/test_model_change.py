"""A suite's models in two runs: a change is a fingerprint reason under on_mismatch, one side only a note."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.gate.compare import compare_documents
from agent_evals.gate.model import Comparison
from agent_evals.gate.model_change import model_changes
from agent_evals.gate.policy import resolve_policy
from agent_evals.report.headline import headline
from agent_evals.report.html import render_html
from agent_evals.report.markdown import render_markdown
from agent_evals.report.terminal import render_terminal
from agent_evals.report.verdict_json import verdict_document

A, MINI = ["gpt-4o"], ["gpt-4o-mini"]


@pytest.mark.parametrize(
    ("base", "cand", "changes", "notes"),
    [
        ({"agent": A}, {"agent": MINI}, ["model gpt-4o -> gpt-4o-mini"], []),
        ({"judge": MINI}, {"judge": A}, ["judge model gpt-4o-mini -> gpt-4o"], []),
        (
            {"agent": A, "judge": A},
            {"agent": MINI, "judge": MINI},
            ["model gpt-4o -> gpt-4o-mini", "judge model gpt-4o -> gpt-4o-mini"],
            [],
        ),
        ({"agent": A}, {"agent": A}, [], []),
        ({"agent": ["a", "b"]}, {"agent": ["a"]}, ["model b, a -> a"], []),  # a model dropped is a change
        # the names only one side has come first, so a long list still shows the difference
        (
            {"agent": ["a", "b", "c", "d"]},
            {"agent": ["a", "b", "c", "z"]},
            ["model d, a, b (+1 more) -> z, a, b (+1 more)"],
            [],
        ),
        (None, {"agent": MINI}, [], ["Suite s: model gpt-4o-mini now, none recorded in the baseline"]),
        ({"agent": A}, None, [], ["Suite s: model gpt-4o in the baseline, none recorded now"]),
        ({"agent": A}, {"judge": A}, [], ["model gpt-4o in the baseline", "judge model gpt-4o now"]),
        (None, None, [], []),
        ({"agent": []}, {"agent": ["unknown", " "]}, [], []),  # nothing that names a model on either side
    ],
)
def test_model_changes__both_sides_a_change__one_side_a_note(
    base: Any, cand: Any, changes: list[str], notes: list[str]
) -> None:
    found, said = model_changes(base, cand, "s")
    assert found == changes
    assert len(said) == len(notes) and all(n in s for n, s in zip(notes, said, strict=True))


def _doc(models: Any, *, tool: str = "0.1.0") -> dict[str, Any]:
    cases = [
        {"id": f"g/c{i}", "group": "g", "trials": [{"passed": True, "scores": {"check": {"passed": True}}}]}
        for i in range(20)
    ]
    suite: dict[str, Any] = {
        "id": "s",
        "kind": "benchmark",
        "source": "s.yaml",
        "fingerprint": "fp",
        "cases": cases,
    }
    if models is not None:
        suite["models"] = models
    return {
        "schema": "agent-evals/run@1",
        "run": {"tool_version": tool, "started_at": "t"},
        "suites": [suite],
    }


def _compare(base: Any, cand: Any, **flags: Any) -> Comparison:
    policy = resolve_policy(repo_config=None, suite_blocks={}, overrides=flags)
    return compare_documents(_doc(base), _doc(cand), policy)


@pytest.mark.parametrize(("mismatch", "outcome", "code"), [("warn", "warn", 0), ("fail", "fail", 1)])
def test_compare__model_swapped__fingerprint_reason_under_on_mismatch(
    mismatch: str, outcome: str, code: int
) -> None:
    result = _compare({"agent": A}, {"agent": MINI}, on_mismatch=mismatch)
    assert (result.outcome, result.exit_code) == (outcome, code)
    (reason,) = result.reasons
    assert reason.kind == "fingerprint" and reason.blocking is (mismatch == "fail")
    assert "Models differ: model gpt-4o -> gpt-4o-mini." in reason.message
    assert result.suites[0].fingerprint.matches is False and result.info == []


@pytest.mark.parametrize(("base", "cand"), [(None, {"agent": MINI}), ({"agent": A}, None)])
def test_compare__model_on_one_side_only__a_note_in_every_report_and_the_usual_verdict(
    base: Any, cand: Any
) -> None:
    result = _compare(base, cand, on_mismatch="fail")
    assert (result.verdict, result.outcome, result.exit_code, result.reasons) == ("passed", "pass", 0, [])
    assert result.suites[0].fingerprint.matches is True
    (note,) = result.info
    assert note.startswith("Suite s: model gpt-4o")
    assert "(model recorded on one side only in 1 suite) · gate passed" in headline(result)
    assert f"ℹ️ {note}" in render_markdown(result)
    assert note in render_terminal(result, width=400)
    assert note in render_html(result)
    assert note in verdict_document(result)["notes"]


def test_compare__model_swap_and_a_long_agent_change__model_named_first() -> None:
    base, cand = _doc({"agent": A}), _doc({"agent": MINI})
    base["suites"][0]["agent"] = {"name": "x" * 600}
    policy = resolve_policy(repo_config=None, suite_blocks={}, overrides={})
    (reason,) = compare_documents(base, cand, policy).reasons
    assert reason.message.index("model gpt-4o -> gpt-4o-mini") < reason.message.index("Agent name differs")
