"""Scorers: the native ones (pydantic only) and, loaded on first use, autoevals/agentevals wrappers."""

from __future__ import annotations

from agent_evals.adapters.scorers.state import StateMatch
from agent_evals.adapters.scorers.tool_calls import (
    ToolCallAnyMatch,
    ToolCallExactMatch,
    ToolCallSubsetMatch,
    ToolCallSupersetMatch,
    ToolCallUnorderedMatch,
)
from agent_evals.lazy import lazy_exports

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


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
