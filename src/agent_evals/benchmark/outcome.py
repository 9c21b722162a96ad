"""A benchmark run's outcomes as data: trials, cases with pass@k/pass^k, and the run's pass rates."""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agent_evals.core.types import Score
from agent_evals.stats.exact import pass_at_k, pass_hat_k

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
    models: list[str] = field(default_factory=list)
    """The models the agent used in this trial, as far as it told (``record.models.agent_models``)."""


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


def _mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


@dataclass
class BenchmarkRun:
    """The outcome of running one benchmark file against one agent, as data and rates
    (:class:`~agent_evals.benchmark.result.BenchmarkResult` adds its renderings)."""

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
    judge_models: list[str] = field(default_factory=list)
    """The models its LLM scorers ask (``record.models.judge_model``), sorted."""
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
    def passed_trials(self) -> int:
        """Trials that ran without error and passed every scorer."""
        return sum(c.passes for c in self.cases)

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
