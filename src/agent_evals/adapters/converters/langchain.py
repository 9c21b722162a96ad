"""LangChain/LangGraph messages -> OpenAI message dicts (the converter lives in core, for TaskResult.from_run)."""

from __future__ import annotations

from agent_evals.core.converters.langchain import langchain_to_openai, to_openai_message, to_openai_messages

__all__ = ["langchain_to_openai", "to_openai_message", "to_openai_messages"]
