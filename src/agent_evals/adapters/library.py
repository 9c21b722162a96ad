"""The library's entry points: ``run_eval``/``run_eval_async`` recording on ``LocalConfig`` by default."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from agent_evals.adapters.platforms.local import LocalConfig
from agent_evals.core import runner
from agent_evals.core.types import EvalConfig, EvalResult, ExampleData


async def run_eval_async(
    task: Callable[[Any], Any] | None = None,
    dataset: Iterable[ExampleData] | None = None,
    scorers: Sequence[Any] | None = None,
    platform: Any | None = None,
    config: EvalConfig | Mapping[str, Any] | None = None,
    *,
    progress: runner.Progress | None = None,
) -> EvalResult:
    """Run ``task`` on every example of ``dataset``, score each result, and return an EvalResult.

    See ``agent_evals.core.runner.run_eval_async``; here ``platform=None`` (or ``"local"``) records
    the run with ``LocalConfig()``.
    """
    return await runner.run_eval_async(
        task, dataset, scorers, platform, config, progress=progress, default_platform=LocalConfig
    )


def run_eval(
    task: Callable[[Any], Any] | None = None,
    dataset: Iterable[ExampleData] | None = None,
    scorers: Sequence[Any] | None = None,
    platform: Any | None = None,
    config: EvalConfig | Mapping[str, Any] | None = None,
    *,
    progress: runner.Progress | None = None,
) -> EvalResult:
    """Blocking form of :func:`run_eval_async` for plain scripts.

    Raises RuntimeError when called while an event loop is running (inside ``async def``,
    Jupyter): there, ``await run_eval_async(...)`` instead.
    """
    return runner.run_eval(
        task, dataset, scorers, platform, config, progress=progress, default_platform=LocalConfig
    )
