"""agent-evals: evaluate AI agents and gate regressions in CI (public facade, lazily loaded)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_evals.lazy import lazy_exports

if TYPE_CHECKING:  # the real types for type checkers; at run time the names load on first use
    from agent_evals.adapters.converters.langchain import langchain_to_openai
    from agent_evals.adapters.converters.mink import mink_to_openai
    from agent_evals.adapters.converters.strands import strands_to_openai
    from agent_evals.adapters.library import run_eval, run_eval_async
    from agent_evals.benchmark.agent import BaseAgent
    from agent_evals.benchmark.result import BenchmarkResult
    from agent_evals.benchmark.runner import run_benchmark, run_benchmark_async
    from agent_evals.core.types import (
        EvalConfig,
        EvalExample,
        EvalResult,
        ExampleData,
        ExpectedResult,
        Score,
        TaskResult,
    )
    from agent_evals.evals.context import EvalContext
    from agent_evals.evals.decorator import eval

import agent_evals.version as _version

__version__ = _version.__version__

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
    "run_eval_async": "agent_evals.adapters.library",
    "run_eval": "agent_evals.adapters.library",
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


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
