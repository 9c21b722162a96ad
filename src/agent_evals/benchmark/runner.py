"""Run a benchmark file: agent lifecycle, scenarios x trials under one concurrency cap, per-trial timeouts."""

from __future__ import annotations

import logging
import os
import re
import threading
import time
import traceback
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

from agent_evals.benchmark.agent import AgentHandle
from agent_evals.benchmark.checkers import ScenarioPlan, compile_scenario
from agent_evals.benchmark.loader import load_benchmark
from agent_evals.benchmark.result import BenchmarkResult, CaseOutcome, TrialOutcome, short
from agent_evals.benchmark.schema import Benchmark, Capability, PlatformSpec, Scenario
from agent_evals.benchmark.trial import Job, agent_context, finished_now, scored_later
from agent_evals.clock import iso_utc
from agent_evals.core.definition import definition_digest
from agent_evals.core.executor import Attempted, Outcome, run_user
from agent_evals.core.faults import TrialFault
from agent_evals.core.retry import RetryPolicy
from agent_evals.core.run_sync import run_sync
from agent_evals.core.scorer import PreparedScorer
from agent_evals.core.tracing import require_sdk
from agent_evals.core.trials import (
    Called,
    TrialBody,
    call_metered,
    call_metered_now,
    called_usage,
    drive,
    inspect_called,
)
from agent_evals.cost.budget import active_budget
from agent_evals.errors import AgentLoadError, BenchmarkFileError
from agent_evals.record.models import judge_models

logger = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` after every trial; from a worker thread when the trial is finished
there (a sync agent without a time limit, native checks only), one call at a time."""

OnStart = Callable[[BenchmarkResult], None]
"""Called once with the result as soon as the run starts; its cases fill in trial by trial and its
``complete`` turns True at the end, so a caller keeps what finished when the run is interrupted."""

OnCase = Callable[[BenchmarkResult, int], None]
"""Called as ``on_case(result, index)`` when ``result.cases[index]`` has run its last trial (from a
worker thread as :data:`Progress` may be, one call at a time)."""


class Shard(Protocol):
    """Deals a suite's cases to shards (``run --shard``: ``run.shard.Slicer`` fits), seen from here."""

    def take(
        self,
        suite_id: str,
        cases: Sequence[tuple[str, int]],
        config: dict[str, Any],
        files: Iterable[str | Path] = (),
    ) -> list[int]:
        """Positions (in ``cases`` order, ``(case id, trials)``) of the cases this shard runs."""
        ...


def _now() -> str:
    return iso_utc(zulu=False)


def _selected(case_id: str, pattern: str | None) -> bool:
    """Glob over the case id (``*`` and ``?``; brackets are literal) with a wildcard, else a substring."""
    if not pattern:
        return True
    if "*" in pattern or "?" in pattern:
        regex = re.compile(re.escape(pattern).replace(r"\*", ".*").replace(r"\?", "."), re.DOTALL)
        return regex.fullmatch(case_id) is not None
    return pattern in case_id


def _case(
    bench: Benchmark, cap: Capability, scenario: Scenario, plan: ScenarioPlan, shared: str
) -> CaseOutcome:
    dims = {**cap.dimensions, **scenario.dimensions}
    file, line = scenario.location
    asked = _asked(scenario)
    expected: dict[str, Any] = {}
    if scenario.success is not None:
        dumped = asked.get("success")
        # the digest's dump of `success` is this one too, unless a scorer's extra argument is None
        # (exclude_none drops it, exclude_defaults keeps it): only `success.scorers` can hold one
        if dumped is not None and scenario.success.scorers is None:
            expected = dict(dumped)
        else:
            expected = scenario.success.model_dump(exclude_none=True, exclude_defaults=True)
    expected.update((plan.expected.context or {}) if not expected else {})
    return CaseOutcome(
        capability=cap.name,
        scenario_id=scenario.key,
        prompt=scenario.prompt,
        name=scenario.name,
        dimensions=dims,
        critical=scenario.critical,
        file=file or bench.path,
        line=line,
        expected=short(expected) if expected else None,
        definition=definition_digest({"scenario": asked, "shared": shared}),
    )


def shared_definition(bench: Benchmark) -> str:
    """What every scenario of a benchmark shares in its definition: the ``world`` it starts from and
    the per-trial time limit (digested once, then part of each scenario's digest)."""
    return definition_digest({"world": bench.world, "timeout_s": bench.execution.timeout_s})


_BOOKKEEPING: set[str] = {"id", "name", "dimensions", "critical"}
"""Scenario fields left out of its definition digest."""


def scenario_definition(scenario: Scenario, shared: str) -> str:
    """The scenario's definition digest (``core.definition``): what the agent is asked and how it is
    checked - the prompt, the precondition, its success checks, scorers and expected values, and
    ``shared`` (:func:`shared_definition`: the world and the time limit). Not its id, name,
    dimensions or ``critical`` (bookkeeping, recorded by themselves), nor trials, parallelism or the
    agent."""
    return definition_digest({"scenario": _asked(scenario), "shared": shared})


def _asked(scenario: Scenario) -> dict[str, Any]:
    """What a scenario asks and checks as plain data: its fields but the bookkeeping ones, defaults left out."""
    return scenario.model_dump(exclude=_BOOKKEEPING, exclude_defaults=True)


def prepare_benchmark(
    path: str | os.PathLike[str], agent: Any = None, case_filter: str | None = None
) -> tuple[Benchmark, AgentHandle, list[Job]]:
    """Everything checked before a benchmark runs: the file, its scorers, the agent and its signature
    (and the OpenTelemetry SDK, when the file asks for ``trace: otel``).

    ``agent`` as in :func:`run_benchmark_async`. The agent is imported and, when a class, created;
    nothing runs. Raises BenchmarkFileError / AgentLoadError (what ``agent-evals validate`` reports).
    """
    bench = load_benchmark(path)
    if bench.execution.trace == "otel":
        require_sdk(f"{bench.path}: execution.trace: otel")
    base_dir = Path(path).resolve().parent
    ref = agent if agent is not None else bench.agent
    if ref is None:
        raise BenchmarkFileError(
            "no agent to run: add `agent: module:Class` to the file or pass one (--agent module:Class)",
            file=bench.path,
            line=1,
            column=1,
            key_path="agent",
        )
    jobs = select_jobs(bench, case_filter)
    try:
        handle = AgentHandle(ref, base_dir=base_dir)
    except AgentLoadError as exc:  # say which file (and line) asked for the agent
        if isinstance(ref, str) and agent is None:
            raise AgentLoadError(f"{bench.agent_location}: {exc}") from exc
        raise
    stateful = next((job for job in jobs if job.plan.state is not None), None)
    if stateful is not None:
        try:
            handle.require_state()
        except AgentLoadError as exc:  # say which file (and which scenario) needs the state
            file, line = stateful.scenario.location
            where = f"{file}:{line}" if line else file
            raise AgentLoadError(f"{where}: scenario {stateful.case.id!r}: {exc}") from exc
    return bench, handle, jobs


async def run_benchmark_async(
    path: str | os.PathLike[str],
    agent: Any = None,
    *,
    trials: int | None = None,
    concurrency: int | None = None,
    timeout_s: float | None = None,
    case_filter: str | None = None,
    progress: Progress | None = None,
    on_start: OnStart | None = None,
    on_case: OnCase | None = None,
    on_setup_error: Literal["raise", "record"] = "raise",
    shard: Shard | None = None,
    retry_errors: int = 0,
) -> BenchmarkResult:
    """Run every scenario of the benchmark at ``path`` against ``agent`` and collect the results.

    ``agent`` is a BaseAgent class or instance, an object with ``run_case``, a function, or a
    ``module:attr`` string (importable from the YAML file's folder); None uses the file's ``agent:``.
    ``trials``, ``concurrency`` and ``timeout_s`` override the file's ``execution`` block;
    ``case_filter`` keeps cases whose id matches (a glob with ``*``/``?``, brackets literal; else a substring).
    ``on_start`` receives the result object before the first trial (see :data:`OnStart`), ``on_case``
    each case as it completes (:data:`OnCase`).
    Nothing runs until the whole file validates. Raises BenchmarkFileError / AgentLoadError.

    When the agent's ``setup()`` raises, ``teardown()`` still runs and the exception propagates
    (as in the seed project); with ``on_setup_error="record"`` (what ``run`` and ``ci`` use) every
    trial is recorded as errored with the traceback and ``result.setup_error`` says why instead.
    With ``shard`` (``run --shard``) only the scenarios dealt to that shard run. ``retry_errors``
    retries an agent call that failed with an infrastructure error (``core.retry``) that many times.
    """
    _check_overrides(trials, concurrency, timeout_s)
    retry = RetryPolicy(retry_errors)
    bench, handle, jobs = prepare_benchmark(path, agent, case_filter)
    k = trials or bench.execution.runs_per_scenario
    limit = timeout_s or bench.execution.timeout_s
    if shard is not None:
        population = [(job.case.id, k) for job in jobs]
        config = {"runs_per_scenario": k, "timeout_s": limit}
        files = [bench.path, *(job.case.file for job in jobs if job.case.file)]
        jobs = [jobs[i] for i in shard.take(bench.benchmark, population, config, files=files)]

    result = _new_result(bench, handle, jobs, k, limit)
    if on_start is not None:
        on_start(result)
    start = time.perf_counter()
    total = len(jobs) * k
    width = concurrency or bench.execution.n_parallel_runs
    schedule = [(i, t) for i in range(len(jobs)) for t in range(k)]  # trials in schedule order

    async def attempt(n: int) -> Called:
        job = jobs[schedule[n][0]]  # through the executor, under our limit; a fresh context each attempt
        context = agent_context(handle, job, schedule[n][1])
        return await call_metered(handle.run, job.scenario.prompt, context, timeout=limit or None)

    def attempt_now(n: int) -> Called:
        job = jobs[schedule[n][0]]  # a sync agent without a limit, in a worker thread of the driver
        return call_metered_now(
            handle.run_now, job.scenario.prompt, agent_context(handle, job, schedule[n][1])
        )

    def threaded(_n: int) -> bool:
        # batched hand-offs to the worker threads, as for sync evals; under a budget each trial's
        # spend is charged when it is scored, so the next one asks the budget after that, unbatched
        return active_budget() is None

    land = _Landing(result, schedule, k, on_case, progress).land

    def finish(n: int, ran: Attempted[Called]) -> Awaitable[None] | None:
        index, trial = schedule[n]
        outcome = finished_now(jobs[index], trial, ran)
        if outcome is None:  # a scorer to wait for, on the loop
            return score_later(n, ran)
        land(n, outcome)
        return None

    async def score_later(n: int, ran: Attempted[Called]) -> None:
        index = schedule[n][0]
        land(n, await scored_later(jobs[index], limit, ran))

    def finish_in_thread(n: int, ran: Attempted[Called]) -> None:
        index, trial = schedule[n]
        outcome = finished_now(jobs[index], trial, ran)
        assert outcome is not None  # given to the driver only when every job's scorers are inline
        land(n, outcome)

    body: TrialBody[Called] = TrialBody(
        attempt=attempt,
        inspect=inspect_called,
        usage_of=called_usage,
        finish=finish,
        number=lambda n: schedule[n][1],
        traced=lambda _n: bench.execution.trace == "otel",
        # a sync agent without a limit runs in the driver's worker threads (no watchdog to time it)
        attempt_in_thread=attempt_now if not handle.is_async and not limit else None,
        # native checks only: a threaded trial is scored and lands in its thread as it ends (as evals)
        finish_in_thread=finish_in_thread if all(job.inline for job in jobs) else None,
        threaded=threaded,
    )

    try:
        ready = await run_user(handle.setup)
        if ready.fault is not None:
            fault = ready.fault
            if on_setup_error == "raise":
                raise fault if isinstance(fault, Exception) else TrialFault(fault)
            _setup_failed(result, jobs, k, ready, on_case)
        else:
            await drive(total, body, concurrency=width, retry=retry)
        spent = active_budget()
        result.complete = spent is None or not spent.exhausted
    finally:
        done_with = await run_user(handle.teardown)
        if not done_with.ok:
            logger.warning("agent teardown failed: %s", done_with.error)
        result.finished_at = _now()
        result.duration_s = time.perf_counter() - start
    if bench.platform is not None:
        await _record_on_platform(bench.platform, bench.benchmark, result)
    return result


class _Landing:
    """Where a benchmark's trials land, from the loop and from the driver's worker threads: each in its
    case as soon as it is scored, so an interruption keeps it; a case complete goes to ``on_case``."""

    def __init__(
        self,
        result: BenchmarkResult,
        schedule: list[tuple[int, int]],
        k: int,
        on_case: OnCase | None,
        progress: Progress | None,
    ) -> None:
        self.result, self.schedule, self.k = result, schedule, k
        self.on_case, self.progress = on_case, progress
        self.done = 0
        self.running: dict[int, dict[int, TrialOutcome]] = {}
        """The finished trials of the cases still running, by case and trial."""
        self._lock = threading.Lock()

    def land(self, n: int, outcome: TrialOutcome) -> None:
        """Trial ``n`` of the schedule is scored: into its case (one trial at a time)."""
        index, trial = self.schedule[n]
        with self._lock:
            slots = self.running.setdefault(index, {})
            slots[trial] = outcome
            self.result.cases[index].trials = [slots[t] for t in sorted(slots)]
            self.done += 1
            if len(slots) == self.k:
                del self.running[index]
                if self.on_case is not None:
                    self.on_case(self.result, index)
            if self.progress is not None:
                self.progress(self.done, len(self.schedule))


def _setup_failed(
    result: BenchmarkResult, jobs: list[Job], k: int, ready: Outcome, on_case: OnCase | None
) -> None:
    """Record every trial as errored by the agent's failed ``setup()`` (``on_setup_error="record"``)."""
    fault = ready.fault
    assert fault is not None
    logger.debug("agent setup failed", exc_info=fault)
    message = f"agent setup failed: {ready.error}"
    trace = "".join(traceback.format_exception(type(fault), fault, fault.__traceback__))
    result.setup_error = f"{message}\n{trace}"
    for index, job in enumerate(jobs):
        job.case.trials = [TrialOutcome(passed=False, error=message, traceback=trace) for _ in range(k)]
        if on_case is not None:
            on_case(result, index)


async def _record_on_platform(spec: PlatformSpec, benchmark_id: str, result: BenchmarkResult) -> None:
    from agent_evals.adapters.platforms.local import LocalConfig

    config = LocalConfig(experiment=spec.experiment or benchmark_id, output_dir=spec.output_dir)
    try:
        recorded = await config.record(result.to_eval_result())
    except OSError as exc:  # the run itself succeeded; keep its results
        logger.warning("could not write the results to the local platform: %s", exc)
        return
    result.experiment_url = recorded.experiment_url


def select_jobs(bench: Benchmark, case_filter: str | None) -> list[Job]:
    """The scenarios ``case_filter`` keeps, each compiled to its scorers."""
    jobs: list[Job] = []
    base_dir = Path(bench.path).resolve().parent
    shared = shared_definition(bench)
    for cap in bench.capabilities:
        for scenario in cap.scenarios:
            if not _selected(f"{cap.name}/{scenario.key}", case_filter):
                continue
            plan: ScenarioPlan = scenario.plan or compile_scenario(scenario, bench.world, base_dir)
            scorers = [PreparedScorer.of(s) for s in plan.scorers]
            jobs.append(Job(_case(bench, cap, scenario, plan, shared), scenario, plan, scorers))
    return jobs


def _check_overrides(trials: int | None, concurrency: int | None, timeout_s: float | None) -> None:
    for name, value in (("trials", trials), ("concurrency", concurrency)):
        if value is not None and value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")
    if timeout_s is not None and timeout_s <= 0:
        raise ValueError(f"timeout_s must be positive, got {timeout_s}")


def _new_result(
    bench: Benchmark, handle: AgentHandle, jobs: list[Job], k: int, limit: float | None
) -> BenchmarkResult:
    """The run's result before its first trial (its cases fill in as trials finish)."""
    return BenchmarkResult(
        benchmark_id=bench.benchmark,
        source=bench.path,
        agent_name=handle.name,
        agent_version=handle.version,
        runs_per_scenario=k,
        cases=[job.case for job in jobs],
        gate=bench.gate,
        config={"runs_per_scenario": k, "timeout_s": limit},
        judge_models=sorted(judge_models(s.fn for job in jobs for s in job.scorers)),
        description=bench.description,
        started_at=_now(),
        complete=False,
    )


def run_benchmark(
    path: str | os.PathLike[str],
    agent: Any = None,
    *,
    trials: int | None = None,
    concurrency: int | None = None,
    timeout_s: float | None = None,
    case_filter: str | None = None,
    progress: Progress | None = None,
    on_start: OnStart | None = None,
) -> BenchmarkResult:
    """Synchronous wrapper of ``run_benchmark_async`` (for scripts; not inside a running event loop)."""

    return run_sync(
        run_benchmark_async(
            path,
            agent,
            trials=trials,
            concurrency=concurrency,
            timeout_s=timeout_s,
            case_filter=case_filter,
            progress=progress,
            on_start=on_start,
        )
    )
