"""agent-evals: evaluate AI agents and gate regressions in CI (public facade, lazily loaded)."""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it. Loaded on first attribute access so that
# `import agent_evals` stays light (no jinja2, requests, LangChain, autoevals, agentevals).
_LAZY: dict[str, str] = {
    "TaskResult": "agent_evals.core.types",
    "ExampleData": "agent_evals.core.types",
    "ExpectedResult": "agent_evals.core.types",
    "Score": "agent_evals.core.types",
    "EvalExample": "agent_evals.core.types",
    "EvalResult": "agent_evals.core.types",
    "EvalConfig": "agent_evals.core.types",
    "run_eval_async": "agent_evals.core.runner",
    "run_eval": "agent_evals.core.runner",
    "eval": "agent_evals.evals.decorator",
    "EvalContext": "agent_evals.evals.context",
    "BaseAgent": "agent_evals.benchmark.agent",
    "run_benchmark_async": "agent_evals.benchmark.runner",
    "run_benchmark": "agent_evals.benchmark.runner",
    "BenchmarkResult": "agent_evals.benchmark.result",
    "langchain_to_openai": "agent_evals.adapters.converters.langchain",
    "strands_to_openai": "agent_evals.adapters.converters.strands",
    "mink_to_openai": "agent_evals.adapters.converters.mink",
}

__all__ = [
    "BaseAgent",
    "BenchmarkResult",
    "EvalConfig",
    "EvalContext",
    "EvalExample",
    "EvalResult",
    "ExampleData",
    "ExpectedResult",
    "Score",
    "TaskResult",
    "__version__",
    "eval",
    "langchain_to_openai",
    "mink_to_openai",
    "run_benchmark",
    "run_benchmark_async",
    "run_eval",
    "run_eval_async",
    "strands_to_openai",
]


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'agent_evals' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
