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


def _type_checking_names(source: str) -> set[str]:
    """Names the facade imports under ``if TYPE_CHECKING:`` (what type checkers see)."""
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom)
                names |= {alias.asname or alias.name for alias in stmt.names}
    return names


def test_facade__type_checkers_see_every_lazy_name_from_its_module() -> None:
    source = (SRC / "__init__.py").read_text(encoding="utf-8")
    lazy = agent_evals._LAZY
    assert _type_checking_names(source) == set(lazy) == set(agent_evals.__all__) - {"__version__"}
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module != "agent_evals.lazy" and node.module != "typing":
            for alias in node.names:
                if node.module != "__future__":
                    assert lazy[alias.name] == node.module, alias.name


def test_facade__names_are_typed_for_users_under_mypy(tmp_path: Path) -> None:
    api = pytest.importorskip("mypy.api")
    user = tmp_path / "user_code.py"
    user.write_text(
        "from agent_evals import BaseAgent, Score, run_eval\n"
        "reveal_type(Score)\nreveal_type(BaseAgent)\nreveal_type(run_eval)\n",
        encoding="utf-8",
    )
    out, _err, _code = api.run(["--no-incremental", "--follow-imports=silent", str(user)])
    revealed = [line for line in out.splitlines() if "Revealed type" in line]
    assert len(revealed) == 3, out
    assert "agent_evals.core.types.Score" in revealed[0]
    assert "agent_evals.benchmark.agent.BaseAgent" in revealed[1]
    assert "def " in revealed[2]  # a function type, not Any


@pytest.mark.parametrize(
    "package", ["agent_evals", "agent_evals.adapters.scorers", "agent_evals.adapters.converters"]
)
def test_lazy_facades__unknown_name_is_the_usual_attribute_error(package: str) -> None:
    module = __import__(package, fromlist=["_"])
    with pytest.raises(AttributeError, match=rf"module '{package}' has no attribute 'NoSuchName'"):
        module.NoSuchName  # noqa: B018
    assert set(module._LAZY) <= set(dir(module))
