"""Pass rates, mean scores and counts over a run's examples, with the failure rules applied."""

from __future__ import annotations

from collections.abc import Sequence

from agent_evals.core.types import EvalExample


def aggregate(
    examples: Sequence[EvalExample], scorer_names: Sequence[str]
) -> tuple[dict[str, float], dict[str, float], dict[str, int]]:
    """Per-scorer pass rate and mean value, and the run's counts.

    An example whose task failed (``error`` set) counts as failed, with value 0, for every
    scorer. A healthy example that has no score under a name is left out of that scorer's
    figures (heterogeneous scorer sets). A scorer with no scored example at all reports 0.0,
    so an empty or all-crashed run can never look like a pass.

    The counts: ``failed_examples`` are those whose task errored or where a scorer could not give
    a verdict, ``successful_examples`` the rest (a scored "no" is still successful),
    ``passed_examples`` those where every score passed, ``errored_examples`` the task errors.
    """
    pass_rates: dict[str, float] = {}
    means: dict[str, float] = {}
    for name in scorer_names:
        counted = passed = 0
        total_value = 0.0
        for example in examples:
            if example.error is not None:
                counted += 1
                continue
            score = example.scores.get(name)
            if score is None:
                continue
            counted += 1
            total_value += score.value
            passed += 1 if score.passed and score.error is None else 0
        pass_rates[name] = passed / counted if counted else 0.0
        means[name] = total_value / counted if counted else 0.0
    return pass_rates, means, summarise(examples)


def summarise(examples: Sequence[EvalExample]) -> dict[str, int]:
    """The run's counts under the keys ``EvalResult.summary`` documents."""
    failed = sum(1 for e in examples if e.failed)
    return {
        "total_examples": len(examples),
        "successful_examples": len(examples) - failed,
        "failed_examples": failed,
        "passed_examples": sum(1 for e in examples if e.passed),
        "errored_examples": sum(1 for e in examples if e.error is not None),
    }
