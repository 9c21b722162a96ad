"""Converters from agent-framework message shapes to OpenAI-format message dicts (loaded on use)."""

from __future__ import annotations

import importlib
from typing import Any

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


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'agent_evals.adapters.converters' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
