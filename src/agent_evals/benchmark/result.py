"""BenchmarkResult: per-case trials, pass rates (micro, macro, per group), Markdown, run record."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from agent_evals.benchmark.eval_export import to_eval_result
from agent_evals.benchmark.markdown import render_result
from agent_evals.benchmark.outcome import BenchmarkRun as BenchmarkRun
from agent_evals.benchmark.outcome import CaseOutcome as CaseOutcome
from agent_evals.benchmark.outcome import TrialOutcome as TrialOutcome
from agent_evals.benchmark.outcome import short as short
from agent_evals.clock import iso_utc
from agent_evals.core.types import EvalResult, Score
from agent_evals.cost.meter import record_usage
from agent_evals.record.model import (
    AgentInfo,
    Case,
    RunInfo,
    RunRecord,
    Suite,
    SuiteModels,
    fingerprint,
)
from agent_evals.record.models import suite_models
from agent_evals.record.trial import ScoreData, trial_data
from agent_evals.stats.exact import pass_at_k as pass_at_k
from agent_evals.stats.exact import pass_hat_k as pass_hat_k

PROMPT_LIMIT = 500
"""Longest prompt kept as a case's ``input`` (a trial's output keeps ``record.trial.TEXT_LIMIT``)."""


def _macro(per_capability: dict[str, dict[str, float]]) -> dict[str, float]:
    """Average each key over the capabilities that have it (a capability without a scorer is skipped)."""
    keys = dict.fromkeys(key for rates in per_capability.values() for key in rates)
    return {key: statistics.fmean(r[key] for r in per_capability.values() if key in r) for key in keys}


@dataclass
class BenchmarkResult(BenchmarkRun):
    """The outcome of running one benchmark file against one agent."""

    @property
    def eval_results(self) -> dict[str, EvalResult]:
        """One EvalResult per capability (one example per trial), in file order.

        Errored trials count as failed for every scorer, as in ``run_eval``.
        """
        capabilities = dict.fromkeys(case.capability for case in self.cases)
        return {name: to_eval_result(self, capability=name) for name in capabilities}

    @property
    def aggregate_scores(self) -> dict[str, float]:
        """Mean score per scorer, macro-averaged over the capabilities that use the scorer."""
        return _macro({cap: r.scores for cap, r in self.eval_results.items()})

    @property
    def aggregate_pass_rates(self) -> dict[str, float]:
        """Pass rate per scorer, macro-averaged over the capabilities that use the scorer.

        Each capability's rate counts errored trials as failed (``eval_results``); compare
        ``pass_rates_by_scorer``, which leaves errored trials out like the gate does.
        """
        return _macro({cap: r.pass_rates for cap, r in self.eval_results.items()})

    def write_report(
        self, results_dir: str | Path = "benchmarks/results", filename: str | None = None
    ) -> Path:
        """Write :meth:`to_markdown` to ``results_dir`` (created if missing) and return the file's path.

        The default name is ``<YYYY-MM-DD_HH-MM-SS>_<benchmark>.md`` (local time of writing).
        """
        folder = Path(results_dir)
        folder.mkdir(parents=True, exist_ok=True)
        name = filename or f"{datetime.now().strftime('%Y-%m-%d_%H-%M-%S')}_{self.benchmark_id}.md"
        path = folder / name
        path.write_text(self.to_markdown(), encoding="utf-8")
        return path

    # -- renderings --------------------------------------------------------------------------
    def to_markdown(self) -> str:
        """A human-readable summary: overall rates, breakdowns and the failing cases."""
        return render_result(self)

    def to_eval_result(self) -> EvalResult:
        """The same results as an EvalResult, one example per trial (what platforms record)."""
        return to_eval_result(self)

    def to_suite(self) -> Suite:
        """The run-record suite of this benchmark (one case per scenario, every trial kept; of an
        incomplete run, only the scenarios with a finished trial)."""
        cases = [case_record(c) for c in self.cases if c.trials or self.complete]
        models = suite_models((m for c in self.cases for t in c.trials for m in t.models), self.judge_models)
        suite = Suite(
            id=self.benchmark_id,
            kind="benchmark",
            source=self.source,
            agent=AgentInfo(name=self.agent_name, version=self.agent_version),
            gate=self.gate,
            models=SuiteModels.model_validate(models) if models else None,
            cases=cases,
        )
        suite.fingerprint = fingerprint(suite, self.config)
        return suite

    def to_run_record(self) -> RunRecord:
        """A run record holding this benchmark as its only suite (marked incomplete when the run was)."""
        from agent_evals.version import __version__

        now = iso_utc(zulu=False)
        run = RunInfo(
            tool_version=__version__,
            started_at=self.started_at or now,
            finished_at=self.finished_at or now,
            complete=self.complete,
        )
        return RunRecord(run=run, suites=[self.to_suite()])


def case_record(case: CaseOutcome) -> Case:
    """The run-record case of one scenario, with every trial it ran."""
    return Case.model_validate(case_data(case))


def case_data(case: CaseOutcome) -> dict[str, Any]:
    """:func:`case_record` as plain data, as the record's model would dump it (as ``evals.case_record``
    gives an eval case): no model per case or per trial. A field that is None is left out, as the
    record writes it."""
    data: dict[str, Any] = {
        "id": case.id,
        "group": case.capability,
    }
    if case.name is not None:
        data["name"] = case.name
    data["dimensions"] = dict(case.dimensions)
    data["critical"] = case.critical
    data["location"] = {k: v for k, v in (("file", case.file), ("line", case.line)) if v is not None}
    for key, value in (
        ("input", short(case.prompt, PROMPT_LIMIT)),
        ("expected", case.expected),
        ("labels", []),
        ("definition", case.definition),
    ):
        if value is not None:
            data[key] = value
    data["trials"] = [_trial_data(t) for t in case.trials]
    return data


def _trial_data(trial: TrialOutcome) -> dict[str, Any]:
    """The run-record trial of one benchmark trial (``record.trial``; ``BenchmarkRunner`` masks
    secrets in the whole case it writes)."""
    return trial_data(
        passed=trial.passed,
        error=trial.error,
        scores={name: _score_data(score) for name, score in trial.scores.items()},
        duration_s=trial.duration_s,
        output=trial.output,
        usage=_usage(trial.usage),
        traceback=trial.traceback,
        attempts=trial.attempts,
        cache=trial.cache,
    )


def _usage(reported: Any) -> dict[str, Any] | None:
    """The trial's usage in the record's shape; None when there is none or it is malformed."""
    if not isinstance(reported, dict):
        return None
    try:
        return record_usage(reported)
    except (ValueError, TypeError, AttributeError):
        return None


def _score_data(score: Score) -> ScoreData:
    meta = score.metadata or {}
    failures = meta.get("failures")
    expected = meta.get("expected")
    actual = meta.get("actual")
    notes = score.reasoning
    if isinstance(failures, list) and all(isinstance(f, dict) and "path" in f for f in failures):
        failures = {str(f["path"]): f for f in failures}
    if isinstance(failures, dict) and failures:  # StateMatch: path -> {expected, actual, reason}
        first = list(failures.items())[:3]
        # each failing path with expected and actual (what compare shows), not a summary sentence
        more = f" (+{len(failures) - 3} more)" if len(failures) > 3 else ""
        notes = "; ".join(f"{path}: {_failure_text(info)}" for path, info in first) + more
        expected = expected if expected is not None else {p: _get(i, "expected") for p, i in first}
        actual = actual if actual is not None else {p: _get(i, "actual") for p, i in first}
    elif isinstance(failures, list) and failures:
        notes = notes or "; ".join(str(f) for f in failures[:3])
    return ScoreData(
        value=score.value,
        passed=score.passed,
        error=score.error,
        notes=short(notes, 300),
        expected=short(expected),
        actual=short(actual),
    )


def _get(info: Any, key: str) -> Any:
    return info.get(key) if isinstance(info, dict) else None


def _failure_text(info: Any) -> str:
    if isinstance(info, dict):
        if info.get("reason"):
            return str(info["reason"])
        expected, actual = (json.dumps(info.get(k), default=str) for k in ("expected", "actual"))
        return f"expected {expected}, got {actual}"
    return str(info)
