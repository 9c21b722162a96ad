"""Running one eval: assertions, the automatic pass, errors, evaluators, targets, timeouts, usage."""

from __future__ import annotations

import re
from collections.abc import Callable
from types import ModuleType

import pytest

from agent_evals.evals.result import EvalCaseResult
from agent_evals.evals.scores import EvalScore

Loader = Callable[..., ModuleType]


def _run(module: ModuleType, name: str) -> EvalCaseResult:
    result = getattr(module, name)()
    assert isinstance(result, EvalCaseResult)
    return result


def test_failed_assert_with_context__becomes_failing_default_score_with_message(eval_module: Loader) -> None:
    m = eval_module(
        """
        from agent_evals import eval, EvalContext

        @eval(input="hi")
        def test_it(ctx: EvalContext):
            ctx.output = "hello"
            assert "bye" in ctx.output, "Should say bye"
            assert False, "never reached"
        """
    )
    result = _run(m, "test_it")
    assert result.error is None
    assert result.scores == [EvalScore("pass", passed=False, notes="Should say bye")]
    assert result.passed is False
    assert result.output == "hello"


def test_bare_assert_with_context__notes_are_the_source_line(eval_module: Loader) -> None:
    m = eval_module(
        """
        from agent_evals import eval, EvalContext

        @eval(default_score_key="correct")
        def test_it(ctx: EvalContext):
            ctx.output = 3
            assert ctx.output == 4
        """
    )
    result = _run(m, "test_it")
    assert result.scores == [EvalScore("correct", passed=False, notes="assert ctx.output == 4")]


@pytest.mark.parametrize(
    ("body", "expected_error"),
    [
        ('assert 1 == 2, "numbers differ"', "AssertionError: numbers differ"),
        ("assert 1 == 2", "AssertionError: assert 1 == 2"),
    ],
)
def test_failed_assert_without_context__is_recorded_as_error(
    eval_module: Loader, body: str, expected_error: str
) -> None:
    m = eval_module(
        f"""
        from agent_evals import eval

        @eval
        def test_it():
            {body}
        """
    )
    result = _run(m, "test_it")
    assert result.error == expected_error
    assert result.scores == []
    assert result.passed is False


def test_clean_finish_without_scores__adds_automatic_pass(eval_module: Loader) -> None:
    m = eval_module(
        """
        from agent_evals import eval

        @eval
        def test_it():
            pass
        """
    )
    assert _run(m, "test_it").scores == [EvalScore("pass", passed=True)]


def test_stored_score__suppresses_automatic_pass(eval_module: Loader) -> None:
    m = eval_module(
        """
        from agent_evals import eval, EvalContext

        @eval
        def test_it(ctx: EvalContext):
            ctx.store(scores={"key": "tone", "passed": True})
        """
    )
    assert _run(m, "test_it").scores == [EvalScore("tone", passed=True)]


def test_store_same_key_twice__replaces_and_mixes_with_assertions(eval_module: Loader) -> None:
    m = eval_module(
        """
        from agent_evals import eval, EvalContext

        @eval
        def test_it(ctx: EvalContext):
            ctx.store(scores=[0.1, {"key": "len", "value": 3}])
            ctx.store(scores=0.9)
            assert False, "must-have missing"
        """
    )
    result = _run(m, "test_it")
    assert result.scores == [
        EvalScore("pass", passed=False, notes="must-have missing"),
        EvalScore("len", value=3.0),
    ]


def test_other_exception__is_the_error_not_a_score(eval_module: Loader) -> None:
    m = eval_module(
        """
        from agent_evals import eval, EvalContext

        def helper():
            raise ValueError("agent exploded")

        @eval
        def test_it(ctx: EvalContext):
            ctx.store(scores=True)
            helper()
        """
    )
    result = _run(m, "test_it")
    assert result.error == "ValueError: agent exploded"
    assert result.passed is False
    assert result.traceback is not None
    assert "in helper" in result.traceback and "agent_evals/evals" not in result.traceback


def test_malformed_store__errors_with_accepted_forms(eval_module: Loader) -> None:
    m = eval_module(
        """
        from agent_evals import eval, EvalContext

        @eval
        def test_it(ctx: EvalContext):
            ctx.store(scores={"key": "x"})
        """
    )
    result = _run(m, "test_it")
    assert result.error is not None
    assert "neither 'passed' nor 'value'" in result.error and "accepted score forms" in result.error


@pytest.mark.parametrize(
    ("scores", "passed"),
    [
        ("[{'key': 'sim', 'value': 0.1}]", False),
        ("[{'key': 'sim', 'value': 0.1}, {'key': 'ok', 'passed': True}]", True),
        ("[{'key': 'sim', 'value': 0.99}, {'key': 'ok', 'passed': False}]", False),
        ("[{'key': 'a', 'passed': True}, {'key': 'b', 'passed': True, 'value': 0.0}]", True),
    ],
)
def test_pass_rule__numeric_only_scores_never_decide(eval_module: Loader, scores: str, passed: bool) -> None:
    m = eval_module(
        f"""
        from agent_evals import eval, EvalContext

        @eval
        def test_it(ctx: EvalContext):
            ctx.store(scores={scores})
        """
    )
    result = _run(m, "test_it")
    assert result.passed is passed
    assert result.graded is (scores != "[{'key': 'sim', 'value': 0.1}]")


def test_returned_score_without_context__is_stored(eval_module: Loader) -> None:
    m = eval_module(
        """
        from agent_evals import eval

        @eval
        def test_it():
            return {"key": "exact", "passed": False, "notes": "off by one"}
        """
    )
    assert _run(m, "test_it").scores == [EvalScore("exact", passed=False, notes="off by one")]


EVALUATOR_FILE = """
from agent_evals import eval, EvalContext

seen = []

def length(result):
    seen.append(result.output)
    return {{"key": "short", "passed": len(result.output or "") < 5}}

async def keyless(result):
    return {{"value": 2.5}}

def nothing(result):
    return None

def broken(result):
    raise RuntimeError("judge down")

@eval(evaluators={evaluators})
def test_it(ctx: EvalContext):
    ctx.output = "hello world"
    {body}
"""


def test_evaluators__run_after_body_and_add_scores(eval_module: Loader) -> None:
    m = eval_module(EVALUATOR_FILE.format(evaluators="[length, keyless, nothing]", body="pass"))
    result = _run(m, "test_it")
    assert m.seen == ["hello world"]
    # the body ended without a score: the automatic pass comes first, the evaluators' scores beside it
    assert result.scores == [
        EvalScore("pass", passed=True),
        EvalScore("short", passed=False),
        EvalScore("pass", value=2.5),
    ]
    assert result.score_sources == {"pass": "auto", "short": "evaluator", "pass#2": "evaluator"}


def test_evaluators__also_run_after_failed_assertion(eval_module: Loader) -> None:
    m = eval_module(EVALUATOR_FILE.format(evaluators="[length]", body='assert False, "nope"'))
    result = _run(m, "test_it")
    assert m.seen == ["hello world"]
    assert result.scores == [EvalScore("pass", passed=False, notes="nope"), EvalScore("short", passed=False)]


def test_evaluators__never_run_on_errored_result(eval_module: Loader) -> None:
    m = eval_module(EVALUATOR_FILE.format(evaluators="[length]", body='raise KeyError("k")'))
    result = _run(m, "test_it")
    assert m.seen == []
    assert result.error == "KeyError: 'k'"


def test_evaluator_that_raises__makes_result_an_error(eval_module: Loader) -> None:
    m = eval_module(EVALUATOR_FILE.format(evaluators="[broken, length]", body="pass"))
    result = _run(m, "test_it")
    assert result.error == "evaluator broken raised RuntimeError: judge down"
    assert result.passed is False
    assert m.seen == []


def test_evaluator_returning_malformed_score__is_an_error(eval_module: Loader) -> None:
    m = eval_module(
        """
        from agent_evals import eval

        @eval(evaluators=[lambda result: "great"])
        def test_it():
            pass
        """
    )
    result = _run(m, "test_it")
    assert result.error is not None and "evaluator <lambda> raised InvalidScore" in result.error


def test_eval_level_evaluators__replace_file_defaults(eval_module: Loader) -> None:
    m = eval_module(
        """
        from agent_evals import eval, EvalContext

        calls = []

        def default_check(result):
            calls.append("default")
            return {"key": "default", "passed": True}

        def own_check(result):
            calls.append("own")
            return {"key": "own", "passed": True}

        EVAL_DEFAULTS = {"evaluators": [default_check], "dataset": "filewide"}

        @eval
        def test_inherits(ctx: EvalContext):
            pass

        @eval(evaluators=[own_check])
        def test_replaces(ctx: EvalContext):
            pass

        @eval(evaluators=[])
        def test_none(ctx: EvalContext):
            pass
        """
    )
    assert [s.key for s in _run(m, "test_inherits").scores] == ["pass", "default"]
    assert [s.key for s in _run(m, "test_replaces").scores] == ["pass", "own"]
    assert [s.key for s in _run(m, "test_none").scores] == ["pass"]
    assert m.calls == ["default", "own"]
    assert m.test_replaces.specs()[0].dataset == "filewide"


def test_target__output_is_stored_before_body(eval_module: Loader) -> None:
    m = eval_module(
        """
        from agent_evals import eval, EvalContext

        async def agent(question):
            return question.upper()

        @eval(input="hey", target=agent)
        def test_it(ctx: EvalContext):
            assert ctx.output == "HEY"
        """
    )
    result = _run(m, "test_it")
    assert result.output == "HEY" and result.passed


def test_task_result_output__records_text_and_usage(eval_module: Loader) -> None:
    m = eval_module(
        """
        from agent_evals import eval, EvalContext, TaskResult

        def agent(question):
            return TaskResult(output="ok", context={"usage": {"prompt_tokens": 12, "completion_tokens": 3}})

        @eval(input="q", target=agent)
        def test_it(ctx: EvalContext):
            ctx.store(usage={"cost_usd": 0.001})
        """
    )
    result = _run(m, "test_it")
    assert result.output == "ok"
    assert result.usage == {"input_tokens": 12, "output_tokens": 3, "cost_usd": 0.001}


def test_timeout__async_eval_that_overruns_is_an_error(eval_module: Loader) -> None:
    m = eval_module(
        """
        import asyncio
        from agent_evals import eval

        @eval(timeout=0.05)
        async def test_it():
            await asyncio.sleep(5)
        """
    )
    result = _run(m, "test_it")
    assert re.fullmatch(r"timed out after 0\.05s \(waited 0\.\d\ds\)", result.error or "")


def test_user_raised_timeout_error__is_reported_as_itself(eval_module: Loader) -> None:
    m = eval_module(
        """
        from agent_evals import eval

        @eval(timeout=10)
        async def test_it():
            raise TimeoutError("upstream slow")
        """
    )
    assert _run(m, "test_it").error == "TimeoutError: upstream slow"


def test_system_exit_in_eval__is_contained_as_error(eval_module: Loader) -> None:
    m = eval_module(
        """
        import sys
        from agent_evals import eval

        @eval
        def test_it():
            sys.exit(4)
        """
    )
    assert _run(m, "test_it").error == "SystemExit: 4"


def test_failed_assert_without_context__is_an_error_so_evaluators_do_not_run(eval_module: Loader) -> None:
    m = eval_module(
        """
        from agent_evals import eval

        seen = []

        @eval(evaluators=[lambda result: seen.append(result) or True])
        def test_it():
            assert 1 == 2, "no context here"
        """
    )
    result = _run(m, "test_it")
    assert result.error == "AssertionError: no context here"
    assert m.seen == []
