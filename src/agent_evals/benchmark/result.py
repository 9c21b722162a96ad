"""BenchmarkResult: per-case trials, pass rates (micro, macro, per group), Markdown, run record."""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agent_evals.core.types import EvalResult, Score
from agent_evals.record.model import (
    AgentInfo,
    Case,
    Location,
    RunInfo,
    RunRecord,
    Suite,
    Trial,
    TrialScore,
    Usage,
    fingerprint,
)
from agent_evals.stats.exact import pass_at_k, pass_hat_k

TEXT_LIMIT = 500
"""Longest output, prompt or expected text kept in a run record."""


_TEXT = json.JSONEncoder(default=str, sort_keys=True)
"""What ``json.dumps(value, default=str, sort_keys=True)`` does, without building an encoder per call."""


def short(value: Any, limit: int = 200) -> str | None:
    """A value as compact text, cut to ``limit`` characters; None stays None."""
    if value is None:
        return None
    text = value if isinstance(value, str) else _TEXT.encode(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class TrialOutcome:
    """One trial of one scenario."""

    passed: bool
    """True when the agent ran and every scorer passed (never True when errored)."""
    error: str | None = None
    """Set when the trial errored (exception, timeout, setup failure, scorer error)."""
    scores: dict[str, Score] = field(default_factory=dict)
    """Scores keyed by scorer name."""
    duration_s: float = 0.0
    """Wall-clock seconds of the agent call and scoring."""
    output: str | None = None
    """The agent's text output."""
    usage: dict[str, Any] | None = None
    """``context["usage"]`` when the agent reported it."""
    traceback: str | None = None
    """The error's traceback, when one was kept (an agent whose setup raised)."""
    attempts: list[dict[str, Any]] = field(default_factory=list)
    """Earlier attempts retried by ``--retry-errors`` (this trial is the final one)."""
    cache: dict[str, Any] | None = None
    """What the response cache did in this trial, when a cache mode was on."""


@dataclass
class CaseOutcome:
    """One scenario with every trial it ran."""

    capability: str
    """The capability (the run record's group)."""
    scenario_id: str
    """The scenario id within its capability."""
    prompt: str
    """The prompt."""
    name: str | None = None
    """Human-readable name."""
    dimensions: dict[str, str] = field(default_factory=dict)
    """Dimension values (capability defaults merged with the scenario's own)."""
    critical: bool = False
    """Whether the case is critical for the gate."""
    file: str | None = None
    """Declaring file."""
    line: int | None = None
    """Declaring line (1-based)."""
    expected: str | None = None
    """The expectation, as short text."""
    definition: str | None = None
    """Digest of what the scenario asks and checks (``runner.scenario_definition``)."""
    trials: list[TrialOutcome] = field(default_factory=list)
    """Trials in the order they were scheduled."""

    @property
    def id(self) -> str:
        """The stable case id ``capability/scenario-id``."""
        return f"{self.capability}/{self.scenario_id}"

    @property
    def errors(self) -> int:
        """Errored trials (left out of the pass fraction)."""
        return sum(t.error is not None for t in self.trials)

    @property
    def valid(self) -> int:
        """Trials that ran to a verdict."""
        return len(self.trials) - self.errors

    @property
    def passes(self) -> int:
        """Passing trials."""
        return sum(t.passed and t.error is None for t in self.trials)

    @property
    def pass_fraction(self) -> float | None:
        """passes / valid trials; None when every trial errored."""
        return self.passes / self.valid if self.valid else None

    @property
    def std(self) -> float:
        """Standard deviation of the pass/fail outcome across valid trials (0 for fewer than 2)."""
        outcomes = [1.0 if t.passed else 0.0 for t in self.trials if t.error is None]
        return statistics.stdev(outcomes) if len(outcomes) > 1 else 0.0

    def pass_at(self, k: int) -> float | None:
        """pass@k over valid trials; None when fewer than k trials ran to a verdict."""
        return pass_at_k(self.valid, self.passes, k) if self.valid >= k else None

    def pass_hat(self, k: int) -> float | None:
        """pass^k over valid trials; None when fewer than k trials ran to a verdict."""
        return pass_hat_k(self.valid, self.passes, k) if self.valid >= k else None


def _macro(per_capability: dict[str, dict[str, float]]) -> dict[str, float]:
    """Average each key over the capabilities that have it (a capability without a scorer is skipped)."""
    keys = dict.fromkeys(key for rates in per_capability.values() for key in rates)
    return {key: statistics.fmean(r[key] for r in per_capability.values() if key in r) for key in keys}


def _mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


@dataclass
class BenchmarkResult:
    """The outcome of running one benchmark file against one agent."""

    benchmark_id: str
    """The benchmark's id (the suite id)."""
    source: str
    """The benchmark file."""
    agent_name: str | None
    """The agent's name."""
    agent_version: str | None
    """The agent's version."""
    runs_per_scenario: int
    """Trials per scenario (k)."""
    cases: list[CaseOutcome]
    """Every scenario, in file order."""
    gate: dict[str, Any] | None = None
    """The validated ``gate:`` block of the file."""
    config: dict[str, Any] = field(default_factory=dict)
    """Execution settings that make runs comparable (trials, timeout)."""
    description: str | None = None
    """The benchmark's description."""
    started_at: str = ""
    """ISO 8601 UTC start time."""
    finished_at: str = ""
    """ISO 8601 UTC end time."""
    duration_s: float = 0.0
    """Wall-clock seconds of the run."""
    experiment_url: str | None = None
    """Where the file's ``platform`` recorded the run, when it declares one."""
    setup_error: str | None = None
    """Why the agent's ``setup()`` failed (message and traceback), when it did and the run recorded
    it instead of raising (``on_setup_error="record"``); every trial is then errored."""
    complete: bool = True
    """False while the run is in progress, and for good when it was interrupted: then only the cases
    with a finished trial are part of :meth:`to_suite` and the run record is marked incomplete."""

    # -- rates -------------------------------------------------------------------------------
    @property
    def micro_pass_rate(self) -> float | None:
        """Mean of per-case pass fractions over all cases (errored trials excluded); the gate's rate."""
        return _mean(c.pass_fraction for c in self.cases)

    @property
    def macro_pass_rate(self) -> float | None:
        """Mean of the per-capability pass rates (each capability weighs the same)."""
        return _mean(self.pass_rates_by_capability.values())

    @property
    def pass_rates_by_capability(self) -> dict[str, float | None]:
        """Mean per-case pass fraction, per capability."""
        groups: dict[str, list[float | None]] = defaultdict(list)
        for case in self.cases:
            groups[case.capability].append(case.pass_fraction)
        return {name: _mean(values) for name, values in groups.items()}

    @property
    def pass_rates_by_dimension(self) -> dict[str, dict[str, float | None]]:
        """Mean per-case pass fraction per dimension key and value (``{"difficulty": {"hard": 0.5}}``)."""
        groups: dict[str, dict[str, list[float | None]]] = defaultdict(lambda: defaultdict(list))
        for case in self.cases:
            for key, value in case.dimensions.items():
                groups[key][value].append(case.pass_fraction)
        return {key: {v: _mean(xs) for v, xs in sorted(vals.items())} for key, vals in sorted(groups.items())}

    @property
    def pass_rates_by_scorer(self) -> dict[str, float | None]:
        """Per scorer: mean over cases of the share of valid trials that scorer passed."""
        groups: dict[str, list[float | None]] = defaultdict(list)
        for case in self.cases:
            per: dict[str, list[bool]] = defaultdict(list)
            for trial in case.trials:
                if trial.error is None:
                    for name, score in trial.scores.items():
                        per[name].append(score.passed)
            for name, flags in per.items():
                groups[name].append(sum(flags) / len(flags))
        return {name: _mean(values) for name, values in sorted(groups.items())}

    # -- the seed project's view: one EvalResult per capability, macro-averaged ----------------
    @property
    def benchmark(self) -> str:
        """The benchmark's name (``benchmark_id``)."""
        return self.benchmark_id

    @property
    def config_path(self) -> str:
        """The benchmark file (``source``)."""
        return self.source

    @property
    def eval_results(self) -> dict[str, EvalResult]:
        """One EvalResult per capability (one example per trial), in file order.

        Errored trials count as failed for every scorer, as in ``run_eval``.
        """
        from agent_evals.benchmark.eval_export import to_eval_result

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

    @property
    def passed_trials(self) -> int:
        """Trials that ran without error and passed every scorer."""
        return sum(c.passes for c in self.cases)

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

    @property
    def trial_count(self) -> int:
        """Trials scheduled."""
        return sum(len(c.trials) for c in self.cases)

    @property
    def error_count(self) -> int:
        """Errored trials (counted apart from failures)."""
        return sum(c.errors for c in self.cases)

    @property
    def failure_count(self) -> int:
        """Trials that ran and failed a scorer."""
        return sum(c.valid - c.passes for c in self.cases)

    @property
    def error_rate(self) -> float:
        """Errored trials / all trials."""
        return self.error_count / self.trial_count if self.trial_count else 0.0

    @property
    def pass_at_k(self) -> float | None:
        """Mean pass@k over cases with k = runs_per_scenario; None when k is 1."""
        k = self.runs_per_scenario
        return _mean(c.pass_at(k) for c in self.cases) if k > 1 else None

    @property
    def pass_hat_k(self) -> float | None:
        """Mean pass^k over cases with k = runs_per_scenario; None when k is 1."""
        k = self.runs_per_scenario
        return _mean(c.pass_hat(k) for c in self.cases) if k > 1 else None

    # -- renderings --------------------------------------------------------------------------
    def to_markdown(self) -> str:
        """A human-readable summary: overall rates, breakdowns and the failing cases."""
        from agent_evals.benchmark.markdown import render_result

        return render_result(self)

    def to_eval_result(self) -> EvalResult:
        """The same results as an EvalResult, one example per trial (what platforms record)."""
        from agent_evals.benchmark.eval_export import to_eval_result

        return to_eval_result(self)

    def to_suite(self) -> Suite:
        """The run-record suite of this benchmark (one case per scenario, every trial kept; of an
        incomplete run, only the scenarios with a finished trial)."""
        cases = [case_record(c) for c in self.cases if c.trials or self.complete]
        suite = Suite(
            id=self.benchmark_id,
            kind="benchmark",
            source=self.source,
            agent=AgentInfo(name=self.agent_name, version=self.agent_version),
            gate=self.gate,
            cases=cases,
        )
        suite.fingerprint = fingerprint(suite, self.config)
        return suite

    def to_run_record(self) -> RunRecord:
        """A run record holding this benchmark as its only suite (marked incomplete when the run was)."""
        from agent_evals.version import __version__

        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        run = RunInfo(
            tool_version=__version__,
            started_at=self.started_at or now,
            finished_at=self.finished_at or now,
            complete=self.complete,
        )
        return RunRecord(run=run, suites=[self.to_suite()])


def case_record(case: CaseOutcome) -> Case:
    """The run-record case of one scenario, with every trial it ran."""
    return Case(
        id=case.id,
        group=case.capability,
        name=case.name,
        dimensions=dict(case.dimensions),
        critical=case.critical,
        location=Location(file=case.file, line=case.line),
        input=short(case.prompt, TEXT_LIMIT),
        expected=case.expected,
        definition=case.definition,
        trials=[_trial_record(t) for t in case.trials],
    )


def _trial_record(trial: TrialOutcome) -> Trial:
    usage = None
    if isinstance(trial.usage, dict):
        known = {
            k: trial.usage.get(k) for k in ("input_tokens", "output_tokens", "cost_usd", "models", "replayed")
        }
        try:
            usage = Usage.model_validate(known)
        except ValueError:
            usage = None
    return Trial(
        passed=trial.passed and trial.error is None,
        error=trial.error,
        scores={name: _score_record(score) for name, score in trial.scores.items()},
        duration_s=round(trial.duration_s, 4),
        usage=usage,
        output=short(trial.output, TEXT_LIMIT),
        traceback=trial.traceback,
        attempts=trial.attempts or None,
        cache=trial.cache,
    )


def _score_record(score: Score) -> TrialScore:
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
    return TrialScore(
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
