"""Aggregation: errored examples fail every scorer; absent scores are skipped; no vacuous passes."""

from __future__ import annotations

import pytest

from agent_evals.core.aggregate import aggregate
from agent_evals.core.types import ExampleResult, Score


def example(index: int, error: str | None = None, **scores: tuple[float, bool]) -> ExampleResult:
    return ExampleResult(
        index=index,
        input=index,
        error=error,
        scores={name: Score(name=name, value=v, passed=p) for name, (v, p) in scores.items()},
    )


def test_aggregate__heterogeneous_scorer_sets__example_without_scorer_is_skipped() -> None:
    examples = [example(0, a=(1.0, True), b=(0.0, False)), example(1, a=(0.5, False))]
    pass_rates, means, summary = aggregate(examples, ["a", "b"])
    assert pass_rates == {"a": 0.5, "b": 0.0}
    assert means == {"a": 0.75, "b": 0.0}
    # scored "no" is still a successful example; none of them passed every scorer
    assert summary == {
        "total_examples": 2,
        "successful_examples": 2,
        "failed_examples": 0,
        "passed_examples": 0,
        "errored_examples": 0,
    }


def test_aggregate__errored_example__counts_failed_for_every_scorer() -> None:
    examples = [example(0, a=(1.0, True), b=(1.0, True)), example(1, error="TimeoutError")]
    pass_rates, means, summary = aggregate(examples, ["a", "b"])
    assert pass_rates == {"a": 0.5, "b": 0.5}
    assert means == {"a": 0.5, "b": 0.5}
    assert (summary["successful_examples"], summary["failed_examples"], summary["errored_examples"]) == (
        1,
        1,
        1,
    )


@pytest.mark.parametrize("examples", [[], [ExampleResult(index=0, input=0, error="boom")]])
def test_aggregate__nothing_scored__reports_zero_not_vacuous_pass(examples: list[ExampleResult]) -> None:
    pass_rates, means, _ = aggregate(examples, ["a"])
    assert pass_rates == {"a": 0.0}
    assert means == {"a": 0.0}


def test_aggregate__errored_score__never_counts_as_pass() -> None:
    broken = ExampleResult(
        index=0, input=0, scores={"a": Score(name="a", value=0.0, passed=False, error="raised")}
    )
    assert aggregate([broken], ["a"])[0] == {"a": 0.0}
