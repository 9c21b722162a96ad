"""An eval gets its EvalContext however the parameter is annotated: plain, optional, or via an alias."""

from __future__ import annotations

from typing import Optional

import pytest

from agent_evals import EvalContext, eval
from agent_evals import EvalContext as Ctx


def _plain(ctx: EvalContext) -> None:
    assert ctx.input == "x", "wrong input"
    raise AssertionError("boom")


def _optional(ctx: EvalContext | None = None) -> None:
    assert ctx is not None
    raise AssertionError("boom")


def _typing_optional(ctx: Optional[EvalContext] = None) -> None:  # noqa: UP045 - the spelling under test
    assert ctx is not None
    raise AssertionError("boom")


def _aliased(c: Ctx) -> None:
    assert c.input == "x"
    raise AssertionError("boom")


@pytest.mark.parametrize("func", [_plain, _optional, _typing_optional, _aliased], ids=lambda f: f.__name__)
def test_context_parameter__any_annotation_spelling__gets_a_context_and_asserts_become_scores(
    func: object,
) -> None:
    result = eval(input="x")(func)()  # type: ignore[arg-type]
    assert result.error is None
    assert [(s.key, s.passed, s.notes) for s in result.scores] == [("pass", False, "boom")]
    assert result.passed is False


def test_eval__on_a_class__is_a_type_error_naming_it() -> None:
    class NotAnEval:
        pass

    with pytest.raises(TypeError, match=r"decorates a function.*the class NotAnEval"):
        eval(NotAnEval)
