"""Reading trajectories for the agentevals wrappers: outputs from the result, references from the example."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_evals.adapters.converters.langchain import to_openai_messages
from agent_evals.core.types import ExpectedResult, TaskResult
from agent_evals.errors import MissingDependency


class TrajectoryInputError(ValueError):
    """A result or reference that does not hold a usable trajectory."""


def import_agentevals(feature: str) -> Any:
    """Import agentevals (which pulls in LangChain), or raise MissingDependency naming the extra."""
    try:
        import agentevals
        import agentevals.graph_trajectory.strict
        import agentevals.trajectory.llm
        import agentevals.trajectory.match
    except ImportError as exc:
        raise MissingDependency("agentevals", "agentevals", feature) from exc
    return agentevals


def actual_value(result: TaskResult, scorer: str) -> Any:
    """``result.context["outputs"]``, or TrajectoryInputError saying how to provide it."""
    context = result.context or {}
    if context.get("outputs") is None:
        raise TrajectoryInputError(
            "the agent's trajectory is missing: return TaskResult(output=..., context={'outputs': <messages>}) "
            f"from the task for {scorer}"
        )
    return context["outputs"]


def reference_value(expected: ExpectedResult | None, scorer: str, *, required: bool) -> Any:
    """``expected.context["reference_outputs"]`` (None when optional and absent)."""
    context = (expected.context if expected is not None else None) or {}
    reference = context.get("reference_outputs")
    if reference is None and required:
        raise TrajectoryInputError(
            "the reference trajectory is missing: set "
            f"ExpectedResult(expected=..., context={{'reference_outputs': <messages>}}) on the example for {scorer}"
        )
    return reference


def message_list(value: Any, where: str) -> list[dict[str, Any]]:
    """A trajectory (list, ``{"messages": [...]}``, LangChain objects) as OpenAI-format dicts."""
    try:
        return to_openai_messages(value, where=where)
    except ValueError as exc:
        raise TrajectoryInputError(str(exc)) from exc


def graph_trajectory(value: Any, where: str) -> dict[str, Any]:
    """Check a LangGraph trajectory ``{"steps": [[node, ...], ...], "results": [...], "inputs"?}``."""
    if not isinstance(value, Mapping) or not isinstance(value.get("steps"), list):
        raise TrajectoryInputError(
            f"{where}: expected a graph trajectory {{'steps': [[node, ...], ...], 'results': [...]}}, "
            f"got {type(value).__name__}"
        )
    trajectory = dict(value)
    steps: list[Any] = trajectory["steps"]
    trajectory.setdefault("results", [None] * len(steps))
    if not isinstance(trajectory.get("inputs"), list):
        trajectory["inputs"] = [None] * len(steps)
    return trajectory
