"""Find eval files and benchmark YAML under the given paths, and import eval files by path."""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from agent_evals.errors import BenchmarkFileError, EvalFileError, UsageError
from agent_evals.evals.decorator import EvalFunction
from agent_evals.evals.tracebacks import describe, user_traceback

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
    from agent_evals.benchmark.yaml_source import load_yaml_file

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
    """Import a Python file by path (its folder goes on ``sys.path`` so sibling imports work).

    Any failure, syntax errors and ``SystemExit`` included, becomes an ``EvalFileError`` naming the file.
    """
    resolved = path.resolve()
    name = _module_name(path)  # importing again re-executes the file (regrade wants current code)
    folder = str(resolved.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise EvalFileError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:
        del sys.modules[name]
        raise EvalFileError(f"{path}: failed to import: {describe(exc)}\n{user_traceback(exc)}") from exc
    return module


def eval_functions(module: ModuleType) -> list[EvalFunction]:
    """The ``@eval`` functions defined in a module (not ones it imported), in definition order.

    One function bound to two names (``test_b = test_a``) is one eval, listed once."""
    found = {
        id(value): value
        for value in vars(module).values()
        if isinstance(value, EvalFunction) and getattr(value.func, "__module__", None) == module.__name__
    }
    return sorted(found.values(), key=lambda fn: fn.line or 0)
