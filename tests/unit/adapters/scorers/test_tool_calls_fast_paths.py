"""ToolCall* fast paths: plain-list reading and cheap unordered pairing give exactly the general results."""

from __future__ import annotations

import json
from typing import Any

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
from agent_evals.core.messages import extract_tool_calls
from agent_evals.core.types import ExpectedResult, TaskResult

SCORERS = (
    ToolCallExactMatch,
    ToolCallSupersetMatch,
    ToolCallSubsetMatch,
    ToolCallUnorderedMatch,
    ToolCallAnyMatch,
)
MODES = ("exact", "subset", "superset", "ignore")

# values where JSON equality differs from Python's ==: booleans vs numbers, 1 vs 1.0, NaN
_values = st.sampled_from([1, 1.0, True, False, 0, "1", None, [1], {"z": True}, float("nan")])
_args = st.dictionaries(st.sampled_from(["x", "y"]), _values, max_size=2)
_calls = st.lists(st.tuples(st.sampled_from(["a", "b"]), _args), max_size=6)


def _frames(calls: list[tuple[str, dict[str, Any]]], wire: list[bool]) -> list[dict[str, Any]]:
    """Messages in the OpenAI wire shape (JSON-string arguments) or the flat shape, mixed."""
    frames: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for (name, args), as_wire in zip(calls, wire + [False] * len(calls), strict=False):
        raw = (
            {"type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            if as_wire
            else {"name": name, "args": args}
        )
        frames.append({"role": "assistant", "content": "", "tool_calls": [raw]})
        frames.append({"role": "tool", "content": "ok"})
    return frames


def _same(first: Any, second: Any) -> bool:
    return json.dumps(first, sort_keys=True, default=repr) == json.dumps(second, sort_keys=True, default=repr)


@settings(max_examples=200, deadline=None)
@given(calls=_calls, wire=st.lists(st.booleans(), max_size=6))
def test_extract_tool_calls__plain_list__same_as_general_reading_of_a_tuple(
    calls: list[tuple[str, dict[str, Any]]], wire: list[bool]
) -> None:
    frames = _frames(calls, wire)
    # a tuple of messages is read by the general path, a list by the fast path
    assert _same(extract_tool_calls(frames), extract_tool_calls(tuple(frames)))


@settings(max_examples=300, deadline=None)
@given(actual=_calls, reference=_calls, shuffle=st.randoms(use_true_random=False))
def test_tool_call_scorers__plain_lists__score_exactly_like_the_general_path(
    actual: list[tuple[str, dict[str, Any]]], reference: list[tuple[str, dict[str, Any]]], shuffle: Any
) -> None:
    if shuffle.random() < 0.4:  # permutations of the reference exercise the pairing shortcuts
        actual = list(reference)
        shuffle.shuffle(actual)
    fast_out, fast_ref = _frames(actual, [True] * 3), _frames(reference, [False, True])
    for cls in SCORERS:
        for mode in MODES:
            scorer = cls(tool_args_match_mode=mode)  # type: ignore[arg-type]
            fast = scorer(
                TaskResult(output="", context={"outputs": fast_out}),
                ExpectedResult(expected="", context={"reference_outputs": fast_ref}),
            )
            general = scorer(
                TaskResult(output="", context={"outputs": tuple(fast_out)}),
                ExpectedResult(expected="", context={"reference_outputs": tuple(fast_ref)}),
            )
            assert _same(fast.model_dump(), general.model_dump()), (cls.__name__, mode)


@settings(max_examples=300, deadline=None)
@given(
    actual=_calls, reference=_calls, mode=st.sampled_from(MODES), shuffle=st.randoms(use_true_random=False)
)
def test_unordered_match__pairing__is_the_augmenting_path_matching(
    actual: list[tuple[str, dict[str, Any]]],
    reference: list[tuple[str, dict[str, Any]]],
    mode: str,
    shuffle: Any,
) -> None:
    if shuffle.random() < 0.4:
        actual = list(reference)
        shuffle.shuffle(actual)
    out = ToolCallUnorderedMatch(tool_args_match_mode=mode)(  # type: ignore[arg-type]
        TaskResult(output="", context={"outputs": _frames(actual, [])}),
        ExpectedResult(expected="", context={"reference_outputs": _frames(reference, [])}),
    )
    matching = max_bipartite_matching(
        len(actual),
        len(reference),
        lambda i, j: actual[i][0] == reference[j][0] and args_match(actual[i][1], reference[j][1], mode),  # type: ignore[arg-type]
    )
    if out.passed:
        assert out.metadata["pairing"] == matching
    else:
        unmatched = [i for i, j in enumerate(matching) if j is None]
        assert [u["index"] for u in out.metadata["unmatched_actual"]] == unmatched


_shown_values = st.one_of(
    st.text(max_size=8), st.integers(), st.booleans(), st.none(), st.floats(allow_nan=True)
)


@settings(max_examples=200, deadline=None)
@given(args=st.dictionaries(st.text(max_size=6), _shown_values, max_size=4))
def test_exact_match__argument_mismatch__reason_shows_arguments_as_sorted_json(args: dict[str, Any]) -> None:
    out = ToolCallExactMatch()(
        TaskResult(
            output="",
            context={"outputs": [{"role": "assistant", "tool_calls": [{"name": "f", "args": args}]}]},
        ),
        ExpectedResult(
            expected="",
            context={
                "reference_outputs": [
                    {"role": "assistant", "tool_calls": [{"name": "f", "args": {"\x00": 0}}]}
                ]
            },
        ),
    )
    assert not out.passed
    shown = f"f({json.dumps(args, sort_keys=True, default=str)})"
    shown = shown if len(shown) <= 200 else shown[:197] + "..."  # previews are cut at 200 characters
    assert (out.reasoning or "").endswith(f"got {shown}")
