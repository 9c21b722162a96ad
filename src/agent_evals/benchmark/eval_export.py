"""A BenchmarkResult seen as an EvalResult (one example per trial), for platforms such as LocalConfig."""

from __future__ import annotations

from datetime import datetime

from agent_evals.benchmark.outcome import BenchmarkRun
from agent_evals.core.aggregate import aggregate
from agent_evals.core.types import EvalExample, EvalResult

NO_SCORES = "__no_scores__"
"""The pass-rate key of a run in which nothing was scored (every trial errored): 0.0, never an empty dict."""


def _seed_id(text: str) -> int | str:
    """A scenario id as the seed's metadata has it: a number when the id is written as one (``1``)."""
    return int(text) if text.isdecimal() and str(int(text)) == text else text


def to_eval_result(result: BenchmarkRun, capability: str | None = None) -> EvalResult:
    """One EvalExample per trial (metadata: case id, trial, capability, dimensions, and the seed's keys).

    With ``capability``, only that capability's cases. An errored trial counts as failed, value 0,
    for every scorer; when no trial was scored at all the pass rates are ``{"__no_scores__": 0.0}``.
    """
    examples: list[EvalExample] = []
    for case in result.cases:
        if capability is not None and case.capability != capability:
            continue
        for number, trial in enumerate(case.trials):
            examples.append(
                EvalExample(
                    index=len(examples),
                    input=case.prompt,
                    output=(trial.output or "") if trial.error is None else "",
                    expected=case.expected,
                    scores=dict(trial.scores),
                    error=trial.error,
                    duration=trial.duration_s,
                    metadata={
                        # each dimension as its own key too, then the seed's keys
                        **case.dimensions,
                        "case_id": case.id,
                        "trial": number,
                        "capability": case.capability,
                        "dimensions": dict(case.dimensions),
                        "scenario_id": _seed_id(case.scenario_id),
                        "scenario_name": case.name,
                        "run_index": number,
                    },
                )
            )
    names = list(dict.fromkeys(name for example in examples for name in example.scores))
    pass_rates, means, summary = aggregate(examples, names or [NO_SCORES])
    started = None
    if result.started_at:
        started = datetime.fromisoformat(result.started_at)
    return EvalResult(
        pass_rates=pass_rates,
        scores=means,
        examples=examples,
        summary=summary,
        duration=result.duration_s,
        started_at=started,
        platform="local" if result.experiment_url else None,
        experiment_url=result.experiment_url,
    )
