"""Converters from agent-framework message objects to OpenAI-format message dicts."""

from __future__ import annotations

from agent_evals.adapters.converters.langchain import to_openai_message, to_openai_messages

__all__ = ["to_openai_message", "to_openai_messages"]
