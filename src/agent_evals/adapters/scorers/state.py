"""StateMatch: check dotted paths of the agent's final world state against expected values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from agent_evals.adapters.scorers.equality import values_equal
from agent_evals.core.types import ExpectedResult, Score, TaskResult

__all__ = ["PATH_MISSING", "StateMatch", "resolve_path"]

PATH_MISSING = "path missing"

_MISSING = object()


def resolve_path(state: Any, path: str) -> tuple[bool, Any]:
    """Follow a dotted path (``rooms.0.name``) through dicts and list indices.

    Returns ``(True, value)`` when every step exists, else ``(False, None)``. A step into a
    list must be an integer index (negative counts from the end).
    """
    found = _walk(state, path)
    return (False, None) if found is _MISSING else (True, found)


def _walk(state: Any, path: str) -> Any:
    node = state
    for part in path.split("."):
        if type(node) is dict and part in node:  # the common case, without ABC checks
            node = node[part]
            continue
        if isinstance(node, Mapping):
            if part in node:
                node = node[part]
                continue
            if _is_index(part) and int(part) in node:  # dicts keyed by ints
                node = node[int(part)]
                continue
            return _MISSING
        if isinstance(node, Sequence) and not isinstance(node, (str, bytes)) and _is_index(part):
            position = int(part)
            if -len(node) <= position < len(node):
                node = node[position]
                continue
        return _MISSING
    return node


def _is_index(part: str) -> bool:
    return part.lstrip("-").isdigit()


class StateMatch:
    """Fraction of expected dotted paths whose value in ``final_state`` matches.

    Expectations come from ``expected.context["expected_state"]`` when present, else from the
    ``expected_state`` given here. Values compare as JSON (``True`` is not ``1``).
    ``metadata["failures"]`` maps each failing path to ``{expected, actual}`` (plus
    ``reason: "path missing"`` when the path does not exist); ``metadata["paths_checked"]``
    counts the paths. A missing or non-dict state, or no paths at all, is a failing Score with
    a ``reason``, never an exception.
    """

    name = "StateMatch"
    runs_inline: ClassVar[bool] = True
    """Quick and pure: the runner calls it on the event loop instead of in a worker thread."""

    def __init__(self, expected_state: Mapping[str, Any] | None = None) -> None:
        if expected_state is not None and not isinstance(expected_state, Mapping):
            raise TypeError(
                "StateMatch(expected_state=...) takes a mapping of dotted paths to values, e.g. "
                f"{{'lights.kitchen.state': 'on'}}, got {type(expected_state).__name__}"
            )
        self.expected_state = dict(expected_state) if expected_state is not None else None

    def __repr__(self) -> str:
        return f"StateMatch(expected_state={self.expected_state!r})"

    def __call__(self, result: TaskResult, expected: ExpectedResult | None = None, **context: Any) -> Score:
        """Score ``result.context["final_state"]`` against the expected paths."""
        per_example = (expected.context or {}).get("expected_state", _MISSING) if expected else _MISSING
        paths = self.expected_state if per_example is _MISSING else per_example
        if type(paths) is not dict and not isinstance(paths, Mapping):
            what = "none given" if paths is None else f"got {type(paths).__name__}"
            return self._fail(
                "no expected_state provided",
                "no expected_state to check: pass StateMatch(expected_state={...}) or set "
                f"ExpectedResult.context['expected_state'] to a mapping of dotted paths ({what})",
                0,
            )
        if not paths:
            return self._fail(
                "expected_state is empty", "expected_state is empty: there are no paths to check", 0
            )
        state = (result.context or {}).get("final_state", _MISSING)
        if state is _MISSING:
            return self._fail(
                "'final_state' missing or not a dict",
                "the task result has no final state: return TaskResult(output=..., context={'final_state': {...}})",
                len(paths),
                got_type="NoneType",
            )
        if type(state) is not dict and not isinstance(state, Mapping):
            return self._fail(
                "'final_state' missing or not a dict",
                f"final_state must be a dict, got {type(state).__name__}",
                len(paths),
                got_type=type(state).__name__,
            )
        failures: dict[str, dict[str, Any]] = {}
        for path, want in paths.items():
            got = _walk(state, str(path))
            if got is _MISSING:
                failures[str(path)] = {"expected": want, "actual": None, "reason": PATH_MISSING}
            elif not values_equal(got, want):
                failures[str(path)] = {"expected": want, "actual": got}
        matched = len(paths) - len(failures)
        return Score(
            name=self.name,
            value=matched / len(paths),
            passed=not failures,
            metadata={"failures": failures, "paths_checked": len(paths)},
            reasoning=(
                f"All {len(paths)} paths matched"
                if not failures
                else f"{len(failures)}/{len(paths)} path(s) failed: {sorted(failures)}"
            ),
        )

    def _fail(self, error: str, reason: str, paths_checked: int, **extra: str) -> Score:
        # unscorable, not errored: a failing verdict whose metadata says why (the seed's keys)
        return Score(
            name=self.name,
            value=0.0,
            passed=False,
            metadata={
                "error": error,
                **extra,
                "failures": {},
                "paths_checked": paths_checked,
                "reason": reason,
            },
            reasoning=reason,
        )
