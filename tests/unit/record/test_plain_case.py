"""A case's plain record data, written as it stands, is byte for byte what its record model would write."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agent_evals.benchmark.outcome import CaseOutcome, TrialOutcome
from agent_evals.benchmark.result import case_data
from agent_evals.core.redact import Redactor
from agent_evals.core.types import Score
from agent_evals.evals.case_record import case_record
from agent_evals.evals.result import EvalCaseResult
from agent_evals.evals.scores import EvalScore
from agent_evals.evals.spec import EvalCaseSpec
from agent_evals.record.model import Case
from agent_evals.record.text import model_bytes, plain_bytes
from agent_evals.record.trial import UNCHANGED

SECRET = "sk-plain-secret"
USAGE = {
    "input_tokens": 12,
    "output_tokens": 3,
    "cost_usd": 0.0021,
    "models": {"gpt-4o": {"input_tokens": 12, "output_tokens": 3, "calls": 1}},
    "replayed": {"input_tokens": 12, "calls": 1},
}
ATTEMPT = {
    "error": f"HTTP 429 {SECRET}",
    "duration_s": 0.5,
    "reason": "HTTP 429",
    "usage": {"input_tokens": 4},
}


def _body(ctx: Any) -> None:
    """The eval function of the specs below (never run: the results are given)."""


def _spec(**fields: Any) -> EvalCaseSpec:
    return EvalCaseSpec(
        func=_body, name="test_x", case_key=fields.pop("case_key", "0"), file="e.py", **fields
    )


def _eval(spec: EvalCaseSpec, *results: EvalCaseResult, redact: bool = False) -> dict[str, Any]:
    return case_record(
        spec,
        dict(enumerate(results)),
        suite_id="e.py",
        label="e.py",
        stem="e",
        definition="0123456789abcdef",
        redact=Redactor([SECRET]) if redact else UNCHANGED,
    )


def _scored(**fields: Any) -> EvalCaseResult:
    result = EvalCaseResult(**fields)
    result.add_scores([EvalScore(key="pass", passed=True)], "auto")
    return result


def _failed_scores() -> EvalCaseResult:
    result = EvalCaseResult(input="q", output={"answer": [1, 2.5, None, True]}, duration=0.1234567)
    result.add_scores(
        [
            EvalScore(key="quality", value=0.25, passed=False, notes="too short"),
            EvalScore(key="length", value=3.0),
        ],
        "body",
    )
    return result


def _bench(*trials: TrialOutcome, **fields: Any) -> dict[str, Any]:
    case = CaseOutcome(
        capability="cap", scenario_id="s1", prompt=fields.pop("prompt", "hi"), trials=list(trials)
    )
    for key, value in fields.items():
        setattr(case, key, value)
    return case_data(case)


def _score(**fields: Any) -> Score:
    return Score(**{"name": "output", "value": 0.0, "passed": False, **fields})


CASES: dict[str, Callable[[], dict[str, Any]]] = {
    "eval-trivial-pass": lambda: _eval(_spec(input="0", line=3), _scored(input="0", output="0")),
    "eval-no-line-labels-dataset": lambda: _eval(
        _spec(input=7, reference={"k": "v"}, labels=("slow", "nightly"), dataset="geo"), _scored(output=7)
    ),
    "eval-failed-and-numeric-scores": lambda: _eval(_spec(line=9), _failed_scores()),
    "eval-errored-with-traceback": lambda: _eval(
        _spec(line=1), EvalCaseResult(error="RuntimeError: down", traceback="Traceback ...", duration=2.0)
    ),
    "eval-usage-attempts-cache": lambda: _eval(
        _spec(line=2),
        _scored(
            output="o", usage=USAGE, attempts=[ATTEMPT], cache={"mode": "replay", "replayed": 1}, duration=0.3
        ),
    ),
    "eval-three-trials": lambda: _eval(
        _spec(line=4, trials=3), _scored(output="a"), EvalCaseResult(error="E"), _failed_scores()
    ),
    "eval-secrets-masked": lambda: _eval(
        _spec(input=f"key {SECRET}", line=5),
        _scored(output={"token": SECRET}, attempts=[ATTEMPT]),
        redact=True,
    ),
    "eval-surrogate-and-bytes": lambda: _eval(
        _spec(input="bad \udcff text", line=6), _scored(output=b"\xff\xfeok", usage={"input_tokens": 1})
    ),
    "eval-not-finite-numbers": lambda: _eval(
        _spec(input=float("nan"), reference=[float("inf")], line=8),
        _scored(output={"x": float("-inf")}, usage={"input_tokens": 2, "cost_usd": float("nan")}),
    ),
    "bench-pass": lambda: _bench(
        TrialOutcome(passed=True, scores={"output": _score(value=1.0, passed=True)}, output="ok"), line=4
    ),
    "bench-every-field": lambda: _bench(
        TrialOutcome(
            passed=False,
            scores={
                "state": _score(
                    name="state",
                    reasoning="x",
                    metadata={"failures": [{"path": "a.b", "expected": 1, "actual": 2}]},
                ),
                "judge": _score(name="judge", value=0.5, passed=True, error="judge down"),
            },
            duration_s=1.5,
            output="out",
            usage=USAGE,
            attempts=[ATTEMPT],
            cache={"mode": "record", "recorded": 2},
        ),
        TrialOutcome(passed=False, error="TimeoutError: 30 s", traceback="Traceback ..."),
        name="Scenario one",
        dimensions={"difficulty": "hard"},
        critical=True,
        file="b.yaml",
        line=12,
        expected="the answer",
        definition="fedcba9876543210",
    ),
    "bench-no-location-no-trials": lambda: _bench(prompt="p" * 5000),
}


@pytest.mark.parametrize("build", list(CASES.values()), ids=list(CASES))
def test_plain_bytes__a_case_as_its_builder_gives_it__the_bytes_its_model_writes(
    build: Callable[[], dict[str, Any]],
) -> None:
    data = build()
    assert plain_bytes(data) == model_bytes(Case.model_validate(data))


def test_plain_bytes__a_lone_surrogate__written_as_the_replacement_character() -> None:
    assert plain_bytes({"output": "a\udcffb"}) == '{"output":"a\ufffdb"}'.encode()
