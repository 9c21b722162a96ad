"""The scorer name registry behind YAML `{type: Name, ...args}` references."""

from __future__ import annotations

import pytest

from agent_evals.adapters.scorers.registry import build_scorer, names
from agent_evals.adapters.scorers.state import StateMatch
from agent_evals.errors import UnknownScorer, UsageError


def test_names__lists_native_autoevals_and_agentevals_scorers() -> None:
    listed = names()
    for name in ("StateMatch", "ToolCallAnyMatch", "Factuality", "ValidJSON", "TrajectoryStrictMatch"):
        assert name in listed
    assert listed == sorted(listed)


def test_build_scorer__native_with_arguments() -> None:
    scorer = build_scorer({"type": "StateMatch", "expected_state": {"a": 1}}, where="x")
    assert isinstance(scorer, StateMatch)


def test_build_scorer__unknown_name__suggests_close_names() -> None:
    with pytest.raises(
        UnknownScorer, match=r"^here: unknown scorer 'ToolCallExcatMatch'\. Did you mean 'ToolCallExactMatch'"
    ):
        build_scorer({"type": "ToolCallExcatMatch"}, where="here")


def test_build_scorer__bad_arguments__usage_error_naming_the_scorer() -> None:
    with pytest.raises(UsageError, match="invalid arguments for scorer 'StateMatch'"):
        build_scorer({"type": "StateMatch", "no_such_arg": 1}, where="here")


def test_build_scorer__spec_without_type__usage_error() -> None:
    with pytest.raises(UsageError, match="mapping with `type: Name`"):
        build_scorer({"name": "x"}, where="here")


def test_build_scorer__autoevals_heuristic_builds_lazily() -> None:
    scorer = build_scorer({"type": "ExactMatch"}, where="here")
    assert callable(scorer)
