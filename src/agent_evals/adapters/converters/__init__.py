"""Converters from agent-framework message shapes to OpenAI-format message dicts (loaded on use)."""

from __future__ import annotations

from agent_evals.lazy import lazy_exports

# public name -> module that defines it; nothing is imported until a name is first used
_LAZY: dict[str, str] = {
    "langchain_to_openai": "agent_evals.adapters.converters.langchain",
    "to_openai_message": "agent_evals.adapters.converters.langchain",
    "to_openai_messages": "agent_evals.adapters.converters.langchain",
    "strands_to_openai": "agent_evals.adapters.converters.strands",
    "mink_to_openai": "agent_evals.adapters.converters.mink",
}

__all__ = [
    "langchain_to_openai",
    "mink_to_openai",
    "strands_to_openai",
    "to_openai_message",
    "to_openai_messages",
]


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
