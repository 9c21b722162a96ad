"""Converters from agent-framework results and message shapes to OpenAI-format message dicts (loaded on use)."""

from __future__ import annotations

from agent_evals.lazy import lazy_exports

# public name -> module that defines it; nothing is imported until a name is first used. The converters
# that TaskResult.from_run reuses live in agent_evals.core.converters (core may not import adapters).
_LAZY: dict[str, str] = {
    "langchain_to_openai": "agent_evals.core.converters.langchain",
    "to_openai_message": "agent_evals.core.converters.langchain",
    "to_openai_messages": "agent_evals.core.converters.langchain",
    "strands_to_openai": "agent_evals.core.converters.strands",
    "mink_to_openai": "agent_evals.adapters.converters.mink",
    "openai_agents_to_openai": "agent_evals.core.converters.openai_agents",
    "pydantic_ai_to_openai": "agent_evals.core.converters.pydantic_ai",
    "responses_to_openai": "agent_evals.core.converters.responses",
    "otel_spans_to_openai": "agent_evals.core.converters.otel",
}

__all__ = [
    "langchain_to_openai",
    "mink_to_openai",
    "openai_agents_to_openai",
    "otel_spans_to_openai",
    "pydantic_ai_to_openai",
    "responses_to_openai",
    "strands_to_openai",
    "to_openai_message",
    "to_openai_messages",
]


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
