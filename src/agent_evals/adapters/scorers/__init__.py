"""Scorers: the native ones (pydantic only) and, loaded on first use, autoevals/agentevals wrappers."""

from __future__ import annotations

import importlib
from typing import Any

from agent_evals.adapters.scorers.state import StateMatch
from agent_evals.adapters.scorers.tool_calls import (
    ToolCallAnyMatch,
    ToolCallExactMatch,
    ToolCallSubsetMatch,
    ToolCallSupersetMatch,
    ToolCallUnorderedMatch,
)

NATIVE_SCORERS: tuple[str, ...] = (
    "StateMatch",
    "ToolCallExactMatch",
    "ToolCallSupersetMatch",
    "ToolCallSubsetMatch",
    "ToolCallUnorderedMatch",
    "ToolCallAnyMatch",
)
AUTOEVALS_SCORERS: tuple[str, ...] = (
    "Levenshtein",
    "ExactMatch",
    "NumericDiff",
    "JSONDiff",
    "EmbeddingSimilarity",
    "Factuality",
    "ClosedQA",
    "Humor",
    "Security",
    "Summary",
    "Translation",
    "Sql",
    "Possible",
    "Battle",
    "LLMClassifier",
    "Moderation",
    "ListContains",
    "ValidJSON",
)
AGENTEVALS_SCORERS: tuple[str, ...] = (
    "TrajectoryStrictMatch",
    "TrajectoryUnorderedMatch",
    "TrajectorySubsetMatch",
    "TrajectorySupsetMatch",
    "TrajectoryLLMAsJudge",
    "GraphTrajectoryStrictMatch",
    "GraphTrajectoryLLMAsJudge",
)

# wrapper name -> module; importing those modules pulls in autoevals / LangChain, so only on use
_LAZY: dict[str, str] = {
    **dict.fromkeys(AUTOEVALS_SCORERS, "agent_evals.adapters.scorers.autoevals"),
    **dict.fromkeys(AGENTEVALS_SCORERS, "agent_evals.adapters.scorers.agentevals"),
}

__all__ = [
    "Battle",
    "ClosedQA",
    "EmbeddingSimilarity",
    "ExactMatch",
    "Factuality",
    "GraphTrajectoryLLMAsJudge",
    "GraphTrajectoryStrictMatch",
    "Humor",
    "JSONDiff",
    "LLMClassifier",
    "Levenshtein",
    "ListContains",
    "Moderation",
    "NumericDiff",
    "Possible",
    "Security",
    "Sql",
    "StateMatch",
    "Summary",
    "ToolCallAnyMatch",
    "ToolCallExactMatch",
    "ToolCallSubsetMatch",
    "ToolCallSupersetMatch",
    "ToolCallUnorderedMatch",
    "TrajectoryLLMAsJudge",
    "TrajectoryStrictMatch",
    "TrajectorySubsetMatch",
    "TrajectorySupsetMatch",
    "TrajectoryUnorderedMatch",
    "Translation",
    "ValidJSON",
]


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'agent_evals.adapters.scorers' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
