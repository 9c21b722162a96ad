"""The @eval decorator: bare and configured use, cases, direct calls, and declaration errors."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from agent_evals import EvalContext, eval
from agent_evals.evals.decorator import EvalFunction
from agent_evals.evals.result import EvalCaseResult


def test_bare_and_configured_decorator__both_give_eval_functions() -> None:
    @eval
    def plain() -> None:
        pass

    @eval(input="x", dataset="d", labels="smoke", metadata={"a": 1}, trials=2, timeout=3)
    def configured(ctx: EvalContext) -> None:
        pass

    assert isinstance(plain, EvalFunction) and isinstance(configured, EvalFunction)
    spec = configured.specs()[0]
    assert (spec.input, spec.dataset, spec.labels, spec.metadata, spec.trials, spec.timeout) == (
        "x",
        "d",
        ("smoke",),
        {"a": 1},
        2,
        3.0,
    )
    assert plain.__name__ == "plain" and plain.specs()[0].dataset == "test_decorator"


def test_direct_call__runs_and_returns_the_result() -> None:
    @eval(input=2, reference=4)
    def doubles(ctx: EvalContext) -> None:
        ctx.output = ctx.input * 2
        assert ctx.output == ctx.reference

    result = doubles()
    assert isinstance(result, EvalCaseResult)
    assert (result.input, result.output, result.reference, result.passed) == (2, 4, 4, True)
    assert result.duration >= 0


def test_direct_call_with_cases__returns_one_result_per_case() -> None:
    @eval(cases=[{"input": 1, "reference": 2}, {"input": 3, "reference": 5, "id": "odd"}])
    def doubles(ctx: EvalContext) -> None:
        assert ctx.input * 2 == ctx.reference

    results = doubles()
    assert isinstance(results, list)
    assert [r.passed for r in results] == [True, False]
    assert [s.function_id for s in doubles.specs()] == ["doubles[1]", "doubles[odd]"]


@pytest.mark.parametrize(
    ("cases", "keys"),
    [
        ([{"input": "What is 2+2?"}, {"input": "Hi"}], ["What is 2+2?", "Hi"]),
        ([{"input": "same"}, {"input": "same"}], ["same", "same#2"]),
        ([{"input": {"q": 1}}], ["7a160a56ec"]),
        ([{"id": "a", "input": 1}, {"id": 7, "input": 1}], ["a", "7"]),
    ],
)
def test_case_ids__are_stable_and_not_positional(cases: list[dict[str, Any]], keys: list[str]) -> None:
    @eval(cases=cases)
    def check() -> None:
        pass

    assert [s.case_key for s in check.specs()] == keys


def test_case_overrides__replace_eval_options_and_merge_metadata() -> None:
    @eval(dataset="base", metadata={"a": 1}, cases=[{"input": 1, "dataset": "other", "metadata": {"b": 2}}])
    def check() -> None:
        pass

    spec = check.specs()[0]
    assert (spec.dataset, spec.metadata) == ("other", {"a": 1, "b": 2})


def test_direct_call_inside_running_loop__points_to_run_async() -> None:
    @eval
    async def check() -> None:
        pass

    async def main() -> Any:
        with pytest.raises(RuntimeError, match="run_async"):
            check()
        return await check.run_async()

    assert asyncio.run(main()).passed


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"trials": 0}, "trials= must be a whole number >= 1"),
        ({"timeout": -1}, "timeout= must be a positive number"),
        ({"evaluators": ["x"]}, "evaluators= must hold functions"),
        ({"default_score_key": ""}, "default_score_key= must be a non-empty string"),
        ({"cases": []}, "cases= must be a non-empty list"),
        ({"cases": [{"input": 1, "expected": 2}]}, "unknown key(s) expected; accepted: id, input"),
        ({"cases": [{"id": "a"}, {"id": "a"}]}, "id 'a' is used twice"),
        ({"labels": 3}, "labels= must be a string or a list of strings"),
        ({"trace": "jaeger"}, "trace= must be 'otel' or 'off'"),
    ],
)
def test_invalid_options__raise_at_declaration(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises((TypeError, ValueError)) as info:
        eval(**kwargs)(lambda: None)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("given", "traced"),
    [({"trace": "otel"}, True), ({"trace": "off"}, False), ({}, False)],
    ids=["otel", "off", "unset"],
)
def test_trace_option__on_the_spec__traced_only_for_otel(given: dict[str, Any], traced: bool) -> None:
    @eval(cases=[{"input": 1}, {"input": 2}], **given)
    def check() -> None:
        pass

    assert [spec.traced for spec in check.specs()] == [traced, traced]


def test_unannotated_parameter__asks_to_annotate_with_eval_context() -> None:
    with pytest.raises(TypeError, match="annotate it: `ctx: EvalContext`"):

        @eval
        def check(ctx) -> None:  # type: ignore[no-untyped-def]
            pass


def test_string_annotation__is_recognised_as_context(eval_module: Callable[..., ModuleType]) -> None:
    m = eval_module(
        """
        from __future__ import annotations
        from agent_evals import eval, EvalContext

        @eval(input="x")
        def check(ctx: EvalContext):
            ctx.output = ctx.input
        """
    )
    assert m.check.context_param == "ctx" and m.check().output == "x"


def test_unknown_eval_defaults_key__raises_naming_the_accepted_keys(eval_file: Callable[..., Any]) -> None:
    from agent_evals.evals.discovery import eval_functions, import_eval_file

    module = import_eval_file(
        eval_file(
            """
            from agent_evals import eval
            EVAL_DEFAULTS = {"evaluator": []}

            @eval
            def check():
                pass
            """
        )
    )
    with pytest.raises(ValueError, match="unknown key\\(s\\) evaluator; accepted: dataset"):
        eval_functions(module)[0].specs()
