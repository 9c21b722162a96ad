"""Native tool-call scorers: exact, superset, subset, unordered and any-of matching of an agent's calls."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal, get_args

from agent_evals.adapters.scorers.equality import values_equal
from agent_evals.core.messages import extract_tool_calls, tool_call_pairs
from agent_evals.core.types import ExpectedResult, Score, TaskResult

__all__ = [
    "ArgsMatchMode",
    "ToolCallAnyMatch",
    "ToolCallExactMatch",
    "ToolCallSubsetMatch",
    "ToolCallSupersetMatch",
    "ToolCallUnorderedMatch",
    "args_match",
    "extract_tool_calls",
]

ArgsMatchMode = Literal["exact", "subset", "superset", "ignore"]
_MODES: tuple[str, ...] = get_args(ArgsMatchMode)

Call = tuple[str, dict[str, Any]]  # (name, args): the scorers' working form, dicts only in metadata
Details = dict[str, Any]
Matcher = Callable[[Call, Call], bool]  # (agent call, reference call) -> do they match


def args_match(actual: Mapping[str, Any], reference: Mapping[str, Any], mode: ArgsMatchMode) -> bool:
    """Compare one call's arguments under ``mode``.

    ``exact``: same keys and values. ``subset``: actual ⊆ reference (the agent passes nothing the
    reference does not list). ``superset``: reference ⊆ actual (extras allowed). ``ignore``: always.
    """
    if mode == "exact":
        return values_equal(actual, reference)
    if mode == "subset":
        return all(key in reference and values_equal(value, reference[key]) for key, value in actual.items())
    if mode == "superset":
        return all(key in actual and values_equal(actual[key], value) for key, value in reference.items())
    return True


def _match_exact(actual: Call, reference: Call) -> bool:
    # values_equal(actual args, reference args), unrolled one level: both are plain dicts here
    if actual[0] != reference[0]:
        return False
    mine, theirs = actual[1], reference[1]
    if mine.keys() != theirs.keys():
        return False
    for key, value in theirs.items():
        other = mine[key]
        if type(other) is str and type(value) is str:
            if other != value:
                return False
        elif not values_equal(other, value):
            return False
    return True


def _match_subset(actual: Call, reference: Call) -> bool:
    return actual[0] == reference[0] and args_match(actual[1], reference[1], "subset")


def _match_superset(actual: Call, reference: Call) -> bool:
    return actual[0] == reference[0] and args_match(actual[1], reference[1], "superset")


def _match_ignore(actual: Call, reference: Call) -> bool:
    return actual[0] == reference[0]


_MATCHERS: dict[str, Matcher] = {
    "exact": _match_exact,
    "subset": _match_subset,
    "superset": _match_superset,
    "ignore": _match_ignore,
}


def _as_dict(call: Call) -> dict[str, Any]:
    return {"name": call[0], "args": call[1]}


_ARGS_ENCODER = json.JSONEncoder(sort_keys=True, default=str)  # json.dumps would build one per call
_quote: Callable[[str], str] = json.encoder.encode_basestring_ascii


def _args_text(args: dict[str, Any]) -> str:
    """``json.dumps(args, sort_keys=True, default=str)``, spelled out for string and integer values."""
    try:
        keys = sorted(args)
    except TypeError:
        return _ARGS_ENCODER.encode(args)
    parts = []
    for key in keys:
        value = args[key]
        kind = type(value)
        if type(key) is not str or (kind is not str and kind is not int):
            return _ARGS_ENCODER.encode(args)
        parts.append(f"{_quote(key)}: {_quote(value) if kind is str else int.__repr__(value)}")
    return "{" + ", ".join(parts) + "}"


def _show(call: Call) -> str:
    text = f"{call[0]}({_args_text(call[1])})"
    return text if len(text) <= 200 else text[:197] + "..."


class _ToolCallScorer(ABC):
    """Shared plumbing: read both call lists, compare, build the Score."""

    default_name: ClassVar[str]
    runs_inline: ClassVar[bool] = True
    """Quick and pure: the runner calls it on the event loop instead of in a worker thread."""

    def __init__(self, tool_args_match_mode: ArgsMatchMode = "exact", *, name: str | None = None) -> None:
        if tool_args_match_mode not in _MODES:
            raise ValueError(
                f"{type(self).__name__}: tool_args_match_mode must be one of {', '.join(_MODES)}, "
                f"got {tool_args_match_mode!r}"
            )
        self.tool_args_match_mode: ArgsMatchMode = tool_args_match_mode
        self.name = name or self.default_name

    def __repr__(self) -> str:
        return f"{type(self).__name__}(tool_args_match_mode={self.tool_args_match_mode!r})"

    def __call__(self, result: TaskResult, expected: ExpectedResult | None = None, **context: Any) -> Score:
        """Score the agent's tool calls against ``expected.context["reference_outputs"]``."""
        ref_messages = (expected.context or {}).get("reference_outputs") if expected is not None else None
        if ref_messages is None:
            return self._error(
                "no reference: put the expected calls in ExpectedResult(expected=..., context={'reference_outputs': [...]})"
            )
        try:
            reference = tool_call_pairs(ref_messages)
        except (TypeError, ValueError) as exc:
            return self._error(f"reference_outputs: {exc}")
        outputs = (result.context or {}).get("outputs")
        if outputs is None:
            return self._error(
                "the task result has no messages: return TaskResult(output=..., context={'outputs': messages})"
            )
        try:
            actual = tool_call_pairs(outputs)
        except (TypeError, ValueError) as exc:
            return self._score(False, {"reason": f"could not read the agent's tool calls: {exc}"}, None, [])
        ok, details = self._compare(actual, reference, _MATCHERS[self.tool_args_match_mode])
        return self._score(ok, details, actual, reference)

    def _why(self, actual: Call, reference: Call) -> str:
        if actual[0] != reference[0]:
            return f"expected tool {reference[0]!r}, got {actual[0]!r}"
        return (
            f"{actual[0]}: arguments do not match ({self.tool_args_match_mode}): "
            f"expected {_show(reference)}, got {_show(actual)}"
        )

    @abstractmethod
    def _compare(self, actual: list[Call], reference: list[Call], matches: Matcher) -> tuple[bool, Details]:
        """Decide the relation; return (passed, metadata details with a ``reason`` on failure)."""

    def _error(self, message: str) -> Score:
        return Score(
            name=self.name,
            value=0.0,
            passed=False,
            error=message,
            metadata={"error": message, "tool_args_match_mode": self.tool_args_match_mode},
        )

    def _score(self, ok: bool, details: Details, actual: list[Call] | None, reference: list[Call]) -> Score:
        metadata: Details = {
            "tool_args_match_mode": self.tool_args_match_mode,
            "actual_count": len(actual) if actual is not None else None,
            "reference_count": len(reference),
            **details,
        }
        reasoning = details.get("reason")
        if ok and reasoning is None and actual is not None:
            if isinstance(self, ToolCallExactMatch):
                metadata["call_count"] = len(actual)
            reasoning = _PASSED.get(self.default_name, "All tool calls matched").format(
                actual=len(actual), reference=len(reference)
            )
        return Score(
            name=self.name, value=1.0 if ok else 0.0, passed=ok, metadata=metadata, reasoning=reasoning
        )


_PASSED = {  # the reasoning of a passing Score, as the seed project words it
    "ToolCallExactMatch": "All {actual} tool call(s) matched",
    "ToolCallSupersetMatch": "All {reference} reference call(s) matched",
    "ToolCallSubsetMatch": "All {actual} actual call(s) matched against reference",
    "ToolCallUnorderedMatch": "All {reference} call(s) matched (any order)",
}


class ToolCallExactMatch(_ToolCallScorer):
    """The agent made exactly the reference calls, in order: no extras, no omissions."""

    default_name = "ToolCallExactMatch"

    def _compare(self, actual: list[Call], reference: list[Call], matches: Matcher) -> tuple[bool, Details]:
        if len(actual) == len(reference) and all(map(matches, actual, reference)):
            return True, {}
        ok, details = self._first_difference(actual, reference, matches)
        index = details.get("index")
        if isinstance(index, int):
            details["mismatch_index"] = index  # the seed's key
            if index < len(actual) and index < len(reference):
                details["expected_name"], details["actual_name"] = reference[index][0], actual[index][0]
        if len(actual) != len(reference):
            details["reason"] = (
                f"Expected {len(reference)} tool call(s), got {len(actual)}; {details.get('reason', '')}"
            ).rstrip("; ")
        return ok, details

    def _first_difference(
        self, actual: list[Call], reference: list[Call], matches: Matcher
    ) -> tuple[bool, Details]:
        for i in range(max(len(actual), len(reference))):
            if i >= len(actual):
                return False, {
                    "index": i,
                    "expected": _as_dict(reference[i]),
                    "actual": None,
                    "reason": f"call {i}: expected {_show(reference[i])}, but the agent made only "
                    f"{len(actual)} call(s)",
                }
            if i >= len(reference):
                return False, {
                    "index": i,
                    "expected": None,
                    "actual": _as_dict(actual[i]),
                    "reason": f"call {i}: unexpected extra call {_show(actual[i])}; the reference has "
                    f"{len(reference)} call(s)",
                }
            if not matches(actual[i], reference[i]):
                return False, {
                    "index": i,
                    "expected": _as_dict(reference[i]),
                    "actual": _as_dict(actual[i]),
                    "reason": f"call {i}: {self._why(actual[i], reference[i])}",
                }
        return True, {}


def _subsequence(
    needles: list[Call], haystack: list[Call], matches: Callable[[Call, Call], bool]
) -> tuple[list[int], int | None, int]:
    """Greedy earliest-position embedding of ``needles`` into ``haystack`` in order.

    Greedy is optimal here: taking the earliest match for each needle leaves the most room for
    the rest. Returns (positions, first needle that could not be placed, haystack search start).
    """
    positions: list[int] = []
    j = 0
    for i, needle in enumerate(needles):
        while j < len(haystack) and not matches(needle, haystack[j]):
            j += 1
        if j == len(haystack):
            start = positions[-1] + 1 if positions else 0
            return positions, i, start
        positions.append(j)
        j += 1
    return positions, None, 0


class ToolCallSupersetMatch(_ToolCallScorer):
    """Every reference call appears among the agent's calls, in order; extra calls are fine."""

    default_name = "ToolCallSupersetMatch"

    def _compare(self, actual: list[Call], reference: list[Call], matches: Matcher) -> tuple[bool, Details]:
        positions, missing, start = _subsequence(reference, actual, lambda r, a: matches(a, r))
        if missing is None:
            return True, {"matched_actual_indices": positions}
        ref = reference[missing]
        anywhere = any(matches(a, ref) for a in actual)
        where = "only earlier, out of order" if anywhere else "never"
        return False, {
            "index": missing,
            "expected": _as_dict(ref),
            "actual": None,
            "matched_actual_indices": positions,
            "reason": f"reference call {missing} {_show(ref)} was {where} made "
            f"(searched agent calls {start}..{len(actual) - 1})"
            if actual
            else f"reference call {missing} {_show(ref)} was never made: the agent made no tool calls",
        }


class ToolCallSubsetMatch(_ToolCallScorer):
    """Every agent call appears in the reference, in order; skipping reference calls is fine."""

    default_name = "ToolCallSubsetMatch"

    def _compare(self, actual: list[Call], reference: list[Call], matches: Matcher) -> tuple[bool, Details]:
        positions, extra, start = _subsequence(actual, reference, matches)
        if extra is None:
            return True, {"matched_reference_indices": positions}
        call = actual[extra]
        anywhere = any(matches(call, r) for r in reference)
        why = "comes out of order" if anywhere else "is not in the reference"
        return False, {
            "index": extra,
            "expected": None,
            "actual": _as_dict(call),
            "matched_reference_indices": positions,
            "reason": f"agent call {extra} {_show(call)} {why} (searched reference calls from {start})",
        }


def max_bipartite_matching(left: int, right: int, edges: Callable[[int, int], bool]) -> list[int | None]:
    """A maximum matching of a bipartite graph by augmenting paths (Kuhn's algorithm).

    Returns, for each left vertex, the right vertex it is paired with (or None). Iterative, so
    long call lists cannot overflow the recursion limit.
    """
    return _augmenting_matching([[j for j in range(right) if edges(i, j)] for i in range(left)], right)


def _augmenting_matching(adjacency: list[list[int]], right: int) -> list[int | None]:
    """Kuhn's algorithm on adjacency lists (each in ascending order of right vertex)."""
    match_right: list[int | None] = [None] * right
    match_left: list[int | None] = [None] * len(adjacency)
    for root in range(len(adjacency)):
        parent_of_right: dict[int, int] = {}  # right vertex -> left vertex that reached it
        stack = [root]
        visited_left = {root}
        end: int | None = None
        while stack and end is None:
            u = stack.pop()
            for v in adjacency[u]:
                if v in parent_of_right:
                    continue
                parent_of_right[v] = u
                owner = match_right[v]
                if owner is None:
                    end = v
                    break
                if owner not in visited_left:
                    visited_left.add(owner)
                    stack.append(owner)
        while end is not None:  # flip the augmenting path back to the root
            u = parent_of_right[end]
            previous = match_left[u]
            match_left[u] = end
            match_right[end] = u
            end = previous
    return match_left


def _by_name(reference: list[Call]) -> dict[str, list[int]]:
    """Reference positions per tool name, ascending: calls only ever match calls of the same name."""
    positions: dict[str, list[int]] = {}
    for j, ref in enumerate(reference):
        bucket = positions.get(ref[0])
        if bucket is None:
            positions[ref[0]] = [j]
        else:
            bucket.append(j)
    return positions


def _first_free_pairing(
    actual: list[Call], reference: list[Call], by_name: dict[str, list[int]], matches: Matcher
) -> list[int | None] | None:
    """Pair each agent call with the earliest free reference call it matches, or None when one has none.

    While every agent call finds a free partner, the augmenting-path search makes exactly these
    choices (it takes a root's first free neighbour before trying to reroute anything), so a
    complete result here is its result.
    """
    free = {name: list(bucket) for name, bucket in by_name.items()}
    pairing: list[int | None] = []
    for call in actual:
        bucket = free.get(call[0])
        if not bucket:
            return None
        for position, j in enumerate(bucket):
            if matches(call, reference[j]):
                del bucket[position]
                pairing.append(j)
                break
        else:
            return None
    return pairing


def _unordered_pairing(actual: list[Call], reference: list[Call], matches: Matcher) -> list[int | None]:
    """The maximum matching ``max_bipartite_matching`` finds, by a cheaper route where one exists.

    When every agent call matches the reference call at its own position, the search pairs each
    with its own position; when every agent call finds a free partner in turn, it makes the
    first-free choices; only otherwise (an agent call with no free partner left, where another
    pairing might make room) does the augmenting-path search run, on same-name edges only.
    """
    count = len(actual)
    if count == len(reference) and all(map(matches, actual, reference)):
        return list(range(count))
    by_name = _by_name(reference)
    pairing = _first_free_pairing(actual, reference, by_name, matches)
    if pairing is not None:
        return pairing
    adjacency = [[j for j in by_name.get(call[0], ()) if matches(call, reference[j])] for call in actual]
    return _augmenting_matching(adjacency, len(reference))


class ToolCallUnorderedMatch(_ToolCallScorer):
    """The agent made the same multiset of calls as the reference, in any order."""

    default_name = "ToolCallUnorderedMatch"

    def _compare(self, actual: list[Call], reference: list[Call], matches: Matcher) -> tuple[bool, Details]:
        pairing = _unordered_pairing(actual, reference, matches)
        if len(actual) == len(reference) and None not in pairing:
            return True, {"pairing": pairing}
        paired_refs = {j for j in pairing if j is not None}
        unmatched_actual: list[dict[str, Any]] = [
            {"index": i, "name": actual[i][0], "args": actual[i][1]}
            for i, j in enumerate(pairing)
            if j is None
        ]
        unmatched_reference: list[dict[str, Any]] = [
            {"index": j, "name": reference[j][0], "args": reference[j][1]}
            for j in range(len(reference))
            if j not in paired_refs
        ]
        if not unmatched_actual and not unmatched_reference:
            return True, {"pairing": pairing}
        parts = []
        if len(actual) != len(reference):
            parts.append(f"expected {len(reference)} call(s), got {len(actual)}")
        if unmatched_reference:
            parts.append(
                "no agent call for reference "
                + ", ".join(_show((c["name"], c["args"])) for c in unmatched_reference[:5])
            )
        if unmatched_actual:
            parts.append(
                "unexpected " + ", ".join(_show((c["name"], c["args"])) for c in unmatched_actual[:5])
            )
        return False, {
            "unmatched_actual": unmatched_actual,
            "unmatched_reference": unmatched_reference,
            "reason": "; ".join(parts),
        }


class ToolCallAnyMatch(_ToolCallScorer):
    """At least one agent call matches at least one reference call; no calls at all fails."""

    default_name = "ToolCallAnyMatch"

    def _compare(self, actual: list[Call], reference: list[Call], matches: Matcher) -> tuple[bool, Details]:
        # failure_mode and matched_name are the seed's keys
        if not reference:
            return False, {
                "reason": "the reference lists no acceptable tool calls",
                "failure_mode": "no_reference",
            }
        if not actual:
            return False, {"reason": "the agent made no tool calls", "failure_mode": "silence"}
        for i, call in enumerate(actual):
            for j, ref in enumerate(reference):
                if matches(call, ref):
                    return True, {
                        "matched": {"actual_index": i, "reference_index": j},
                        "matched_name": call[0],
                    }
        return False, {
            "reason": f"none of the agent's {len(actual)} call(s) matches any of the "
            f"{len(reference)} acceptable call(s): got {', '.join(_show(c) for c in actual[:5])}",
            "failure_mode": "no_match",
        }
