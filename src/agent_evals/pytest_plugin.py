"""An opt-in pytest plugin (``pytest -p agent_evals.pytest_plugin``): each ``@eval`` case is a test.

Collects ``@eval`` functions from eval files (``eval_*.py``, ``*_eval.py``, ``evals.py``) and from
the test modules pytest collects anyway, runs every case with a real ``EvalContext`` through the
same scheduler as ``agent-evals run``, and reports each case as one test: it passes when every
trial passes, fails on a failing score, and errors when a trial errored. It is never loaded into
a pytest run that does not ask for it.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Generator, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from agent_evals.evals.decorator import EvalFunction
from agent_evals.evals.discovery import eval_bindings, import_eval_file, is_eval_file_name
from agent_evals.evals.result import EvalCaseResult
from agent_evals.evals.scheduler import Job, run_jobs
from agent_evals.evals.spec import EvalCaseSpec


class EvalCaseFailed(Exception):
    """A case whose trials did not all pass; the message lists the failing scores."""


class EvalCaseErrored(Exception):
    """A case with an errored trial (the eval raised or timed out outside an assertion)."""


def _run_case(spec: EvalCaseSpec) -> list[EvalCaseResult]:
    found: dict[int, EvalCaseResult] = {}

    def keep(index: int, trial: int, result: EvalCaseResult) -> None:
        found[trial] = result

    asyncio.run(run_jobs([spec], [Job(0, t) for t in range(spec.trials)], on_result=keep))
    return [found[t] for t in sorted(found)]


def _describe(results: list[EvalCaseResult]) -> str:
    lines = []
    for trial, result in enumerate(results):
        prefix = f"trial {trial + 1}: " if len(results) > 1 else ""
        if result.error is not None:
            lines.append(f"{prefix}error: {result.error}")
            if result.traceback:
                lines.append(result.traceback.rstrip())
            continue
        for score in result.scores:
            if score.passed is False:
                lines.append(f"{prefix}{score.key}: {score.notes or 'failed'}")
    return "\n".join(lines)


class EvalItem(pytest.Item):
    """One case of one ``@eval`` function, all of its trials."""

    def __init__(self, *, spec: EvalCaseSpec, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec

    def runtest(self) -> None:
        """Run every trial; raise when one errored or did not pass."""
        results = _run_case(self.spec)
        passed = sum(r.passed for r in results)
        if any(r.error is not None for r in results):
            raise EvalCaseErrored(_describe(results))
        if not any(r.graded for r in results):
            pytest.skip("numeric-only eval: no pass/fail score to decide it")
        if passed < len(results):
            raise EvalCaseFailed(f"{passed}/{len(results)} trials passed\n{_describe(results)}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        """The case's failing scores or error, not this plugin's frames."""
        if isinstance(excinfo.value, (EvalCaseFailed, EvalCaseErrored)):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Where the eval is declared, for pytest's report."""
        line = self.spec.line - 1 if self.spec.line else None
        return self.path, line, f"eval {self.spec.function_id}"


def _items(parent: pytest.Collector, fn: EvalFunction, line: int | None) -> Iterator[EvalItem]:
    for spec in fn.specs(file_label=str(parent.path)):
        spec.line = line  # where the file binds it (a factory's eval: not the factory's line)
        yield EvalItem.from_parent(parent, name=spec.function_id, spec=spec)


class EvalFile(pytest.File):
    """An eval file pytest would not collect by itself (``eval_*.py``, ``*_eval.py``, ``evals.py``)."""

    def collect(self) -> Iterator[EvalItem]:
        """Import the file as ``agent-evals run`` does and yield one item per case."""
        module = import_eval_file(self.path)
        for fn, line in eval_bindings(module):
            yield from _items(self, fn, line)


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Generator[None, list[Any], list[Any]]:
    """Collect eval files that are not test modules already, once each.

    pytest makes a ``Module`` of any ``.py`` file named on its command line (``pytest eval_geo.py``,
    ``pytest eval_geo.py::case``) whatever its name; that module would collect the file's evals a
    second time next to ``EvalFile``, so it is dropped here, as a folder's discovery never makes it.
    """
    collectors = yield
    if not (is_eval_file_name(file_path.name) and not file_path.name.startswith("test_")):
        return collectors
    kept = [c for c in collectors if type(c) is not pytest.Module]  # doctest modules etc. stay
    return [*kept, EvalFile.from_parent(parent, path=file_path)]


def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> list[EvalItem] | None:
    """In a test module, an ``@eval`` function becomes its cases (never a test asking for ``ctx``);
    one made by a factory and bound in the module too, once however many names it has. One imported
    from another eval file or test module is collected there."""
    if isinstance(obj, EvalFunction):
        module = getattr(collector, "obj", None)
        if not isinstance(module, ModuleType):
            return []
        pending = _PENDING.get(module)
        if pending is None:
            pending = _PENDING[module] = {id(fn): line for fn, line in eval_bindings(module)}
        if id(obj) not in pending:
            return []  # imported from another eval file, or a second name of one already collected
        return list(_items(collector, obj, pending.pop(id(obj))))
    return None


_PENDING: weakref.WeakKeyDictionary[ModuleType, dict[int, int | None]] = weakref.WeakKeyDictionary()
"""Per test module: the evals of it not collected yet (by id), with the line where it binds each."""
