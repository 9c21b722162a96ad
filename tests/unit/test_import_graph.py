"""The house's shape, read from the source: no import circles (type-only imports included), every import
points down the floors of docs/architecture.md, and no module or function is over its line limit."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import agent_evals

ROOT = Path(agent_evals.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_lines(tree: ast.Module) -> set[int]:
    """Lines inside ``if TYPE_CHECKING:`` blocks (imports for type hints only; never run)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def import_graph(*, type_only: bool = True) -> dict[str, set[str]]:
    """Module -> the modules of ours it imports: at the top, inside functions and, unless
    ``type_only`` is False, inside ``if TYPE_CHECKING:`` blocks (a type-only import still ties two
    modules: one cannot be read, moved or type-checked without the other)."""
    modules = {_module_name(p): p for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = set() if type_only else _type_checking_lines(tree)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) in skip:
                continue
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets.add(base)
                targets.update(f"{base}.{a.name}" for a in node.names)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_import_graph__sees_our_imports() -> None:
    graph = import_graph()
    assert "agent_evals.record.summary" in graph["agent_evals.record.read"]
    assert "agent_evals.record.model" in graph["agent_evals.record.store"]


def test_import_graph__finds_a_circle_when_there_is_one() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_src__has_no_import_circles() -> None:
    assert cycles(import_graph()) == []


def test_import_graph__sees_type_only_imports_unless_asked_not_to() -> None:
    with_types = import_graph()
    run_time = import_graph(type_only=False)
    assert any(with_types[m] - run_time[m] for m in with_types)
    assert all(run_time[m] <= with_types[m] for m in with_types)


FLOORS: tuple[tuple[str, ...], ...] = (
    ("errors", "version", "clock", "lazy", "schemas", "scaffold"),
    ("stats",),
    ("files",),
    ("calls",),
    ("record",),
    ("cost",),
    ("core",),
    ("gate",),
    ("adapters",),
    ("evals",),
    ("benchmark",),
    ("report",),
    ("run",),
    ("github",),
    ("ci",),
    ("pytest_plugin", "__init__"),
    ("cli",),
    ("__main__",),
)
"""The rooms of ``agent_evals`` from the ground floor up, as docs/architecture.md draws them. A room
is a top-level module or folder; ``__init__`` is the package facade."""

ALLOWED_UPWARD: frozenset[tuple[str, str]] = frozenset()
"""Imports that may run back up a floor (room -> room). The issue's limit is two; today there are none."""

MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 120

FLOOR_OF = {room: level for level, rooms in enumerate(FLOORS) for room in rooms}


def room_of(module: str) -> str:
    """The room a dotted module name of ours belongs to (``agent_evals`` alone is the facade)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def upward_imports(graph: dict[str, set[str]]) -> dict[tuple[str, str], list[str]]:
    """(room, room above it) -> the module imports that run up between them."""
    found: dict[tuple[str, str], list[str]] = {}
    for module, targets in graph.items():
        here = room_of(module)
        for target in targets:
            there = room_of(target)
            if there != here and FLOOR_OF[there] >= FLOOR_OF[here]:
                found.setdefault((here, there), []).append(f"{module} -> {target}")
    return found


def test_floors__name_every_room_of_the_package() -> None:
    rooms = {p.stem if p.is_file() else p.name for p in ROOT.iterdir() if p.name != "__pycache__"}
    rooms = {r for r in rooms if (ROOT / r).is_dir() or (ROOT / f"{r}.py").is_file()}
    assert rooms == set(FLOOR_OF)


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"agent_evals.core.x": {"agent_evals.stats.y"}}, {}),
        (
            {"agent_evals.stats.y": {"agent_evals.core.x"}},
            {("stats", "core"): ["agent_evals.stats.y -> agent_evals.core.x"]},
        ),
        ({"agent_evals.gate.a": {"agent_evals.gate.b"}}, {}),
        ({"agent_evals.cost.a": {"agent_evals.record.b"}}, {}),
        (
            {"agent_evals.record.a": {"agent_evals.cost.b"}},
            {("record", "cost"): ["agent_evals.record.a -> agent_evals.cost.b"]},
        ),
        (
            {"agent_evals.errors": {"agent_evals.version"}},
            {("errors", "version"): ["agent_evals.errors -> agent_evals.version"]},
        ),
    ],
    ids=["down", "up", "same-room", "down-one", "up-one", "same-floor-other-room"],
)
def test_upward_imports__finds_only_imports_that_do_not_point_down(
    graph: dict[str, set[str]], expected: dict[tuple[str, str], list[str]]
) -> None:
    assert upward_imports(graph) == expected


def test_src__imports_point_down_the_floors() -> None:
    found = upward_imports(import_graph())
    assert len(ALLOWED_UPWARD) <= 2
    assert {pair: imports for pair, imports in found.items() if pair not in ALLOWED_UPWARD} == {}


def _source_files() -> list[Path]:
    return sorted(ROOT.rglob("*.py"))


def test_src__no_module_is_over_the_line_limit() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in _source_files()
        if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_src__no_function_is_over_the_line_limit() -> None:
    long: dict[str, int] = {}
    for path in _source_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(ROOT)}:{node.name}"] = lines
    assert long == {}
