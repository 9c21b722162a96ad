"""Evaluators add scores and never replace a failing one; two keyless scores in one store are refused."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from agent_evals.evals.context import EvalContext
from agent_evals.evals.regrade import regrade_record
from agent_evals.evals.scores import InvalidScore
from agent_evals.record.model import Trial
from agent_evals.run.session import RunBuilder, run_paths

SOURCE = """
from agent_evals import eval, EvalContext

def keyless_pass(result):
    return {{"passed": True}}

def bare_true(result):
    return True

def keyless_fail(result):
    return {{"passed": False}}

def keyless_number(result):
    return {{"value": 0.3}}

def nothing(result):
    return None

def two_keyless(result):
    return [True, False]

@eval(evaluators=[{evaluators}])
def test_it(ctx: EvalContext):
    ctx.output = "answer"
    {body}
"""


def _trial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str, evaluators: str) -> Trial:
    monkeypatch.chdir(tmp_path)
    text = textwrap.dedent(SOURCE.format(body=body, evaluators=evaluators))
    (tmp_path / "eval_rule.py").write_text(text, encoding="utf-8")
    record = run_paths(["eval_rule.py"], builder=RunBuilder(env={}))
    (trial,) = record.suites[0].cases[0].trials
    return trial


def _scores(trial: Trial) -> dict[str, tuple[Any, Any, Any]]:
    return {key: (s.passed, s.value, s.source) for key, s in trial.scores.items()}


@pytest.mark.parametrize(
    ("body", "evaluators", "passed", "scores"),
    [
        pytest.param(
            'assert False, "wrong"',
            "keyless_pass",
            False,
            {"pass": (False, None, "body"), "pass#2": (True, None, "evaluator")},
            id="a-keyless-pass-after-a-failed-assertion",
        ),
        pytest.param(
            'ctx.store(scores={"key": "pass", "passed": False})',
            "bare_true",
            False,
            {"pass": (False, None, "body"), "pass#2": (True, None, "evaluator")},
            id="a-bare-true-after-a-failed-stored-score",
        ),
        pytest.param(
            "pass",
            "keyless_fail, keyless_pass",
            False,
            {
                "pass": (True, None, "auto"),
                "pass#2": (False, None, "evaluator"),
                "pass#3": (True, None, "evaluator"),
            },
            id="a-keyless-pass-after-an-earlier-evaluators-failure",
        ),
        pytest.param(
            "pass",
            "keyless_pass",
            True,
            {"pass": (True, None, "auto"), "pass#2": (True, None, "evaluator")},
            id="a-keyless-pass-on-a-clean-result",
        ),
        pytest.param(
            "pass",
            "nothing",
            True,
            {"pass": (True, None, "auto")},
            id="no-score-at-all-gets-the-automatic-pass",
        ),
        pytest.param(
            "pass",
            "keyless_number",
            True,
            {"pass": (True, None, "auto"), "pass#2": (None, 0.3, "evaluator")},
            id="a-keyless-number-sits-beside-the-automatic-pass",
        ),
        pytest.param(
            "ctx.store(scores=True)",
            "keyless_number",
            True,
            {"pass": (True, None, "body"), "pass#2": (None, 0.3, "evaluator")},
            id="a-keyless-number-next-to-a-stored-pass",
        ),
    ],
)
def test_evaluator_score__never_replaces_an_earlier_score(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    body: str,
    evaluators: str,
    passed: bool,
    scores: dict[str, tuple[Any, Any, Any]],
) -> None:
    trial = _trial(tmp_path, monkeypatch, body, evaluators)
    assert trial.error is None
    assert trial.passed is passed
    assert _scores(trial) == scores


def test_evaluator_returning_two_keyless_scores__makes_the_result_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trial = _trial(tmp_path, monkeypatch, "pass", "two_keyless")
    assert trial.passed is False
    assert trial.error is not None and "two_keyless" in trial.error and "give each a 'key'" in trial.error


@pytest.mark.parametrize(
    ("body", "first", "later", "passed"),
    [
        pytest.param(
            'assert False, "wrong"', "nothing", "keyless_pass", False, id="after-a-failed-assertion"
        ),
        pytest.param(
            'ctx.store(scores={"key": "q", "passed": False})',
            "nothing",
            "bare_true",
            False,
            id="after-a-failed-stored-score",
        ),
        pytest.param(
            "pass", "keyless_fail", "keyless_fail, keyless_pass", False, id="after-an-evaluator-failure"
        ),
        pytest.param(
            "pass", "nothing", "keyless_number", True, id="the-automatic-pass-is-kept-beside-a-number"
        ),
        pytest.param("pass", "nothing", "keyless_pass", True, id="a-clean-result"),
    ],
)
def test_regrade__an_evaluator_pass_never_replaces_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str, first: str, later: str, passed: bool
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "eval_rule.py"
    path.write_text(textwrap.dedent(SOURCE.format(body=body, evaluators=first)), encoding="utf-8")
    record = run_paths(["eval_rule.py"], builder=RunBuilder(env={}))
    path.write_text(textwrap.dedent(SOURCE.format(body=body, evaluators=later)), encoding="utf-8")
    fresh = run_paths(["eval_rule.py"], builder=RunBuilder(env={}))
    regraded, _ = regrade_record(record, cwd=tmp_path, env={})
    (trial,) = regraded.suites[0].cases[0].trials
    (fresh_trial,) = fresh.suites[0].cases[0].trials
    assert trial.passed is passed
    assert trial.passed is fresh_trial.passed  # a regrade scores as a new run would
    assert _scores(trial) == _scores(fresh_trial)


@pytest.mark.parametrize(
    "scores",
    [
        pytest.param([False, True], id="two-bare-booleans"),
        pytest.param([0.2, 0.9], id="two-bare-numbers"),
        pytest.param([True, 0.5], id="a-boolean-and-a-number"),
        pytest.param([False, {"passed": True}], id="a-boolean-and-a-dict-without-key"),
    ],
)
def test_store__two_keyless_scores_in_one_call__refused_naming_both(scores: list[Any]) -> None:
    ctx = EvalContext()
    with pytest.raises(
        InvalidScore, match=r"store\(scores=\.\.\.\)\[0\], store\(scores=\.\.\.\)\[1\] have no key"
    ):
        ctx.store(scores=scores)
    assert ctx.scores == []  # nothing half-stored


@pytest.mark.parametrize(
    ("scores", "kept"),
    [
        pytest.param(
            [False, {"key": "tone", "passed": True}], {"pass": False, "tone": True}, id="one-keyless"
        ),
        pytest.param(
            [{"key": "a", "passed": True}, {"key": "b", "passed": False}],
            {"a": True, "b": False},
            id="all-keyed",
        ),
    ],
)
def test_store__at_most_one_keyless_score__accepted(scores: list[Any], kept: dict[str, bool]) -> None:
    ctx = EvalContext()
    ctx.store(scores=scores)
    assert {s.key: s.passed for s in ctx.scores} == kept


def test_eval_storing_two_keyless_scores__errors_instead_of_keeping_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trial = _trial(tmp_path, monkeypatch, "ctx.store(scores=[False, True])", "nothing")
    assert trial.passed is False
    assert trial.error is not None and "have no key" in trial.error
