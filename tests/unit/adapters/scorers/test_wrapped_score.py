"""Raw third-party verdicts become Scores: unit values, threshold semantics, clear failures."""

from __future__ import annotations

import math

import pytest

from agent_evals.adapters.scorers.wrapped_score import check_threshold, json_safe, threshold_score, unit_value


@pytest.mark.parametrize(
    ("raw", "value"),
    [(True, 1.0), (False, 0.0), (1, 1.0), (0, 0.0), (0.25, 0.25), ("0.5", 0.5)],
)
def test_unit_value__bool_int_float__normalised_to_unit_interval(raw: object, value: float) -> None:
    assert unit_value(raw) == value


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (None, "no score"),
        (1.5, "outside"),
        (-0.1, "outside"),
        (math.nan, "outside"),
        ("high", "not a number"),
    ],
)
def test_unit_value__none_nan_or_out_of_range__refused(raw: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        unit_value(raw)


@pytest.mark.parametrize(
    ("value", "threshold", "passed"),
    [
        (0.7, 0.7, True),
        (0.69, 0.7, False),
        (1.0, 1.0, True),
        (0.0, 0.0, True),
        (True, 1.0, True),
        (False, 0.5, False),
    ],
)
def test_threshold_score__passed_is_value_at_least_threshold(
    value: object, threshold: float, passed: bool
) -> None:
    score = threshold_score("S", value, threshold)
    assert (score.name, score.passed, score.error) == ("S", passed, None)
    assert score.metadata["_threshold"] == threshold  # the seed's key


def test_threshold_score__none__failing_score_with_error() -> None:
    score = threshold_score("Factuality", None, 0.7, reasoning="why")
    assert (score.value, score.passed) == (0.0, False)
    assert score.error == "Factuality: the scorer returned no score (None)"
    assert score.reasoning == "why"


@pytest.mark.parametrize("threshold", [-0.1, 1.01, "0.5", True, None])
def test_check_threshold__outside_unit_interval_or_not_a_number__refused(threshold: object) -> None:
    with pytest.raises(ValueError, match="ExactMatch: threshold must be"):
        check_threshold(threshold, "ExactMatch")


def test_json_safe__tuples_sets_and_objects__become_json_types() -> None:
    assert json_safe({"pairs": [("a", "b", 0.5)], 1: {2}, "x": object}) == {
        "pairs": [["a", "b", 0.5]],
        "1": [2],
        "x": str(object),
    }
