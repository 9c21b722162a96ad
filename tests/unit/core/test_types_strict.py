"""The core types refuse unknown fields, keep the seed's defaults and messages, and Score is immutable."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from agent_evals.core.types import EvalConfig, EvalExample, ExampleData, ExpectedResult, Score, TaskResult

VALID: dict[type[BaseModel], dict[str, Any]] = {
    TaskResult: {"output": "ok"},
    ExpectedResult: {"expected": "ok"},
    ExampleData: {"input": "q"},
    EvalConfig: {},
    Score: {"name": "s", "value": 1.0, "passed": True},
}


@pytest.mark.parametrize(
    ("model", "typo"),
    [
        (TaskResult, "outputs"),
        (TaskResult, "contxt"),
        (ExpectedResult, "expected_state"),
        (ExampleData, "expect"),
        (ExampleData, "outputs"),
        (EvalConfig, "max_concurrent_test"),
        (EvalConfig, "timeout"),
        (Score, "passsed"),
        (Score, "reason"),
    ],
    ids=lambda v: v.__name__ if isinstance(v, type) else v,
)
def test_unknown_field__is_a_validation_error_naming_it(model: type[BaseModel], typo: str) -> None:
    with pytest.raises(ValidationError, match=typo) as info:
        model(**VALID[model], **{typo: 1})
    assert any(e["type"] == "extra_forbidden" for e in info.value.errors())


@pytest.mark.parametrize(("model", "field"), [(TaskResult, "output"), (ExpectedResult, "expected")])
def test_text_field__is_required_like_the_seed(model: type[BaseModel], field: str) -> None:
    with pytest.raises(ValidationError) as info:
        model(context={"outputs": []})
    assert [e["loc"] for e in info.value.errors()] == [(field,)]


def test_example_data__defaults_and_metadata_rules() -> None:
    example = ExampleData(input="q", metadata=None)
    assert (example.expected, example.output, example.metadata) == (None, None, {})
    with pytest.raises(ValidationError, match="'metadata' must be a dict, got str"):
        ExampleData(input="q", metadata="labels")
    with pytest.raises(ValidationError):
        ExampleData.model_validate({"expected": {"expected": "a"}})  # no input


def test_example_data__assignment_is_validated() -> None:
    example = ExampleData(input="q")
    with pytest.raises(ValidationError):
        example.expected = "not an ExpectedResult"  # type: ignore[assignment]


@pytest.mark.parametrize("value", [-0.01, 1.01, float("nan"), float("inf")])
def test_score__value_outside_unit_interval__seed_message(value: float) -> None:
    with pytest.raises(ValidationError, match=r"Score value must be between 0\.0 and 1\.0 \(inclusive\)"):
        Score(name="s", value=value, passed=False)


@pytest.mark.parametrize("value", [0.0, 0.5, 1.0])
def test_score__bounds_are_inclusive(value: float) -> None:
    assert Score(name="s", value=value, passed=True).value == value


def test_score__is_frozen_and_carries_execution_time() -> None:
    score = Score(name="s", value=1.0, passed=True, execution_time_ms=12.5)
    assert score.execution_time_ms == 12.5
    assert Score(name="s", value=1.0, passed=True).execution_time_ms is None
    with pytest.raises(ValidationError, match="frozen"):
        score.passed = False  # type: ignore[misc]


@pytest.mark.parametrize("spelling", ["max_concurrent_tests", "max_concurrency"])
def test_eval_config__concurrency__is_the_max_concurrent_tests_field(spelling: str) -> None:
    assert "max_concurrent_tests" in EvalConfig.model_fields
    assert EvalConfig().max_concurrent_tests == 1
    config = EvalConfig(**{spelling: 5})
    assert (config.max_concurrent_tests, config.max_concurrency) == (5, 5)


@pytest.mark.parametrize("bad", [0, -1])
def test_eval_config__concurrency_below_one__names_the_field(bad: int) -> None:
    with pytest.raises(ValidationError, match=f"max_concurrent_tests must be >= 1, got {bad}"):
        EvalConfig(max_concurrent_tests=bad)


def test_eval_example__seed_construction_and_failure_views() -> None:
    ok = Score(name="ExactMatch", value=1.0, passed=True)
    broken = Score(name="Judge", value=0.0, passed=False, error="timeout")
    example = EvalExample(input="2+2", output="4", expected="4", scores={"ExactMatch": ok}, duration=0.1)
    assert (example.expected, example.error, example.trajectory, example.tool_calls) == (
        "4",
        None,
        None,
        None,
    )
    assert not example.failed and example.scorer_errors == {} and example.passed
    mixed = EvalExample(input="q", output="a", scores={"ExactMatch": ok, "Judge": broken})
    assert mixed.failed and mixed.scorer_errors == {"Judge": "timeout"} and not mixed.passed
    crashed = EvalExample(input="q", error="RuntimeError: down")
    assert crashed.failed and not crashed.passed and crashed.output == ""
