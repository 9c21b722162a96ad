"""Eval scores: every accepted store() form, the replace-by-key rule, and malformed input."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.evals.scores import ACCEPTED_FORMS, EvalScore, InvalidScore, merge_scores, parse_scores


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (True, [EvalScore("pass", passed=True)]),
        (False, [EvalScore("pass", passed=False)]),
        (0.5, [EvalScore("pass", value=0.5)]),
        (7, [EvalScore("pass", value=7.0)]),
        (-3.5, [EvalScore("pass", value=-3.5)]),
        ({"key": "tone", "passed": True}, [EvalScore("tone", passed=True)]),
        ({"key": "sim", "value": 0.9}, [EvalScore("sim", value=0.9)]),
        (
            {"key": "q", "value": 0.72, "passed": True, "notes": "clear"},
            [EvalScore("q", value=0.72, passed=True, notes="clear")],
        ),
        (EvalScore("x", passed=False), [EvalScore("x", passed=False)]),
        ([True, {"key": "b", "value": 2}], [EvalScore("pass", passed=True), EvalScore("b", value=2.0)]),
    ],
)
def test_parse_scores__accepted_form__becomes_eval_scores(raw: Any, expected: list[EvalScore]) -> None:
    assert parse_scores(raw, default_key="pass") == expected


def test_parse_scores__shorthand__uses_the_given_default_key() -> None:
    assert parse_scores(True, default_key="correct") == [EvalScore("correct", passed=True)]


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ("yes", "str"),
        (None, "NoneType"),
        ({"passed": True}, "needs a non-empty string 'key'"),
        ({"key": "a"}, "neither 'passed' nor 'value'"),
        ({"key": "a", "passed": "yes"}, "'passed' must be True or False"),
        ({"key": "a", "value": "high"}, "'value' must be a number"),
        ({"key": "a", "value": True}, "'value' must be a number"),
        ({"key": "a", "value": float("nan")}, "finite"),
        ({"key": "a", "passed": True, "score": 1}, "unknown score field(s) score"),
        ([[True]], "nested lists"),
    ],
)
def test_parse_scores__malformed__raises_listing_every_accepted_form(raw: Any, fragment: str) -> None:
    with pytest.raises(InvalidScore) as info:
        parse_scores(raw, default_key="pass")
    assert fragment in str(info.value)
    assert ACCEPTED_FORMS in str(info.value)


def test_parse_scores__keyless_dict_with_key_not_required__gets_default_key() -> None:
    assert parse_scores({"passed": False}, default_key="pass", key_required=False) == [
        EvalScore("pass", passed=False)
    ]


def test_merge_scores__existing_key__is_replaced_in_place() -> None:
    scores = [EvalScore("a", passed=True), EvalScore("b", value=1.0)]
    merge_scores(scores, [EvalScore("a", passed=False, notes="again"), EvalScore("c", value=2.0)])
    assert scores == [
        EvalScore("a", passed=False, notes="again"),
        EvalScore("b", value=1.0),
        EvalScore("c", value=2.0),
    ]
