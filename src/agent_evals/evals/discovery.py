"""Find eval files and benchmark YAML under the given paths, and import eval files by path."""

from __future__ import annotations

import ast
import fnmatch
import hashlib
import importlib.util
import re
import sys
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from agent_evals.core.faults import absorbed
from agent_evals.errors import BenchmarkFileError, EvalFileError, UsageError
from agent_evals.evals.decorator import EvalFunction
from agent_evals.evals.tracebacks import describe, user_traceback
from agent_evals.files.import_path import search_from

EVAL_FILE_PATTERNS = ("eval_*.py", "*_eval.py", "evals.py")
"""File names searched for in directories (any ``*.py`` named explicitly is accepted)."""

YAML_SUFFIXES = (".yaml", ".yml")
"""Suffixes of benchmark files."""

_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "venv", ".venv"})
_BENCHMARK_KEY = re.compile(r"""(?:^|[{,])\s*["']?(?:benchmark|capabilities)["']?\s*:""", re.MULTILINE)
"""A ``benchmark:`` or ``capabilities:`` key anywhere in a file's text, quoted or in flow style: a file
that does not parse but reads like a benchmark is refused rather than skipped."""
BENCHMARK_FOLDER = "benchmarks"
"""YAML under a folder of this name that does not parse is refused (it is meant as a benchmark or a part of one)."""


@dataclass
class Collected:
    """What the paths of a run resolve to."""

    eval_files: list[Path] = field(default_factory=list)
    """Python eval files, in a stable order."""
    benchmark_files: list[Path] = field(default_factory=list)
    """YAML benchmark files, in a stable order."""
    broken: list[BenchmarkFileError] = field(default_factory=list)
    """Found YAML files that cannot be read or parsed but look like benchmarks (a run refuses them)."""
    skipped: list[str] = field(default_factory=list)
    """Found YAML files that cannot be read or parsed and do not look like benchmarks, with why (said)."""


def is_eval_file_name(name: str) -> bool:
    """Whether a file name matches the eval file patterns searched in directories."""
    return name == "evals.py" or (
        name.endswith(".py") and (name.startswith("eval_") or name.endswith("_eval.py"))
    )


def is_benchmark_yaml(path: Path) -> bool:
    """Whether a YAML file declares a benchmark: it parses to a mapping with a top-level ``benchmark``
    or ``capabilities`` key (quoted or flow-style keys included). Raises ``BenchmarkFileError`` (located)
    when it cannot be read or parsed."""
    from agent_evals.files.yaml_source import load_yaml_file

    absolute = path.absolute()
    try:
        shown = absolute.relative_to(Path.cwd()).as_posix()
    except ValueError:  # outside the working directory
        shown = absolute.as_posix()
    data, _ = load_yaml_file(path, shown)
    return isinstance(data, dict) and ("benchmark" in data or "capabilities" in data)


def looks_like_benchmark(path: Path) -> bool:
    """Whether a YAML file that cannot be parsed is meant as a benchmark: a ``benchmark:`` or
    ``capabilities:`` key in its text, or a ``benchmarks/`` folder above it."""
    if BENCHMARK_FOLDER in path.parts[:-1]:
        return True
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return _BENCHMARK_KEY.search(text) is not None


def _classify(found: Collected, path: Path, add: Callable[[list[Path], Path], None]) -> None:
    """A YAML file met in a folder: a benchmark, another YAML file, or one that cannot be parsed
    (refused when it looks like a benchmark, else named as skipped)."""
    try:
        if is_benchmark_yaml(path):
            add(found.benchmark_files, path)
    except BenchmarkFileError as exc:
        if looks_like_benchmark(path.absolute()):
            found.broken.append(exc)
        else:
            found.skipped.append(f"{exc} (not read as a benchmark: no benchmark: key, not under benchmarks/)")


def _walk(root: Path) -> Iterable[Path]:
    for child in sorted(root.iterdir()):
        if child.is_dir():
            if child.name.startswith(".") or child.name in _SKIP_DIRS:
                continue
            yield from _walk(child)
        else:
            yield child


def collect(paths: Sequence[str | Path]) -> Collected:
    """Resolve files and directories into eval files and benchmark YAML; UsageError for bad paths."""
    found = Collected()
    seen: set[Path] = set()

    def add(target: list[Path], path: Path) -> None:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            target.append(path)

    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for child in _walk(path):
                if is_eval_file_name(child.name):
                    add(found.eval_files, child)
                elif child.suffix in YAML_SUFFIXES:
                    _classify(found, child, add)
        elif path.is_file():
            if path.suffix == ".py":
                add(found.eval_files, path)
            elif path.suffix in YAML_SUFFIXES:
                add(found.benchmark_files, path)
            else:
                raise UsageError(
                    f"{path}: not an eval file or a benchmark; expected a .py eval file, a .yaml/.yml "
                    "benchmark or a directory"
                )
        else:
            raise UsageError(f"{path}: no such file or directory")
    return found


def _module_name(path: Path) -> str:
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:8]
    stem = re.sub(r"\W", "_", path.stem)
    return f"agent_evals_file_{stem}_{digest}"


def import_eval_file(path: Path) -> ModuleType:
    """Import a Python file by path (its folder goes first on ``sys.path`` so sibling imports work, the
    working directory last: ``files.import_path``).

    Any failure, syntax errors and any ``BaseException`` the file raises included (``SystemExit``, a
    ``KeyboardInterrupt`` with no signal received), becomes an ``EvalFileError`` naming the file.
    """
    resolved = path.resolve()
    name = _module_name(path)  # importing again re-executes the file (regrade wants current code)
    search_from(resolved.parent)
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise EvalFileError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:
        del sys.modules[name]
        if not absorbed(exc):  # a real Ctrl-C or SIGTERM: the run stops
            raise
        raise EvalFileError(f"{path}: failed to import: {describe(exc)}\n{user_traceback(exc)}") from exc
    return module


TEST_MODULE_PATTERNS = ("test_*.py", "*_test.py")
"""pytest's default test module names: the plugin collects ``@eval`` functions from these too."""


def _collectable(path: Path) -> bool:
    """Whether a file is one that a run over its folder, or the pytest plugin, collects evals from."""
    return is_eval_file_name(path.name) or any(
        fnmatch.fnmatchcase(path.name, p) for p in TEST_MODULE_PATTERNS
    )


def _top_level_lines(module: ModuleType) -> dict[str, int]:
    """Name -> line of the first top-level statement of the module's file that binds it (assignments
    and imports; empty when the source cannot be read)."""
    file = getattr(module, "__file__", None)
    try:
        tree = ast.parse(Path(file).read_bytes()) if file else None
    except (OSError, SyntaxError, ValueError):
        tree = None
    lines: dict[str, int] = {}
    for node in tree.body if tree is not None else []:
        names: list[str] = []
        if isinstance(node, ast.Assign):
            names = [n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
            names = [node.target.id]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [(a.asname or a.name).partition(".")[0] for a in node.names]
        for name in names:
            lines.setdefault(name, node.lineno)
    return lines


def _bound_elsewhere(module: ModuleType, collected: Callable[[Path], bool]) -> set[int]:
    """Ids of the objects bound at module level in other loaded modules whose files a run collects."""
    here = getattr(module, "__file__", None)
    here_path = Path(here).resolve() if here else None
    out: set[int] = set()
    for other in list(sys.modules.values()):
        file = getattr(other, "__file__", None)
        if other is module or not isinstance(file, str) or not file.endswith(".py"):
            continue
        path = Path(file)
        if not collected(path) or path.resolve() == here_path:
            continue
        out.update(id(v) for v in list(vars(other).values()) if isinstance(v, EvalFunction))
    return out


def eval_bindings(
    module: ModuleType, *, collected: Collection[Path] | None = None
) -> list[tuple[EvalFunction, int | None]]:
    """The ``@eval`` objects bound at module level in a module, each with its line in the module's
    file, in that order: its definition for a function defined there, else the first statement that
    binds it (``test_x = make_eval(...)``, an import).

    An eval defined in the module, or made by a factory and bound there, is the module's. One
    bound to two names (``test_b = test_a``) is one eval, listed once. An eval that another file
    of the run also binds at module level (imported from that eval file) is left to that file:
    ``collected`` holds the run's eval files (resolved); without it, files named as eval files or
    as pytest test modules count.
    """
    if collected is None:
        is_collected: Callable[[Path], bool] = _collectable
    else:
        resolved = {p.resolve() for p in collected}
        names = {p.name for p in resolved}
        is_collected = lambda path: path.name in names and path.resolve() in resolved  # noqa: E731
    found: dict[int, EvalFunction] = {}
    for value in list(vars(module).values()):
        if isinstance(value, EvalFunction):
            found.setdefault(id(value), value)
    foreign = [fn for fn in found.values() if getattr(fn.func, "__module__", None) != module.__name__]
    skip = _bound_elsewhere(module, is_collected) if foreign else set()
    lines = _top_level_lines(module) if foreign else {}
    out: list[tuple[EvalFunction, int | None]] = []
    for key, fn in found.items():
        if getattr(fn.func, "__module__", None) == module.__name__:
            out.append((fn, fn.line))
        elif key not in skip:
            bound = [lines[n] for n, v in vars(module).items() if v is fn and n in lines]
            out.append((fn, min(bound) if bound else None))
    return sorted(out, key=lambda pair: pair[1] or 0)


def eval_functions(module: ModuleType, *, collected: Collection[Path] | None = None) -> list[EvalFunction]:
    """The ``@eval`` objects of a module, in order (see :func:`eval_bindings`)."""
    return [fn for fn, _ in eval_bindings(module, collected=collected)]
