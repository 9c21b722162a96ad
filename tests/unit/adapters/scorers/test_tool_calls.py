"""ToolCall* scorers: each relation x argument mode, both call shapes, and what the metadata says."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_evals.adapters.scorers import (
    ToolCallAnyMatch,
    ToolCallExactMatch,
    ToolCallSubsetMatch,
    ToolCallSupersetMatch,
    ToolCallUnorderedMatch,
)
from agent_evals.adapters.scorers.tool_calls import args_match, max_bipartite_matching
from agent_evals.core.types import ExpectedResult, Score, TaskResult

RELATIONS = {
    "exact": ToolCallExactMatch,
    "superset": ToolCallSupersetMatch,
    "subset": ToolCallSubsetMatch,
    "unordered": ToolCallUnorderedMatch,
    "any": ToolCallAnyMatch,
}
MODES = ("exact", "subset", "superset", "ignore")


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args}


A = call("fly_to", lat=1, lon=2)
A_EXTRA = call("fly_to", lat=1, lon=2, alt=5)  # the agent passes more than the reference lists
A_MISSING = call("fly_to", lat=1)  # the agent leaves out an argument
A_WRONG = call("fly_to", lat=9, lon=2)
B = call("land", soft=True)
C = call("take_photo")


def as_messages(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One assistant frame per call (flat shape), padded with prose and tool frames."""
    frames: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for c in calls:
        frames.append({"role": "assistant", "content": "", "tool_calls": [c]})
        frames.append({"role": "tool", "content": "ok"})
    frames.append({"role": "assistant", "content": "done"})
    return frames


def score(scorer: Any, actual: list[dict[str, Any]], reference: list[dict[str, Any]]) -> Score:
    result = TaskResult(output="", context={"outputs": as_messages(actual)})
    expected = ExpectedResult(expected="", context={"reference_outputs": as_messages(reference)})
    out = scorer(result, expected)
    assert isinstance(out, Score)
    return out


# --- argument modes on a single call -------------------------------------------------------

ARG_TABLE = [
    # actual, exact, subset, superset, ignore   (reference is A)
    ("same args", A, True, True, True, True),
    ("extra arg", A_EXTRA, False, False, True, True),
    ("missing arg", A_MISSING, False, True, False, True),
    ("wrong value", A_WRONG, False, False, False, True),
]


@pytest.mark.parametrize(("label", "actual", "exact", "subset", "superset", "ignore"), ARG_TABLE)
def test_args_match__each_mode__follows_containment_direction(
    label: str, actual: dict[str, Any], exact: bool, subset: bool, superset: bool, ignore: bool
) -> None:
    expected = {"exact": exact, "subset": subset, "superset": superset, "ignore": ignore}
    for mode, want in expected.items():
        assert args_match(actual["args"], A["args"], mode) is want, (label, mode)  # type: ignore[arg-type]


@pytest.mark.parametrize("relation", sorted(RELATIONS))
@pytest.mark.parametrize(("label", "actual", "exact", "subset", "superset", "ignore"), ARG_TABLE)
def test_every_relation__single_call__applies_the_argument_mode(
    relation: str, label: str, actual: dict[str, Any], exact: bool, subset: bool, superset: bool, ignore: bool
) -> None:
    expected = {"exact": exact, "subset": subset, "superset": superset, "ignore": ignore}
    for mode, want in expected.items():
        result = score(RELATIONS[relation](tool_args_match_mode=mode), [actual], [A])
        assert result.passed is want, (relation, label, mode)
        assert result.value == (1.0 if want else 0.0)


@pytest.mark.parametrize("relation", sorted(RELATIONS))
@pytest.mark.parametrize("mode", MODES)
def test_every_relation_and_mode__other_tool_name__never_matches(relation: str, mode: str) -> None:
    assert not score(RELATIONS[relation](tool_args_match_mode=mode), [C], [A]).passed  # type: ignore[arg-type]


# --- order, extras and omissions (the seed's table) ----------------------------------------

SEQUENCE_TABLE = [
    # label, actual, reference, exact, superset, subset, unordered, any
    ("identical", [A, B], [A, B], True, True, True, True, True),
    ("reordered", [B, A], [A, B], False, False, False, True, True),
    ("extra in the middle", [A, C, B], [A, B], False, True, False, False, True),
    ("extra at the end", [A, B, C], [A, B], False, True, False, False, True),
    ("omission", [A], [A, B], False, False, True, False, True),
    ("silence", [], [A, B], False, False, True, False, False),
    ("unrelated call", [C], [A, B], False, False, False, False, False),
    ("repeated call", [A, A], [A], False, True, False, False, True),
    ("count differs", [A], [A, A], False, False, True, False, True),
    ("both empty", [], [], True, True, True, True, False),
    ("extra and reordered", [B, C, A], [A, B], False, False, False, False, True),
]


@pytest.mark.parametrize(
    ("label", "actual", "reference", "exact", "superset", "subset", "unordered", "any_"), SEQUENCE_TABLE
)
@pytest.mark.parametrize("mode", MODES)
def test_relations__order_extras_omissions__follow_the_seed_table(
    mode: str,
    label: str,
    actual: list[dict[str, Any]],
    reference: list[dict[str, Any]],
    exact: bool,
    superset: bool,
    subset: bool,
    unordered: bool,
    any_: bool,
) -> None:
    # the calls in this table differ by name, so every argument mode gives the same answer
    expected = {"exact": exact, "superset": superset, "subset": subset, "unordered": unordered, "any": any_}
    for relation, want in expected.items():
        result = score(RELATIONS[relation](tool_args_match_mode=mode), actual, reference)  # type: ignore[arg-type]
        assert result.passed is want, (label, relation, mode)


MIXED_TABLE = [
    # label, actual, reference, mode, exact, superset, subset, unordered, any
    ("extra arg, exact mode", [A_EXTRA, B], [A, B], "exact", False, False, False, False, True),
    ("extra arg, superset mode", [A_EXTRA, B], [A, B], "superset", True, True, True, True, True),
    ("extra arg, subset mode", [A_EXTRA, B], [A, B], "subset", False, False, False, False, True),
    ("missing arg, subset mode", [A_MISSING, B], [A, B], "subset", True, True, True, True, True),
    ("missing arg, superset mode", [A_MISSING, B], [A, B], "superset", False, False, False, False, True),
    ("wrong value, ignore mode", [A_WRONG, B], [A, B], "ignore", True, True, True, True, True),
    ("reordered extra arg, superset", [B, A_EXTRA], [A, B], "superset", False, False, False, True, True),
    ("omission with missing arg, subset", [A_MISSING], [A, B], "subset", False, False, True, False, True),
    (
        "extra call with extra arg, superset",
        [A_EXTRA, C, B],
        [A, B],
        "superset",
        False,
        True,
        False,
        False,
        True,
    ),
]


@pytest.mark.parametrize(
    ("label", "actual", "reference", "mode", "exact", "superset", "subset", "unordered", "any_"), MIXED_TABLE
)
def test_relations__argument_differences__combine_with_order_rules(
    label: str,
    actual: list[dict[str, Any]],
    reference: list[dict[str, Any]],
    mode: str,
    exact: bool,
    superset: bool,
    subset: bool,
    unordered: bool,
    any_: bool,
) -> None:
    expected = {"exact": exact, "superset": superset, "subset": subset, "unordered": unordered, "any": any_}
    for relation, want in expected.items():
        result = score(RELATIONS[relation](tool_args_match_mode=mode), actual, reference)  # type: ignore[arg-type]
        assert result.passed is want, (label, relation)


# --- unordered needs a real matching -------------------------------------------------------


def test_unordered__greedy_pairing_would_fail__finds_the_matching() -> None:
    # superset mode: the first agent call fits both reference calls, the second fits only the first;
    # pairing the first agent call with the first reference call would strand the second
    actual = [call("fly_to", lat=1, lon=2), call("fly_to", lat=1)]
    reference = [call("fly_to", lat=1), call("fly_to", lat=1, lon=2)]
    result = score(ToolCallUnorderedMatch(tool_args_match_mode="superset"), actual, reference)
    assert result.passed
    assert result.metadata["pairing"] == [1, 0]


def test_max_bipartite_matching__needs_augmenting_path__is_maximum() -> None:
    edges = {(0, 0), (0, 1), (1, 0), (2, 1), (2, 2)}
    pairing = max_bipartite_matching(3, 3, lambda i, j: (i, j) in edges)
    assert sorted(pairing) == [0, 1, 2]  # type: ignore[type-var]
    assert all((i, j) in edges for i, j in enumerate(pairing))


def test_max_bipartite_matching__long_chain__does_not_hit_recursion_limit() -> None:
    # left i fits right i and i+1; the last left vertex fits only right 0, so placing it shifts
    # every earlier pair along one augmenting path of length ~2n
    n = 1500  # deeper than the default recursion limit
    pairing = max_bipartite_matching(
        n, n, lambda i, j: (i < n - 1 and j in (i, i + 1)) or (i == n - 1 and j == 0)
    )
    assert sorted(j for j in pairing if j is not None) == list(range(n))


# --- call shapes ---------------------------------------------------------------------------


def wire(name: str, arguments: Any) -> dict[str, Any]:
    return {"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}


@pytest.mark.parametrize(
    ("label", "actual_frames", "reference_frames"),
    [
        (
            "wire JSON string vs flat",
            [{"role": "assistant", "content": None, "tool_calls": [wire("fly_to", json.dumps(A["args"]))]}],
            [{"role": "assistant", "tool_calls": [A]}],
        ),
        (
            "flat vs wire object arguments",
            [{"role": "assistant", "tool_calls": [A]}],
            [{"role": "assistant", "tool_calls": [wire("fly_to", {"lat": 1, "lon": 2})]}],
        ),
        (
            "messages mapping on the agent side",
            {"messages": [{"role": "assistant", "tool_calls": [A]}]},
            [{"role": "assistant", "tool_calls": [A]}],
        ),
        (
            "reference lists bare calls",
            [{"role": "assistant", "tool_calls": [wire("fly_to", json.dumps(A["args"]))]}],
            [A],
        ),
    ],
)
def test_exact_match__either_shape_on_either_side__normalizes_to_same_call(
    label: str, actual_frames: Any, reference_frames: Any
) -> None:
    result = ToolCallExactMatch()(
        TaskResult(output="", context={"outputs": actual_frames}),
        ExpectedResult(expected="", context={"reference_outputs": reference_frames}),
    )
    assert result.passed, label


def test_exact_match__two_calls_in_one_frame__keep_their_order() -> None:
    frames = [{"role": "assistant", "tool_calls": [A, B]}]
    assert score(ToolCallExactMatch(), [A, B], [A, B]).passed
    result = ToolCallExactMatch()(
        TaskResult(output="", context={"outputs": frames}),
        ExpectedResult(
            expected="", context={"reference_outputs": [{"role": "assistant", "tool_calls": [B, A]}]}
        ),
    )
    assert not result.passed


# --- metadata and failure reasons ----------------------------------------------------------


def test_exact_match__wrong_args__metadata_names_index_expected_and_actual() -> None:
    result = score(ToolCallExactMatch(), [A, call("land", soft=False)], [A, B])
    assert result.metadata["index"] == 1
    assert result.metadata["expected"] == B
    assert result.metadata["actual"] == call("land", soft=False)
    assert "arguments do not match (exact)" in result.metadata["reason"]
    assert result.metadata["actual_count"] == 2
    assert result.metadata["reference_count"] == 2
    assert result.reasoning == result.metadata["reason"]


def test_exact_match__too_few_calls__reason_names_the_missing_call() -> None:
    result = score(ToolCallExactMatch(), [A], [A, B])
    assert result.metadata["index"] == 1
    assert result.metadata["actual"] is None
    assert "made only 1 call" in result.metadata["reason"]


def test_exact_match__wrong_tool__reason_names_both_tools() -> None:
    result = score(ToolCallExactMatch(), [C], [A])
    assert "expected tool 'fly_to', got 'take_photo'" in result.metadata["reason"]


@pytest.mark.parametrize(
    ("actual", "reference", "index", "names", "counts"),
    [
        ([C, A], [A, C], 0, ("fly_to", "take_photo"), None),  # wrong order
        ([A, call("crash")], [A, B], 1, ("land", "crash"), None),  # wrong tool at call 1
        ([A, B], [A], 1, None, "Expected 1 tool call(s), got 2"),  # an extra call
        ([A], [A, B], 1, None, "Expected 2 tool call(s), got 1"),  # a missing call
    ],
)
def test_exact_match__failure__the_seeds_mismatch_keys_and_count_wording(
    actual: list[Any], reference: list[Any], index: int, names: tuple[str, str] | None, counts: str | None
) -> None:
    result = score(ToolCallExactMatch(), actual, reference)
    assert result.passed is False
    assert result.metadata["mismatch_index"] == result.metadata["index"] == index
    if names is not None:
        assert (result.metadata["expected_name"], result.metadata["actual_name"]) == names
    else:
        assert "expected_name" not in result.metadata
    assert (
        (result.reasoning or "").startswith(counts) if counts else "Expected" not in (result.reasoning or "")
    )


@pytest.mark.parametrize(
    ("actual", "passed", "keys"),
    [
        ([C, A], True, {"matched_name": "fly_to"}),
        ([], False, {"failure_mode": "silence", "actual_count": 0}),
        ([C], False, {"failure_mode": "no_match"}),
    ],
)
def test_any_match__metadata__the_seeds_matched_name_and_failure_mode(
    actual: list[Any], passed: bool, keys: dict[str, Any]
) -> None:
    result = score(ToolCallAnyMatch(), actual, [B, A])
    assert result.passed is passed
    assert {key: result.metadata.get(key) for key in keys} == keys


def test_superset_match__missing_reference_call__reports_its_index() -> None:
    result = score(ToolCallSupersetMatch(), [A, C], [A, B])
    assert result.metadata["index"] == 1
    assert result.metadata["expected"] == B
    assert "never made" in result.metadata["reason"]


def test_superset_match__call_only_earlier__says_out_of_order() -> None:
    result = score(ToolCallSupersetMatch(), [B, A], [A, B])
    assert "out of order" in result.metadata["reason"]


def test_subset_match__call_not_in_reference__reports_agent_index() -> None:
    result = score(ToolCallSubsetMatch(), [A, C], [A, B])
    assert result.metadata["index"] == 1
    assert result.metadata["actual"] == C
    assert "is not in the reference" in result.metadata["reason"]


def test_unordered_match__count_differs__lists_unmatched_calls() -> None:
    result = score(ToolCallUnorderedMatch(), [A, C], [A, B, B])
    assert [c["name"] for c in result.metadata["unmatched_reference"]] == ["land", "land"]
    assert [c["index"] for c in result.metadata["unmatched_actual"]] == [1]
    assert "expected 3 call(s), got 2" in result.metadata["reason"]


def test_any_match__silence__fails_with_reason() -> None:
    result = score(ToolCallAnyMatch(), [], [A, B])
    assert not result.passed
    assert result.metadata["reason"] == "the agent made no tool calls"


def test_any_match__second_alternative__reports_which_pair_matched() -> None:
    status_all = call("get_status", device_type="all")
    status_lights = call("get_status", device_type="lights")
    result = score(ToolCallAnyMatch(), [C, status_all], [status_lights, status_all])
    assert result.passed
    assert result.metadata["matched"] == {"actual_index": 1, "reference_index": 1}


def test_tool_call_scorer__no_reference__is_an_error_score_saying_where_it_goes() -> None:
    result = ToolCallExactMatch()(TaskResult(output="", context={"outputs": []}), ExpectedResult(expected=""))
    assert not result.passed
    assert result.error is not None and "reference_outputs" in result.error


def test_tool_call_scorer__no_outputs__is_an_error_score_naming_the_contract() -> None:
    result = ToolCallExactMatch()(
        TaskResult(output="x"), ExpectedResult(expected="", context={"reference_outputs": [A]})
    )
    assert result.error is not None and "context={'outputs': messages}" in result.error


def test_tool_call_scorer__agent_sent_invalid_json_arguments__fails_without_error() -> None:
    frames = [{"role": "assistant", "tool_calls": [wire("fly_to", "{lat: 1")]}]
    result = ToolCallExactMatch()(
        TaskResult(output="", context={"outputs": frames}),
        ExpectedResult(expected="", context={"reference_outputs": [A]}),
    )
    assert not result.passed and result.error is None
    assert "not valid JSON" in result.metadata["reason"]


def test_tool_call_scorer__malformed_reference__is_an_error_naming_the_message() -> None:
    reference = [{"role": "assistant", "tool_calls": [{"args": {}}]}]
    result = ToolCallExactMatch()(
        TaskResult(output="", context={"outputs": []}),
        ExpectedResult(expected="", context={"reference_outputs": reference}),
    )
    assert result.error is not None and "message 0, tool call 0" in result.error


@pytest.mark.parametrize("relation", sorted(RELATIONS))
def test_tool_call_scorer__unknown_mode__is_rejected_listing_modes(relation: str) -> None:
    with pytest.raises(ValueError, match="exact, subset, superset, ignore"):
        RELATIONS[relation](tool_args_match_mode="fuzzy")  # type: ignore[arg-type]


@pytest.mark.parametrize("relation", sorted(RELATIONS))
def test_tool_call_scorer__name__is_class_name_unless_overridden(relation: str) -> None:
    cls = RELATIONS[relation]
    assert cls().name == cls.__name__
    assert cls(name="strict_calls").name == "strict_calls"


def test_tool_call_scorer__boolean_arg__does_not_equal_integer() -> None:
    assert not score(ToolCallExactMatch(), [call("land", soft=1)], [B]).passed


# --- the unordered relation agrees with brute force ---------------------------------------

_small_calls = st.lists(
    st.fixed_dictionaries(
        {
            "name": st.sampled_from(["a", "b"]),
            "args": st.dictionaries(st.sampled_from(["x", "y"]), st.sampled_from([1, 2]), max_size=2),
        }
    ),
    max_size=5,
)


@settings(max_examples=300, deadline=None)
@given(actual=_small_calls, reference=_small_calls, mode=st.sampled_from(MODES))
def test_unordered_match__any_lists__agrees_with_trying_every_permutation(
    actual: list[dict[str, Any]], reference: list[dict[str, Any]], mode: str
) -> None:
    def fits(a: dict[str, Any], r: dict[str, Any]) -> bool:
        return a["name"] == r["name"] and args_match(a["args"], r["args"], mode)  # type: ignore[arg-type]

    brute = len(actual) == len(reference) and any(
        all(fits(a, r) for a, r in zip(actual, perm, strict=True))
        for perm in itertools.permutations(reference)
    )
    assert score(ToolCallUnorderedMatch(tool_args_match_mode=mode), actual, reference).passed is brute  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(actual=_small_calls, reference=_small_calls, mode=st.sampled_from(MODES))
def test_superset_and_subset__any_lists__agree_with_trying_every_subsequence(
    actual: list[dict[str, Any]], reference: list[dict[str, Any]], mode: str
) -> None:
    def fits(a: dict[str, Any], r: dict[str, Any]) -> bool:
        return a["name"] == r["name"] and args_match(a["args"], r["args"], mode)  # type: ignore[arg-type]

    superset = any(
        all(fits(actual[j], r) for j, r in zip(picks, reference, strict=True))
        for picks in itertools.combinations(range(len(actual)), len(reference))
    )
    subset = any(
        all(fits(a, reference[j]) for a, j in zip(actual, picks, strict=True))
        for picks in itertools.combinations(range(len(reference)), len(actual))
    )
    assert score(ToolCallSupersetMatch(tool_args_match_mode=mode), actual, reference).passed is superset  # type: ignore[arg-type]
    assert score(ToolCallSubsetMatch(tool_args_match_mode=mode), actual, reference).passed is subset  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("scorer", "reasoning"),
    [
        (ToolCallExactMatch(), "All 2 tool call(s) matched"),
        (ToolCallSupersetMatch(), "All 2 reference call(s) matched"),
        (ToolCallSubsetMatch(), "All 2 actual call(s) matched against reference"),
        (ToolCallUnorderedMatch(), "All 2 call(s) matched (any order)"),
    ],
    ids=lambda v: getattr(v, "name", ""),
)
def test_passing_tool_call_score__seed_reasoning_counts_and_mode(scorer: Any, reasoning: str) -> None:
    calls = [{"name": "a", "args": {}}, {"name": "b", "args": {"x": 1}}]
    frames = [{"role": "assistant", "tool_calls": calls}]
    score = scorer(
        TaskResult(output="", context={"outputs": frames}),
        ExpectedResult(expected="", context={"reference_outputs": frames}),
    )
    assert score.passed and score.reasoning == reasoning
    assert (score.metadata["actual_count"], score.metadata["reference_count"]) == (2, 2)
    assert score.metadata["tool_args_match_mode"] == "exact"


def test_tool_call_score__missing_messages__error_also_under_metadata_error() -> None:
    score = ToolCallExactMatch()(
        TaskResult(output=""), ExpectedResult(expected="", context={"reference_outputs": []})
    )
    assert not score.passed and score.error and score.metadata["error"] == score.error
