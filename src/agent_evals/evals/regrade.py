"""Re-score the stored outputs of a run record with the evals' current code, without calling agents.

For an eval with ``target=``, the stored output replaces the target and the body runs again (its
assertions and stored scores are the grading), then the evaluators. For an eval whose body calls
the agent itself, the body's stored scores are kept and only the current evaluators run again.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_evals.core.redact import Redactor
from agent_evals.errors import EvalFileError
from agent_evals.evals.definition import spec_definition
from agent_evals.evals.discovery import eval_functions, import_eval_file
from agent_evals.evals.execution import evaluator_name, run_evaluators, run_trial
from agent_evals.evals.result import EvalCaseResult
from agent_evals.evals.scores import EvalScore
from agent_evals.evals.spec import EvalCaseSpec
from agent_evals.record.model import Case, RunRecord, Suite, SuiteModels, Trial, fingerprint
from agent_evals.record.models import judge_models, suite_models
from agent_evals.record.trial import Redact, text_data


@dataclass
class RegradeSummary:
    """What a regrade did."""

    trials: int = 0
    """Trials re-scored."""
    kept: int = 0
    """Trials kept as they were (errored before producing an output, or no eval found for them)."""
    missing_cases: list[str] = dataclasses.field(default_factory=list)
    """Case ids whose eval no longer exists in the file."""


def _stored(text: str | None, as_json: Any) -> Any:
    return as_json if as_json is not None else text


def _body_result(trial: Trial, spec: EvalCaseSpec, output: Any) -> EvalCaseResult:
    """The stored outcome of the body: its own scores, without the evaluators' ones nor the automatic pass."""
    scores = [
        EvalScore(key=key, value=s.value, passed=s.passed, notes=s.notes)
        for key, s in trial.scores.items()
        if getattr(s, "source", None) not in ("evaluator", "auto")
    ]
    result = EvalCaseResult(
        input=spec.input, output=output, reference=spec.reference, duration=trial.duration_s
    )
    result.add_scores(scores, "body")
    return result


async def _regrade_trial(spec: EvalCaseSpec, trial: Trial) -> EvalCaseResult | None:
    output = _stored(trial.output, getattr(trial, "output_json", None))
    evaluator_error = (trial.error or "").startswith("evaluator ")
    if output is None or (trial.error is not None and not evaluator_error and spec.target is None):
        return None
    if spec.target is not None:
        result = await run_trial(spec, output=output, replay=True)
    else:
        result = _body_result(trial, spec, output)
        await run_evaluators(result, spec.evaluators, default_score_key=spec.default_score_key)
    result.duration = trial.duration_s
    if trial.usage is not None:
        result.usage = {k: v for k, v in trial.usage.model_dump().items() if v is not None}
    return result


def _specs_by_name(source: Path) -> dict[str, EvalCaseSpec]:
    module = import_eval_file(source)
    try:
        return {spec.function_id: spec for fn in eval_functions(module) for spec in fn.specs()}
    except (TypeError, ValueError) as exc:
        raise EvalFileError(f"{source}: {exc}") from exc


def _regraded_definition(case: Case, spec: EvalCaseSpec, redact: Redact) -> str | None:
    """A regraded case is judged by the file's current body and evaluators: its definition digest is
    the current one when the stored input and reference are those the file declares now, else
    unknown (None: a mix of the two definitions, compared with neither)."""
    stored = ((case.input, case.input_json), (case.expected, case.reference_json))
    if (text_data(spec.input, redact), text_data(spec.reference, redact)) != stored:
        return None
    return spec_definition(spec)


async def _regrade_suite(suite: Suite, cwd: Path, redact: Redact, summary: RegradeSummary) -> Suite:
    source = Path(suite.source)
    path = source if source.is_absolute() else cwd / source
    if not path.is_file():
        raise EvalFileError(f"{suite.source}: the eval file of suite {suite.id!r} is not there any more")
    specs = _specs_by_name(path)
    cases: list[Case] = []
    evaluators: set[str] = set()
    judges: set[str] = set()  # the judges that grade now; the agent's models are the run's
    for case in suite.cases:
        spec = specs.get(case.name or "")
        if spec is None:
            summary.missing_cases.append(case.id)
            summary.kept += len(case.trials)
            cases.append(case)
            continue
        evaluators.update(evaluator_name(e) for e in spec.evaluators)
        judges |= judge_models(spec.evaluators)
        definition = _regraded_definition(case, spec, redact)
        spec = dataclasses.replace(
            spec,
            input=_stored(case.input, getattr(case, "input_json", None)),
            reference=_stored(case.expected, getattr(case, "reference_json", None)),
        )
        trials: list[Trial] = []
        for trial in case.trials:
            result = await _regrade_trial(spec, trial)
            if result is None:
                summary.kept += 1
                trials.append(trial)
                continue
            summary.trials += 1
            trials.append(Trial.model_validate(result.trial_data(redact)))
        cases.append(case.model_copy(update={"trials": trials, "definition": definition}))
    agent = suite.models.agent if suite.models is not None else None
    models = suite_models(agent or (), judges)
    regraded = suite.model_copy(
        update={"cases": cases, "models": SuiteModels.model_validate(models) if models else None}
    )
    regraded.fingerprint = fingerprint(regraded, {"evaluators": sorted(evaluators)})
    return regraded


async def regrade_record_async(
    record: RunRecord, *, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> tuple[RunRecord, RegradeSummary]:
    """Re-score every eval suite of ``record`` with the current code; benchmark suites are kept.

    Eval files are found by the suite's ``source`` relative to ``cwd``. Raises ``EvalFileError``
    when a file is gone or fails to import.
    """
    base = cwd or Path.cwd()
    redact = Redactor.from_env(env)
    summary = RegradeSummary()
    suites = [
        await _regrade_suite(suite, base, redact, summary) if suite.kind == "evals" else suite
        for suite in record.suites
    ]
    return record.model_copy(update={"suites": suites}), summary


def regrade_record(
    record: RunRecord, *, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> tuple[RunRecord, RegradeSummary]:
    """Synchronous wrapper of :func:`regrade_record_async`."""
    holder: list[tuple[RunRecord, RegradeSummary]] = []

    async def main() -> None:
        holder.append(await regrade_record_async(record, cwd=cwd, env=env))

    asyncio.run(main())
    return holder[0]
