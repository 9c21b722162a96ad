"""The public facade is pinned, every public name is documented, every module says what it is for."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import agent_evals
import agent_evals.adapters.scorers as scorers

SRC = Path(agent_evals.__file__).resolve().parent

FACADE = {
    "__version__",
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
    "eval",
    "langchain_to_openai",
    "mink_to_openai",
    "run_benchmark",
    "run_benchmark_async",
    "run_eval",
    "run_eval_async",
    "strands_to_openai",
}

# the seed project's public names (its encryption helpers are out of scope here)
SEED_NAMES = {
    "run_eval",
    "run_eval_async",
    "run_benchmark_async",
    "BenchmarkResult",
    "BaseAgent",
    "Score",
    "EvalResult",
    "EvalExample",
    "ExampleData",
    "TaskResult",
    "ExpectedResult",
    "langchain_to_openai",
    "strands_to_openai",
    "mink_to_openai",
}


def test_facade__holds_every_public_name_of_the_seed() -> None:
    assert SEED_NAMES - set(agent_evals.__all__) == set()
    for name in SEED_NAMES:
        assert getattr(agent_evals, name) is not None


def test_facade__all__is_pinned() -> None:
    assert set(agent_evals.__all__) == FACADE


@pytest.mark.parametrize("module", [agent_evals, scorers], ids=lambda m: m.__name__)
def test_public_names__resolve_and_have_docstrings(module: object) -> None:
    undocumented = []
    for name in module.__all__:  # type: ignore[attr-defined]
        if name.startswith("__"):
            continue
        value = getattr(module, name)
        if (inspect.isclass(value) or inspect.isfunction(value)) and not (
            inspect.getdoc(value) or ""
        ).strip():
            undocumented.append(name)
    assert undocumented == []


@pytest.mark.parametrize("path", sorted(SRC.rglob("*.py")), ids=lambda p: str(p.relative_to(SRC)))
def test_every_module__opens_with_a_docstring(path: Path) -> None:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    assert doc and doc.strip(), f"{path.relative_to(SRC)} has no module docstring"
    assert len(doc.strip().splitlines()[0]) <= 120, "the first line should be one short sentence"


def _is_overload(node: ast.AST) -> bool:
    decorators = getattr(node, "decorator_list", [])
    return any(getattr(d, "id", getattr(d, "attr", None)) == "overload" for d in decorators)


@pytest.mark.parametrize("path", sorted(SRC.rglob("*.py")), ids=lambda p: str(p.relative_to(SRC)))
def test_every_public_class_and_function__has_a_docstring(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    undocumented = [
        f"{node.name} (line {node.lineno})"
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and not node.name.startswith("_")
        and not _is_overload(node)
        and not ast.get_docstring(node)
    ]
    assert undocumented == []
