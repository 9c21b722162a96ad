"""Success checkers: what each compiles to, and how each scores real agent results."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.benchmark.checkers import (
    CheckerError,
    OutputScorer,
    compile_scenario,
    deep_merge,
)
from agent_evals.benchmark.json_check import _check_subset, _validate
from agent_evals.benchmark.schema import OutputCheck, Scenario
from agent_evals.core.scorer import call_scorer, scorer_name
from agent_evals.core.types import TaskResult


def _scenario(**fields: Any) -> Scenario:
    return Scenario.model_validate({"id": 1, "prompt": "p", **fields})


def _calls(*calls: tuple[str, dict[str, Any]]) -> TaskResult:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "p"}]
    for name, args in calls:
        messages.append({"role": "assistant", "tool_calls": [{"name": name, "args": args}]})
        messages.append({"role": "tool", "content": "ok"})
    return TaskResult(output="", context={"outputs": messages})


async def _score(scenario: Scenario, result: TaskResult) -> dict[str, bool]:
    plan = compile_scenario(scenario, {})
    out = {}
    for scorer in plan.scorers:
        score = await call_scorer(scorer, result, plan.expected)
        assert score.error is None, score.error
        out[score.name] = score.passed
    return out


def test_state_checker__keeps_expected_state_as_written() -> None:
    plan = compile_scenario(
        _scenario(success={"state": {"lights": {"kitchen": {"state": "on"}}, "a.b": 1}}), {}
    )
    assert [scorer_name(s) for s in plan.scorers] == ["StateMatch"]
    assert plan.expected.context == {"expected_state": {"lights": {"kitchen": {"state": "on"}}, "a.b": 1}}


WORLD = {"lights": {"kitchen": {"state": "on", "brightness": 80}, "hall": {"state": "off"}}}

STATE_RULES = [
    # a dotted path checks one value
    ({"lights.kitchen.state": "on"}, True),
    ({"lights.kitchen.state": "off"}, False),
    ({"lights.attic.state": "on"}, False),
    # a mapping value is compared whole, as the seed's StateMatch does: the keys it leaves out must be absent
    ({"lights": {"kitchen": {"state": "on"}}}, False),
    ({"lights.kitchen": {"state": "on"}}, False),
    ({"lights.kitchen": {"state": "on", "brightness": 80}}, True),
    ({"lights": {"kitchen": {"state": "on", "brightness": 80}, "hall": {"state": "off"}}}, True),
    ({"lights.hall": {}}, False),
]


@pytest.mark.parametrize(("expected_state", "passes"), STATE_RULES)
@pytest.mark.parametrize("form", ["success.state", "expected_state"])
async def test_state_checker__same_verdict_as_state_match_used_directly(
    expected_state: dict[str, Any], passes: bool, form: str
) -> None:
    from agent_evals.adapters.scorers import StateMatch
    from agent_evals.core.types import ExpectedResult

    fields = (
        {"success": {"state": expected_state}}
        if form == "success.state"
        else {"expected_state": expected_state}
    )
    result = TaskResult(output="", context={"final_state": WORLD})
    assert await _score(_scenario(**fields), result) == {"StateMatch": passes}
    direct = StateMatch()(result, ExpectedResult(expected="", context={"expected_state": expected_state}))
    assert direct.passed is passes


async def test_state_checker__scores_final_state() -> None:
    scenario = _scenario(success={"state": {"lights.kitchen.state": "on"}})
    good = TaskResult(output="", context={"final_state": {"lights": {"kitchen": {"state": "on"}}}})
    bad = TaskResult(output="", context={"final_state": {"lights": {"kitchen": {"state": "off"}}}})
    assert await _score(scenario, good) == {"StateMatch": True}
    assert await _score(scenario, bad) == {"StateMatch": False}


def test_seed_expected_state__adds_state_match_automatically() -> None:
    plan = compile_scenario(_scenario(expected_state={"x": 1}), {})
    assert [scorer_name(s) for s in plan.scorers] == ["StateMatch"]
    assert plan.expected.context == {"expected_state": {"x": 1}}


def test_seed_scorers__get_reference_outputs_in_expected_context() -> None:
    reference = [{"role": "assistant", "tool_calls": [{"name": "a", "args": {}}]}]
    plan = compile_scenario(
        _scenario(scorers=[{"type": "ToolCallExactMatch"}], reference_outputs=reference), {}
    )
    assert [scorer_name(s) for s in plan.scorers] == ["ToolCallExactMatch"]
    assert plan.expected.context == {"reference_outputs": reference}


@pytest.mark.parametrize(
    ("match_calls", "native"),
    [
        ("exact", "ToolCallExactMatch"),
        ("subset", "ToolCallSubsetMatch"),
        ("superset", "ToolCallSupersetMatch"),
        ("unordered", "ToolCallUnorderedMatch"),
        ("any_of", "ToolCallAnyMatch"),
    ],
)
def test_tool_use_checker__match_calls_selects_the_native_scorer(match_calls: str, native: str) -> None:
    scenario = _scenario(success={"tool_use": {"calls": [{"name": "a"}], "match_calls": match_calls}})
    assert [scorer_name(s) for s in compile_scenario(scenario, {}).scorers] == [native]


A = ("set_light", {"room": "kitchen", "state": "on"})
B = ("lock_door", {"door": "front"})
C = ("get_status", {"device_type": "all"})


@pytest.mark.parametrize(
    ("match_calls", "actual", "passed"),
    [
        ("exact", [A, B], True),
        ("exact", [B, A], False),
        ("exact", [A, B, C], False),
        ("superset", [C, A, C, B], True),
        ("superset", [A], False),
        ("subset", [B], True),
        ("subset", [A, C], False),
        ("unordered", [B, A], True),
        ("unordered", [A, A, B], False),
        ("any_of", [C, B], True),
        ("any_of", [C], False),
        ("any_of", [], False),
    ],
)
async def test_tool_use_checker__list_modes(
    match_calls: str, actual: list[tuple[str, dict[str, Any]]], passed: bool
) -> None:
    calls = [{"name": A[0], "args": A[1]}, {"name": B[0], "args": B[1]}]
    scenario = _scenario(success={"tool_use": {"calls": calls, "match_calls": match_calls}})
    scores = await _score(scenario, _calls(*actual))
    assert list(scores.values()) == [passed]


@pytest.mark.parametrize(
    ("actual", "passed"),
    [
        pytest.param([A, B], True, id="the-listed-calls-in-order"),
        pytest.param([A, C, B], False, id="an-interleaved-extra-call"),
        pytest.param([A, B, C], False, id="a-trailing-extra-call"),
        pytest.param([C, A, B], False, id="a-leading-extra-call"),
        pytest.param([B, A], False, id="the-listed-calls-out-of-order"),
        pytest.param([A], False, id="a-listed-call-missing"),
        pytest.param([A, A, B], False, id="a-listed-call-repeated"),
    ],
)
async def test_tool_use_checker__without_match_calls__is_exact_as_in_the_seed(
    actual: list[tuple[str, dict[str, Any]]], passed: bool
) -> None:
    calls = [{"name": A[0], "args": A[1]}, {"name": B[0], "args": B[1]}]
    scenario = _scenario(success={"tool_use": {"calls": calls}})
    assert [scorer_name(s) for s in compile_scenario(scenario, {}).scorers] == ["ToolCallExactMatch"]
    assert list((await _score(scenario, _calls(*actual))).values()) == [passed]


@pytest.mark.parametrize(
    ("match_calls", "actual", "passed"),
    [
        ("exact", [], True),
        ("exact", [C], False),
        ("subset", [], True),
        ("subset", [C], False),
        ("unordered", [], True),
        ("unordered", [C], False),
    ],
)
async def test_tool_use_checker__empty_calls__means_no_tool_call(
    match_calls: str | None, actual: list[tuple[str, dict[str, Any]]], passed: bool
) -> None:
    scenario = _scenario(success={"tool_use": {"calls": [], "match_calls": match_calls}})
    assert list((await _score(scenario, _calls(*actual))).values()) == [passed]


@pytest.mark.parametrize("match_calls", ["superset", "any_of"])
def test_tool_use_checker__empty_calls_with_a_constant_verdict__is_refused_at_calls(match_calls: str) -> None:
    scenario = _scenario(success={"tool_use": {"calls": [], "match_calls": match_calls}})
    with pytest.raises(CheckerError, match="decides nothing") as caught:
        compile_scenario(scenario, {})
    assert caught.value.path == ("success", "tool_use", "calls")


@pytest.mark.parametrize(
    ("match_args", "actual_args", "passed"),
    [
        ("exact", {"room": "kitchen", "state": "on"}, True),
        ("exact", {"room": "kitchen", "state": "on", "brightness": 5}, False),
        ("superset", {"room": "kitchen", "state": "on", "brightness": 5}, True),
        ("superset", {"room": "kitchen"}, False),
        ("subset", {"room": "kitchen"}, True),
        ("subset", {"room": "kitchen", "brightness": 5}, False),
        ("ignore", {"anything": True}, True),
    ],
)
async def test_tool_use_checker__argument_modes(
    match_args: str, actual_args: dict[str, Any], passed: bool
) -> None:
    calls = [{"name": "set_light", "args": {"room": "kitchen", "state": "on"}}]
    scenario = _scenario(
        success={"tool_use": {"calls": calls, "match_calls": "exact", "match_args": match_args}}
    )
    assert list((await _score(scenario, _calls(("set_light", actual_args)))).values()) == [passed]


@pytest.mark.parametrize(
    ("match_args", "actual_args", "passed"),
    [
        pytest.param("exact", {}, True, id="exact-no-arguments"),
        pytest.param("exact", {"device_type": "all"}, False, id="exact-any-argument-fails"),
        pytest.param("subset", {}, True, id="subset-no-arguments"),
        pytest.param("subset", {"device_type": "all"}, False, id="subset-an-argument-fails"),
        pytest.param("superset", {"device_type": "all"}, True, id="superset-any-arguments"),
        pytest.param("ignore", {"device_type": "all"}, True, id="ignore-any-arguments"),
    ],
)
async def test_tool_use_checker__call_without_args__means_empty_args_under_match_args_as_in_the_seed(
    match_args: str, actual_args: dict[str, Any], passed: bool
) -> None:
    scenario = _scenario(success={"tool_use": {"calls": [{"name": "get_status"}], "match_args": match_args}})
    assert await _score(scenario, _calls(("get_status", actual_args))) == {"ToolCallExactMatch": passed}


async def test_tool_use_checker__same_tool_with_and_without_args__each_call_compared_as_listed() -> None:
    calls = [{"name": "get_status"}, {"name": "get_status", "args": {"device_type": "all"}}]
    scenario = _scenario(success={"tool_use": {"calls": calls}})
    good = _calls(("get_status", {}), ("get_status", {"device_type": "all"}))
    bad = _calls(("get_status", {"device_type": "all"}), ("get_status", {"device_type": "all"}))
    assert await _score(scenario, good) == {"ToolCallExactMatch": True}
    assert await _score(scenario, bad) == {"ToolCallExactMatch": False}


async def test_tool_use_checker__no_messages__fails_with_a_reason() -> None:
    scenario = _scenario(success={"tool_use": {"calls": [{"name": "a"}]}})
    plan = compile_scenario(scenario, {})
    score = await call_scorer(plan.scorers[0], TaskResult(output="hi"), plan.expected)
    assert not score.passed and score.error is None
    assert "context['outputs']" in (score.reasoning or "")


@pytest.mark.parametrize(
    ("check", "output", "passed"),
    [
        ({"equals": "Done."}, "  Done.\n", True),
        ({"equals": "Done."}, "Done!", False),
        ({"equals": "done.", "case_sensitive": False}, "DONE.", True),
        ({"contains": "door"}, "The front door is locked.", True),
        ({"contains": ["front", "back"]}, "The front door is locked.", False),
        ({"contains": "LOCKED", "case_sensitive": False}, "locked", True),
        ({"not_contains": "unlocked"}, "The door is locked.", True),
        ({"not_contains": ["error", "sorry"]}, "Sorry, no.", True),
        ({"not_contains": ["error", "sorry"], "case_sensitive": False}, "Sorry, no.", False),
        ({"regex": r"set to \d+°C"}, "It is set to 20°C.", True),
        ({"regex": r"^\d+$"}, "20 degrees", False),
        ({"json_schema": {"type": "object", "required": ["a"]}}, '{"a": 1}', True),
        ({"json_schema": {"type": "object", "required": ["a"]}}, '{"b": 1}', False),
        ({"json_schema": {"type": "object"}}, "not json", False),
    ],
)
def test_output_checker__each_test(check: dict[str, Any], output: str, passed: bool) -> None:
    score = OutputScorer(OutputCheck.model_validate(check))(TaskResult(output=output))
    assert score.passed is passed
    assert score.name == "output"
    if not passed:
        assert score.reasoning and score.metadata["failures"]


def test_output_checker__partial_credit_is_the_share_of_tests_passed() -> None:
    check = OutputCheck.model_validate({"contains": ["a", "b"], "not_contains": "c", "regex": "z"})
    score = OutputScorer(check)(TaskResult(output="a c"))
    assert score.value == pytest.approx(1 / 4)


@pytest.mark.parametrize(
    ("schema", "value", "problems"),
    [
        ({"type": "integer"}, 3, 0),
        ({"type": "integer"}, True, 1),
        ({"type": ["string", "null"]}, None, 0),
        ({"enum": ["heat", "cool"]}, "auto", 1),
        ({"const": 3}, 3, 0),
        ({"type": "string", "minLength": 2, "maxLength": 3, "pattern": "^a"}, "abcd", 1),
        ({"type": "number", "minimum": 10, "exclusiveMaximum": 30}, 30, 1),
        ({"properties": {"a": {"type": "string"}}, "additionalProperties": False}, {"a": "x", "b": 1}, 1),
        ({"required": ["a", "b"]}, {"a": 1}, 1),
        ({"type": "array", "items": {"type": "integer"}, "minItems": 1, "uniqueItems": True}, [1, 1], 1),
        ({"type": "array", "maxItems": 1}, [1, "x"], 1),
        ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, 1.5, 1),
        ({"oneOf": [{"type": "number"}, {"type": "integer"}]}, 2, 1),
        ({"allOf": [{"minimum": 1}, {"maximum": 3}]}, 2, 0),
        ({"not": {"type": "string"}}, "x", 1),
    ],
)
def test_builtin_json_schema_subset__validates_common_keywords(
    schema: dict[str, Any], value: Any, problems: int
) -> None:
    assert len(_validate(value, schema, [])) == problems


@pytest.mark.parametrize(
    ("schema", "fragment"),
    [
        ({"type": "thing"}, "unknown type 'thing'"),
        ({"$ref": "#/x"}, "unsupported JSON Schema keyword(s) $ref"),
        ({"properties": {"a": 3}}, "schema.properties.a: a JSON Schema must be a mapping"),
    ],
)
def test_builtin_json_schema_subset__rejects_what_it_cannot_check(
    schema: dict[str, Any], fragment: str
) -> None:
    with pytest.raises(ValueError) as caught:
        _check_subset(schema, "schema")
    assert fragment in str(caught.value)


def test_scorers_checker__builds_registered_scorers_with_arguments() -> None:
    scenario = _scenario(
        success={"scorers": [{"type": "ToolCallAnyMatch", "tool_args_match_mode": "ignore"}]},
        reference_outputs=[{"role": "assistant", "tool_calls": [{"name": "a", "args": {}}]}],
    )
    (scorer,) = compile_scenario(scenario, {}).scorers
    assert scorer_name(scorer) == "ToolCallAnyMatch"
    assert scorer.tool_args_match_mode == "ignore"


def test_compile__every_checker_together__one_scorer_each() -> None:
    scenario = _scenario(
        success={
            "state": {"a": 1},
            "tool_use": {"calls": [{"name": "x"}], "match_calls": "superset"},
            "output": {"contains": "y"},
            "scorers": [{"type": "ToolCallExactMatch"}],
        },
        reference_outputs=[],
    )
    names = [scorer_name(s) for s in compile_scenario(scenario, {}).scorers]
    assert names == ["StateMatch", "ToolCallSupersetMatch", "output", "ToolCallExactMatch"]


def test_compile__nothing_to_check__is_an_error() -> None:
    with pytest.raises(CheckerError, match="no success criterion"):
        compile_scenario(_scenario(), {})


def test_precondition__deep_merged_over_world_without_touching_world() -> None:
    world = {"lights": {"kitchen": {"state": "off", "brightness": 0}}, "doors": {"front": {"locked": True}}}
    scenario = _scenario(
        precondition={"state": {"lights": {"kitchen": {"state": "on"}}, "extra": [1]}},
        success={"output": {"contains": "x"}},
    )
    plan = compile_scenario(scenario, world)
    assert plan.state == {
        "lights": {"kitchen": {"state": "on", "brightness": 0}},
        "doors": {"front": {"locked": True}},
        "extra": [1],
    }
    assert world["lights"]["kitchen"]["state"] == "off"


def test_no_world_and_no_precondition__means_no_state() -> None:
    assert compile_scenario(_scenario(success={"output": {"contains": "x"}}), {}).state is None


@pytest.mark.parametrize(
    ("base", "over", "merged"),
    [
        ({"a": {"b": 1, "c": 2}}, {"a": {"b": 3}}, {"a": {"b": 3, "c": 2}}),
        ({"a": [1, 2]}, {"a": [3]}, {"a": [3]}),
        ({"a": {"b": 1}}, {"a": None}, {"a": None}),
        ({"a": 1}, {"a": {"b": 2}}, {"a": {"b": 2}}),
    ],
)
def test_deep_merge__mappings_merge_everything_else_replaces(
    base: dict[str, Any], over: dict[str, Any], merged: dict[str, Any]
) -> None:
    assert deep_merge(base, over) == merged
