"""A code-first eval case's definition digest: input, reference, evaluators and the body's checks."""

from __future__ import annotations

import functools
import textwrap
from pathlib import Path
from typing import Any

import pytest

from agent_evals.core.definition import is_digest
from agent_evals.evals.definition import callable_identity, function_body, spec_definition
from agent_evals.evals.discovery import eval_functions, import_eval_file

BASE = '''
from agent_evals import EvalContext, eval


def agent(text):
    return text.upper()


def exact(result):
    return result.output == result.reference


def loose(result):
    return result.reference in result.output


@eval(
    dataset="shouting",
    labels=["smoke"],
    target=agent,
    evaluators=[exact],
    default_score_key="pass",
    timeout=30,
    trials=1,
    metadata={"unit": "chars"},
    cases=[
        {"id": "hi", "input": "hi", "reference": "HI"},
        {"id": "bye", "input": "bye", "reference": "BYE"},
    ],
)
def test_shout(ctx: EvalContext):
    """Shouts back."""
    assert ctx.output == ctx.reference, "not shouted"
'''

SAME = [
    ("comment", "    assert ctx.output", "    # the check\n    assert ctx.output"),
    ("formatting", "assert ctx.output == ctx.reference,", "assert (ctx.output  ==  ctx.reference) ,"),
    ("docstring", '"""Shouts back."""', '"""Shouts back, loudly."""'),
    ("dataset", 'dataset="shouting"', 'dataset="loud"'),
    ("labels", 'labels=["smoke"]', 'labels=["smoke", "nightly"]'),
    ("trials", "trials=1", "trials=3"),
    ("the agent (target)", "return text.upper()", "return text.lower()"),
    ("sibling case", '"reference": "BYE"}', '"reference": "BYE!"}'),
    (
        "another case added",
        '{"id": "bye", "input": "bye", "reference": "BYE"},',
        '{"id": "bye", "input": "bye", "reference": "BYE"},\n        {"id": "yo", "input": "yo", "reference": "YO"},',
    ),
    ("blank lines above", "\n\ndef agent(text):", "\n\n\n\n# agents\n\ndef agent(text):"),
]

CHANGED = [
    ("reference", '"reference": "HI"}', '"reference": "hi"}'),
    ("input", '{"id": "hi", "input": "hi"', '{"id": "hi", "input": "hello"'),
    ("assert text", "assert ctx.output == ctx.reference", "assert ctx.output"),
    ("assert message only", '"not shouted"', '"too quiet"'),
    ("evaluator swapped", "evaluators=[exact]", "evaluators=[loose]"),
    ("evaluator body", "return result.output == result.reference", "return True"),
    ("evaluator added", "evaluators=[exact]", "evaluators=[exact, loose]"),
    ("default score key", 'default_score_key="pass"', 'default_score_key="shouted"'),
    ("metadata", '{"unit": "chars"}', '{"unit": "words"}'),
    ("time limit", "timeout=30", "timeout=300"),
]


def _digests(tmp_path: Path, name: str, source: str) -> dict[str, str | None]:
    path = tmp_path / name / "eval_shout.py"
    path.parent.mkdir()
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    module = import_eval_file(path)
    return {spec.function_id: spec_definition(spec) for fn in eval_functions(module) for spec in fn.specs()}


def test_spec_definition__every_case_gets_its_own_digest(tmp_path: Path) -> None:
    digests = _digests(tmp_path, "base", BASE)
    assert set(digests) == {"test_shout[hi]", "test_shout[bye]"}
    assert all(is_digest(d) for d in digests.values())
    assert digests["test_shout[hi]"] != digests["test_shout[bye]"]


@pytest.mark.parametrize(("edit", "old", "new"), SAME, ids=[e for e, _, _ in SAME])
def test_spec_definition__bookkeeping_or_agent_edit__same_digest(
    tmp_path: Path, edit: str, old: str, new: str
) -> None:
    assert BASE.count(old) == 1, edit
    before = _digests(tmp_path, "before", BASE)["test_shout[hi]"]
    assert _digests(tmp_path, "after", BASE.replace(old, new))["test_shout[hi]"] == before


@pytest.mark.parametrize(("edit", "old", "new"), CHANGED, ids=[e for e, _, _ in CHANGED])
def test_spec_definition__edit_of_what_is_handed_or_checked__new_digest(
    tmp_path: Path, edit: str, old: str, new: str
) -> None:
    assert BASE.count(old) == 1, edit
    before = _digests(tmp_path, "before", BASE)["test_shout[hi]"]
    assert _digests(tmp_path, "after", BASE.replace(old, new))["test_shout[hi]"] != before


def test_function_body__lambda_and_partial__content_not_address() -> None:
    first = eval("lambda r: r.output == 'x'")  # a function without a source file
    second = eval("lambda r: r.output == 'x'")
    third = eval("lambda r: r.output == 'y'")
    assert function_body(first) == function_body(second) != function_body(third)
    assert callable_identity(functools.partial(max, 1)) == callable_identity(functools.partial(max, 1))
    assert callable_identity(functools.partial(max, 1)) != callable_identity(functools.partial(max, 2))


class Judge:
    """An evaluator object: its class and name identify it, not its state (clients, caches)."""

    def __init__(self) -> None:
        self.client = object()

    def __call__(self, result: object) -> bool:
        return True


def test_callable_identity__evaluator_object__class_not_state() -> None:
    assert callable_identity(Judge()) == callable_identity(Judge())


def _body(ctx: Any) -> None:
    assert ctx.output


def _other_body(ctx: Any) -> None:
    assert not ctx.output


def _exact(result: Any) -> bool:
    return bool(result.output == result.reference)


def _loose(result: Any, strict: bool = False) -> bool:
    return strict or result.reference in result.output


VALUES = [
    None,
    "x",
    "",
    {"b": 1, "a": [1, 2, {"z": None}]},
    [3, "\ud800"],
    {1: 2},
    1.5,
    float("nan"),
    b"ab",
    {3, 1},
]


def test_spec_definitions__a_batch_of_specs_of_two_evals__each_the_digest_of_its_documented_parts() -> None:
    """The batch shares an eval's parts between its cases; each digest must still be the one of
    ``{"body", "default_score_key", "evaluators", "input", "metadata", "reference", "timeout"}``."""
    from agent_evals.core.definition import definition_digest
    from agent_evals.evals.definition import spec_definitions
    from agent_evals.evals.spec import EvalCaseSpec

    evaluators = (_exact, functools.partial(_loose, strict=True))
    specs = [
        EvalCaseSpec(
            func=_body if i % 3 else _other_body,  # two evals, interleaved
            name="b",
            case_key=str(i),
            input=value,
            reference=VALUES[i % 4],
            metadata={"m": value} if i % 2 else {},
            timeout=2.5 if i % 5 == 0 else None,
            evaluators=evaluators if i % 2 else (),
            default_score_key="k" if i % 7 == 0 else "pass",
        )
        for i, value in enumerate(VALUES * 2)
    ]
    expected = [
        definition_digest(
            {
                "input": s.input,
                "reference": s.reference,
                "metadata": s.metadata,
                "default_score_key": s.default_score_key,
                "timeout": s.timeout,
                "evaluators": [callable_identity(fn) for fn in s.evaluators],
                "body": function_body(s.func),
            }
        )
        for s in specs
    ]
    assert spec_definitions(specs) == expected == [spec_definition(s) for s in specs]
    assert all(is_digest(d) for d in expected) and len(set(expected)) > len(VALUES)
