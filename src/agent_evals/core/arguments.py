"""Argument checks for ``run_eval_async``: a clear ValueError/TypeError before anything runs."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from agent_evals.core.scorer import PreparedScorer
from agent_evals.core.types import EvalConfig, ExampleData


class DatasetItemError(TypeError, ValueError):
    """A dataset item that is not an ExampleData: a TypeError here, the seed project's ValueError too."""


def check_config(config: EvalConfig | Mapping[str, Any] | None) -> EvalConfig:
    """The run's EvalConfig: the default for None, validated fields for a dict."""
    if config is None:
        return EvalConfig()
    if isinstance(config, EvalConfig):
        return config
    if isinstance(config, Mapping):
        return EvalConfig.model_validate(dict(config))
    raise TypeError(f"config must be an EvalConfig (or a dict of its fields), got {type(config).__name__}")


def check_dataset(dataset: Iterable[ExampleData] | None) -> list[ExampleData]:
    """The dataset as a non-empty list of ExampleData; the error names the first bad index."""
    if dataset is None:
        raise ValueError("dataset parameter is required: pass dataset=[ExampleData(input=..., expected=...)]")
    if isinstance(dataset, (str, bytes, Mapping)) or not isinstance(dataset, Iterable):
        raise TypeError(
            f"dataset must be a list of ExampleData(input=..., expected=...), got {type(dataset).__name__}"
        )
    examples = list(dataset)
    if not examples:
        raise ValueError("Dataset cannot be empty: pass at least one ExampleData(input=..., expected=...)")
    for index, example in enumerate(examples):
        if not isinstance(example, ExampleData):
            raise DatasetItemError(
                f"dataset[{index}] is a {type(example).__name__}, expected ExampleData(input=..., "
                "expected=ExpectedResult(...))"
            )
    return examples


def prepare_scorers(scorers: Sequence[Any] | None) -> list[PreparedScorer]:
    """Inspect every scorer once; reject non-callables and classes.

    Two scorers may share a callable name (factory closures, two ``Levenshtein(...)``): results
    are keyed by the ``Score.name`` each returns, so both run.
    """
    if scorers is None:
        raise ValueError("scorers parameter is required: pass scorers=[...], e.g. scorers=[StateMatch()]")
    if callable(scorers) or isinstance(scorers, (str, bytes, Mapping)) or not isinstance(scorers, Iterable):
        raise TypeError(f"scorers must be a list of scorers, e.g. scorers=[StateMatch()], got {scorers!r}")
    items = list(scorers)
    if not items:
        raise ValueError("At least one scorer is required: pass e.g. scorers=[StateMatch()]")
    prepared: list[PreparedScorer] = []
    for index, scorer in enumerate(items):
        if isinstance(scorer, type):
            raise TypeError(
                f"scorers[{index}] is the class {scorer.__name__}; pass an instance: {scorer.__name__}()"
            )
        if not callable(scorer):
            raise TypeError(
                f"scorers[{index}] is a {type(scorer).__name__}, expected a callable "
                "scorer(result, expected=None, **context) -> Score"
            )
        prepared.append(PreparedScorer.of(scorer))
    return prepared


def check_task(task: Callable[[Any], Any] | None, examples: list[ExampleData]) -> None:
    """A callable task or None (then examples without a stored output become errored examples)."""
    if task is not None and not callable(task):
        raise TypeError(f"task must be a callable task(input) -> TaskResult, got {type(task).__name__}")


def check_platform(platform: Any, default: Callable[[], Any] | None = None) -> Any | None:
    """The platform to record on: ``default()`` for None or ``"local"`` (None when there is no
    default: nothing is recorded), else an object with an async ``record(result)`` method.

    Core builds no platform itself: ``agent_evals.run_eval`` passes ``LocalConfig`` as the default."""
    if platform is None or platform == "local":
        if platform == "local" and default is None:
            raise ValueError(
                "platform='local' needs the local platform: call agent_evals.run_eval(...) (it records "
                "with LocalConfig by default) or pass platform=LocalConfig() from "
                "agent_evals.adapters.platforms.local"
            )
        return default() if default is not None else None
    if isinstance(platform, str):
        raise ValueError(
            f"unknown platform {platform!r}: the platform built in is 'local' (or pass LocalConfig(...))"
        )
    if not callable(getattr(platform, "record", None)):
        raise TypeError(
            f"platform must have an async record(result) method (e.g. LocalConfig(...)), "
            f"got {type(platform).__name__}"
        )
    return platform
