"""The one trial writer (record/trial.py): one output limit, and one trial recorded alike by every layer."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest

from agent_evals import Score, TaskResult, run_eval_async
from agent_evals.benchmark.result import BenchmarkResult, CaseOutcome, TrialOutcome
from agent_evals.core.redact import Redactor
from agent_evals.core.types import ExampleData
from agent_evals.evals.result import EvalCaseResult
from agent_evals.evals.scores import EvalScore
from agent_evals.record.model import Trial
from agent_evals.record.trial import TEXT_LIMIT, ScoreData, text_data, trial_data


class _BrokenRepr:
    def __repr__(self) -> str:
        raise RuntimeError("session closed")


SECRET = "sk-very-secret-value"
REDACT = Redactor([SECRET])


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, (None, None)),
        ("short", ("short", None)),
        ("x" * (TEXT_LIMIT + 10), ("x" * TEXT_LIMIT, None)),
        (True, ("true", True)),
        (7, ("7", 7)),
        (0.5, ("0.5", 0.5)),
        ({"b": 1, "a": "é"}, ('{"b": 1, "a": "é"}', {"b": 1, "a": "é"})),
        (["z" * TEXT_LIMIT], ('["' + "z" * (TEXT_LIMIT - 2), ["z" * TEXT_LIMIT])),
        ({1, 2}, ("{1, 2}", None)),
        (f"key {SECRET}", ("key ***", None)),
        ({"key": SECRET}, ('{"key": "***"}', {"key": "***"})),
        (_BrokenRepr(), ("<_BrokenRepr object: its repr raised RuntimeError>", None)),
        ([_BrokenRepr()], ("<list object: its repr raised RuntimeError>", None)),
    ],
    ids=[
        "none",
        "text",
        "long-text-cut",
        "bool",
        "int",
        "float",
        "json",
        "long-json-cut",
        "not-json",
        "secret",
        "secret-json",
        "repr-raises",  # code under test's object: the run goes on, the record says what it was
        "repr-raises-inside",
    ],
)
def test_text_data__each_kind_of_value__text_cut_at_the_limit_and_json_kept(
    value: Any, expected: Any
) -> None:
    assert text_data(value, REDACT) == expected


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({"passed": True, "error": "Boom: down"}, {"passed": False, "error": "Boom: down"}),
        ({"passed": True, "scores": {"s": ScoreData(passed=True, error="x")}}, {"scores": {"s": False}}),
        ({"passed": True, "scores": {"s": ScoreData(passed=None, value=2.0)}}, {"scores": {"s": None}}),
        ({"passed": True, "duration_s": 0.12345678}, {"duration_s": 0.123457}),
        ({"passed": False, "error": f"E: {SECRET}"}, {"error": "E: ***"}),
        ({"passed": False, "attempts": [{"error": SECRET, "duration_s": 1.0}]}, {"attempts": ["***"]}),
        ({"passed": True}, {"attempts": None, "usage": None, "cache": None}),
    ],
    ids=[
        "error-never-passes",
        "erroring-score-fails",
        "numeric-score",
        "duration-rounded",
        "error-masked",
        "attempts-masked",
        "nothing-optional",
    ],
)
def test_trial_data__one_trial__recorded_by_the_rules(
    given: dict[str, Any], expected: dict[str, Any]
) -> None:
    values: dict[str, Any] = {"error": None, "scores": {}, "duration_s": 0.0, "output": "o", **given}
    data = trial_data(**values, redact=REDACT)
    assert None not in data.values()  # a field that is None is left out, as the record writes it
    for key, want in expected.items():
        got = data.get(key)
        if key == "scores":
            got = {name: score.get("passed") for name, score in got.items()}
        elif key == "attempts" and got is not None:
            got = [a["error"] for a in got]
        assert got == want, key
    Trial.model_validate(data)  # what it writes is a valid trial


@dataclass
class Same:
    """One trial as every layer sees it: the agent's output, one score (or none), an error, usage."""

    output: str
    passed: bool | None = None
    value: float = 0.0
    notes: str | None = None
    error: str | None = None
    usage: dict[str, Any] | None = field(default_factory=lambda: {"input_tokens": 3, "output_tokens": 1})


DURATION = 0.25


def _by_eval(same: Same) -> dict[str, Any]:
    result = EvalCaseResult(
        input="q", output=same.output, error=same.error, duration=DURATION, usage=same.usage
    )
    if same.passed is not None:
        result.add_scores(
            [EvalScore(key="quality", value=same.value, passed=same.passed, notes=same.notes)], "body"
        )
    return _seen(Trial.model_validate(result.trial_data()))


def _by_benchmark(same: Same) -> dict[str, Any]:
    scores = {}
    if same.passed is not None:
        scores["quality"] = Score(name="quality", value=same.value, passed=same.passed, reasoning=same.notes)
    trial = TrialOutcome(
        passed=bool(same.passed) and same.error is None,
        error=same.error,
        scores=scores,
        duration_s=DURATION,
        output=same.output,
        usage=same.usage,
    )
    case = CaseOutcome(capability="c", scenario_id="1", prompt="q", trials=[trial])
    result = BenchmarkResult("b", "b.yaml", None, None, 1, [case])
    return _seen(result.to_run_record().suites[0].cases[0].trials[0])


def _by_run_eval(same: Same) -> dict[str, Any]:
    def task(prompt: Any) -> TaskResult:
        if same.error is not None:
            raise RuntimeError(same.error.removeprefix("RuntimeError: "))
        return TaskResult(output=same.output, context={"usage": same.usage})

    def quality(result: TaskResult, expected: Any = None) -> Score:
        assert same.passed is not None
        return Score(name="quality", value=same.value, passed=same.passed, reasoning=same.notes)

    result = asyncio.run(run_eval_async(task, [ExampleData(input="q")], [quality]))  # not called on an error
    result.examples[0].duration = DURATION  # the time the run measured, made the table's
    return _seen(result.to_run_record().suites[0].cases[0].trials[0])


def _seen(trial: Trial) -> dict[str, Any]:
    """The trial's fields every layer has (an eval score's ``source`` is the evals' own)."""
    data = trial.model_dump(mode="json", exclude_none=True)
    for score in data["scores"].values():
        score.pop("source", None)
    return data


@pytest.mark.parametrize(
    "same",
    [
        Same(output="y" * (TEXT_LIMIT + 7), passed=True, value=1.0),
        Same(output="short", passed=False, value=0.0, notes="too short", usage={"input_tokens": 5}),
        Same(output="", error="RuntimeError: agent down", usage=None),
    ],
    ids=["long-output-passes", "failing-score-with-notes", "task-errored"],
)
def test_trial_writer__same_trial_from_eval_benchmark_and_run_eval__recorded_alike(same: Same) -> None:
    by_eval, by_benchmark, by_run_eval = _by_eval(same), _by_benchmark(same), _by_run_eval(same)
    assert by_eval == by_benchmark == by_run_eval
    assert by_eval["output"] == same.output[:TEXT_LIMIT]
    assert by_eval["passed"] is bool(same.passed and same.error is None)
