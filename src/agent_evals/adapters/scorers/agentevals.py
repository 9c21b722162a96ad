"""agentevals trajectory scorers usable in ``run_eval_async``: matchers here, LLM judges re-exported.

Actual trajectory: ``result.context["outputs"]``; reference: ``expected.context["reference_outputs"]``.
Both may be a message list or ``{"messages": [...]}``, of OpenAI dicts or LangChain message objects.
agentevals (and LangChain) is imported when a wrapper is constructed, never at module import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal, get_args

from agent_evals.adapters.scorers.trajectory_input import (
    TrajectoryInputError,
    actual_value,
    graph_trajectory,
    import_agentevals,
    message_list,
    reference_value,
)
from agent_evals.adapters.scorers.trajectory_judges import GraphTrajectoryLLMAsJudge, TrajectoryLLMAsJudge
from agent_evals.adapters.scorers.wrapped_score import check_threshold, failing_score, threshold_score
from agent_evals.core.types import ExpectedResult, Score, TaskResult

__all__ = [
    "GraphTrajectoryLLMAsJudge",
    "GraphTrajectoryStrictMatch",
    "ToolArgsMatchMode",
    "TrajectoryLLMAsJudge",
    "TrajectoryStrictMatch",
    "TrajectorySubsetMatch",
    "TrajectorySupsetMatch",
    "TrajectoryUnorderedMatch",
]

ToolArgsMatchMode = Literal["exact", "ignore", "subset", "superset"]
"""How tool-call arguments are compared: equal, not at all, actual within reference, reference within actual.

The direction is the same in every mode of every wrapper, and a callable override is always
called as ``matcher(actual_args, reference_args)``.
"""

ToolArgsOverride = ToolArgsMatchMode | list[str] | Callable[[dict[str, Any], dict[str, Any]], bool]
"""Per-tool override: a mode, the argument keys (dotted paths) to compare, or ``matcher(actual, reference)``."""

_MODES: tuple[str, ...] = get_args(ToolArgsMatchMode)


def _check_mode(mode: object, where: str) -> None:
    if mode not in _MODES:
        raise ValueError(f"{where} must be one of {', '.join(_MODES)}; got {mode!r}")


def _check_overrides(overrides: Mapping[str, Any] | None, scorer: str) -> dict[str, Any] | None:
    if overrides is None:
        return None
    if not isinstance(overrides, Mapping):
        raise ValueError(f"{scorer}: tool_args_match_overrides must map tool names to overrides")
    checked: dict[str, Any] = {}
    for tool, override in overrides.items():
        where = f"{scorer}: tool_args_match_overrides[{tool!r}]"
        if isinstance(override, str):
            _check_mode(override, where)
        elif isinstance(override, list):
            if not override or not all(isinstance(key, str) and key for key in override):
                raise ValueError(f"{where}: a key list must hold argument names (dotted paths allowed)")
        elif not callable(override):
            raise ValueError(
                f"{where} must be a mode ({', '.join(_MODES)}), a list of argument keys, "
                f"or a callable matcher(actual_args, reference_args) -> bool; got {type(override).__name__}"
            )
        checked[str(tool)] = override
    return checked


def _swap(matcher: Callable[[dict[str, Any], dict[str, Any]], bool]) -> Callable[..., bool]:
    """A matcher called as (reference, actual) that calls ``matcher(actual, reference)``."""
    return lambda reference, actual: matcher(actual, reference)


def _swap_matchers(overrides: dict[str, Any] | None) -> dict[str, Any] | None:
    """Overrides for a pass that calls matchers as (reference, actual): only the functions are turned round."""
    if overrides is None:
        return None
    return {tool: _swap(o) if callable(o) else o for tool, o in overrides.items()}


def _reverse_direction(mode: str, overrides: dict[str, Any] | None) -> tuple[str, dict[str, Any] | None]:
    """The argument rules as agentevals' subset matcher needs them: it calls matchers as (reference, actual)."""
    flipped = {"subset": "superset", "superset": "subset"}

    def reverse(override: Any) -> Any:
        if isinstance(override, str):
            return flipped.get(override, override)
        return _swap(override) if callable(override) else override  # key lists are symmetric

    reversed_overrides = None if overrides is None else {t: reverse(o) for t, o in overrides.items()}
    return flipped.get(mode, mode), reversed_overrides


class _TrajectoryMatch:
    """Delegates to agentevals' trajectory matcher for one ``trajectory_match_mode``."""

    name: str = ""
    match_mode: ClassVar[str] = "strict"
    # agentevals' subset mode compares arguments as (reference, actual); we keep (actual, reference)
    reversed_arguments: ClassVar[bool] = False

    def __init__(
        self,
        *,
        tool_args_match_mode: ToolArgsMatchMode = "exact",
        tool_args_match_overrides: Mapping[str, ToolArgsOverride] | None = None,
        threshold: float = 1.0,
    ) -> None:
        _check_mode(tool_args_match_mode, f"{self.name}: tool_args_match_mode")
        self.tool_args_match_mode = tool_args_match_mode
        self.tool_args_match_overrides = _check_overrides(tool_args_match_overrides, self.name)
        self.threshold = check_threshold(threshold, self.name)
        agentevals = import_agentevals(f"The {self.name} scorer")
        create = agentevals.trajectory.match.create_trajectory_match_evaluator
        mode, overrides = str(tool_args_match_mode), self.tool_args_match_overrides
        if self.match_mode == "unordered":
            # agentevals' unordered mode is "actual covers reference and reference covers actual", its
            # second pass calling matchers as (reference, actual). Running the two passes as its
            # superset and subset modes lets a matcher function be called (actual, reference) on both;
            # modes and key lists are unchanged, so they behave exactly as in its unordered mode.
            self._evaluators = [
                create(
                    trajectory_match_mode="superset",
                    tool_args_match_mode=mode,
                    tool_args_match_overrides=overrides,
                ),
                create(
                    trajectory_match_mode="subset",
                    tool_args_match_mode=mode,
                    tool_args_match_overrides=_swap_matchers(overrides),
                ),
            ]
            return
        if self.reversed_arguments:
            mode, overrides = _reverse_direction(mode, overrides)
        self._evaluators = [
            create(
                trajectory_match_mode=self.match_mode,
                tool_args_match_mode=mode,
                tool_args_match_overrides=overrides,
            )
        ]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(tool_args_match_mode={self.tool_args_match_mode!r})"

    def __call__(self, result: TaskResult, expected: ExpectedResult | None = None, **context: Any) -> Score:
        """Compare the trajectories; a missing or malformed one is a failing Score with ``error``."""
        try:
            outputs = message_list(actual_value(result, self.name), "context['outputs']")
            reference = message_list(
                reference_value(expected, self.name, required=True), "context['reference_outputs']"
            )
        except TrajectoryInputError as exc:
            return _error(self.name, f"{self.name}: {exc}")
        try:
            for evaluate in self._evaluators:  # every pass must hold; the first that fails decides
                verdict = evaluate(outputs=outputs, reference_outputs=reference)
                if verdict.get("score") is not True:
                    break
        except Exception as exc:  # a third-party failure must not take the run down
            return _error(self.name, f"{self.name} failed: {type(exc).__name__}: {exc}", exc)
        metadata: dict[str, Any] = {
            # agentevals' key for this mode (the unordered mode runs as two passes, see __init__)
            "agentevals_key": f"trajectory_{self.match_mode}_match",
            **(verdict.get("metadata") or {}),
            "mode": self.match_mode,
            "trajectory_length": len(outputs),
            "tool_args_match_mode": self.tool_args_match_mode,
        }
        if reference:
            metadata["reference_trajectory_length"] = len(reference)
        if self.tool_args_match_overrides:
            metadata["tool_args_match_overrides"] = self.tool_args_match_overrides
        return threshold_score(
            self.name,
            verdict.get("score"),
            self.threshold,
            metadata=metadata,
            reasoning=verdict.get("comment"),
        )


class TrajectoryStrictMatch(_TrajectoryMatch):
    """Same messages and the same tool calls in the same order (message text may differ)."""

    name = "TrajectoryStrictMatch"
    match_mode = "strict"


class TrajectoryUnorderedMatch(_TrajectoryMatch):
    """The same tool calls as the reference, in any order."""

    name = "TrajectoryUnorderedMatch"
    match_mode = "unordered"


class TrajectorySubsetMatch(_TrajectoryMatch):
    """Every tool call of the agent is in the reference (no extra calls; omissions allowed)."""

    name = "TrajectorySubsetMatch"
    match_mode = "subset"
    reversed_arguments = True


class TrajectorySupsetMatch(_TrajectoryMatch):
    """Every reference tool call was made by the agent (extra calls allowed)."""

    name = "TrajectorySupsetMatch"
    match_mode = "superset"


class GraphTrajectoryStrictMatch:
    """The agent visited the same graph nodes, step by step, as the reference graph trajectory.

    Trajectories are ``{"steps": [[node, ...], ...], "results": [...]}`` as agentevals extracts them
    from a LangGraph thread.
    """

    name = "GraphTrajectoryStrictMatch"

    def __init__(self, *, threshold: float = 1.0) -> None:
        self.threshold = check_threshold(threshold, self.name)
        agentevals = import_agentevals(f"The {self.name} scorer")
        self._match = agentevals.graph_trajectory.strict.graph_trajectory_strict_match

    def __repr__(self) -> str:
        return "GraphTrajectoryStrictMatch()"

    def __call__(self, result: TaskResult, expected: ExpectedResult | None = None, **context: Any) -> Score:
        """Compare node steps; a missing or malformed trajectory is a failing Score with ``error``."""
        try:
            outputs = graph_trajectory(actual_value(result, self.name), "context['outputs']")
            reference = graph_trajectory(
                reference_value(expected, self.name, required=True), "context['reference_outputs']"
            )
        except TrajectoryInputError as exc:
            return _error(self.name, f"{self.name}: {exc}")
        try:
            verdict = self._match(outputs=outputs, reference_outputs=reference)
        except Exception as exc:
            return _error(self.name, f"{self.name} failed: {type(exc).__name__}: {exc}", exc)
        nodes = [node for step in outputs.get("steps") or [] for node in step]
        metadata = {
            "agentevals_key": verdict.get("key", "unknown"),
            **(verdict.get("metadata") or {}),
            "trajectory_length": len(nodes),
            "reference_trajectory_length": sum(len(step) for step in reference.get("steps") or []),
            "graph_nodes": nodes,
        }
        return threshold_score(
            self.name,
            verdict.get("score"),
            self.threshold,
            metadata=metadata,
            reasoning=verdict.get("comment"),
        )


def _error(name: str, message: str, exc: Exception | None = None) -> Score:
    """An errored Score with the seed's metadata (``error``, ``exception_type``) and reasoning."""
    metadata = {"exception_type": type(exc).__name__} if exc is not None else {}
    return failing_score(name, message, metadata, reasoning=f"Scorer failed: {message}")
