"""A BenchmarkResult seen as an EvalResult (one example per trial), for platforms such as LocalConfig."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import TYPE_CHECKING

from agent_evals.core.aggregate import summarise
from agent_evals.core.types import EvalExample, EvalResult

if TYPE_CHECKING:
    from agent_evals.benchmark.result import BenchmarkResult


def to_eval_result(result: BenchmarkResult) -> EvalResult:
    """One EvalExample per trial (metadata carries case id, trial, capability and dimensions)."""
    examples: list[EvalExample] = []
    for case in result.cases:
        for number, trial in enumerate(case.trials):
            examples.append(
                EvalExample(
                    index=len(examples),
                    input=case.prompt,
                    output=(trial.output or "") if trial.error is None else "",
                    scores=dict(trial.scores),
                    error=trial.error,
                    duration=trial.duration_s,
                    metadata={
                        "case_id": case.id,
                        "trial": number,
                        "capability": case.capability,
                        "dimensions": dict(case.dimensions),
                    },
                )
            )
    passed: dict[str, list[bool]] = defaultdict(list)
    values: dict[str, list[float]] = defaultdict(list)
    for example in examples:
        for name, score in example.scores.items():
            passed[name].append(score.passed and example.error is None)
            values[name].append(score.value)
    started = None
    if result.started_at:
        started = datetime.fromisoformat(result.started_at)
    return EvalResult(
        pass_rates={name: sum(flags) / len(flags) for name, flags in passed.items()},
        scores={name: sum(vals) / len(vals) for name, vals in values.items()},
        examples=examples,
        summary=summarise(examples),
        duration=result.duration_s,
        started_at=started,
    )
