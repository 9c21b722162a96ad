"""The scoring seed's four Python snippets (examples/eval_scoring.py) behave as the seed describes."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from agent_evals.evals.discovery import import_eval_file
from agent_evals.evals.result import EvalCaseResult
from agent_evals.evals.scores import EvalScore

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.fixture(scope="module")
def scoring() -> ModuleType:
    return import_eval_file(EXAMPLES / "eval_scoring.py")


def test_assertion_snippet__passes_with_the_offline_support_agent(scoring: ModuleType) -> None:
    result = scoring.test_refund()
    assert result.passed and result.scores == [EvalScore("pass", passed=True)]
    assert scoring.test_refund.specs()[0].dataset == "support"


def test_explicit_scores_snippet__stores_three_named_scores(scoring: ModuleType) -> None:
    result = scoring.test_quantum_explanation()
    by_key = {s.key: s for s in result.scores}
    assert list(by_key) == ["relevance", "similarity", "quality"]
    assert by_key["relevance"].passed is True and by_key["relevance"].value is None
    assert by_key["similarity"].passed is None and 0 < (by_key["similarity"].value or 0) <= 1
    assert by_key["quality"] == EvalScore("quality", value=0.72, passed=True, notes="Judge: clear but long")
    assert result.passed  # the numeric-only similarity score does not decide


def test_evaluator_snippet__adds_a_json_score_after_the_body(scoring: ModuleType) -> None:
    result = scoring.test_user_lookup()
    assert result.output == '{"id": 42, "name": "user-42"}'
    # the body ended without a score, so it got the automatic pass; the evaluator's score sits beside it
    assert result.scores == [EvalScore("pass", passed=True), EvalScore("json", passed=True)]


def test_valid_json_evaluator__reports_parse_error_as_notes(scoring: ModuleType) -> None:
    verdict = scoring.valid_json(EvalCaseResult(output="not json"))
    assert verdict["key"] == "json" and verdict["passed"] is False
    assert "Expecting value" in verdict["notes"]
