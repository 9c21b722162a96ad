"""Run a benchmark file: agent lifecycle, scenarios x trials under one concurrency cap, per-trial timeouts."""

from __future__ import annotations

import copy
import logging
import os
import re
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from agent_evals.benchmark.agent import AgentHandle
from agent_evals.benchmark.checkers import ScenarioPlan, compile_scenario
from agent_evals.benchmark.loader import load_benchmark
from agent_evals.benchmark.result import BenchmarkResult, CaseOutcome, TrialOutcome, short
from agent_evals.benchmark.schema import Benchmark, Capability, PlatformSpec, Scenario
from agent_evals.clock import iso_utc
from agent_evals.core.definition import definition_digest
from agent_evals.core.executor import Attempted, Deadline, Outcome, run_user
from agent_evals.core.faults import TrialFault
from agent_evals.core.retry import RetryPolicy
from agent_evals.core.run_sync import run_sync
from agent_evals.core.scorer import PreparedScorer, score_all
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
from agent_evals.core.types import Score
from agent_evals.cost.budget import active_budget
from agent_evals.cost.meter import task_usage, trial_usage
from agent_evals.errors import AgentLoadError, BenchmarkFileError
from agent_evals.record.models import agent_models, judge_models
from agent_evals.record.trial import distinct_key

logger = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` after every trial."""

OnStart = Callable[[BenchmarkResult], None]
"""Called once with the result as soon as the run starts; its cases fill in trial by trial and its
``complete`` turns True at the end, so a caller keeps what finished when the run is interrupted."""

OnCase = Callable[[BenchmarkResult, int], None]
"""Called as ``on_case(result, index)`` when ``result.cases[index]`` has run its last trial."""


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


@dataclass
class _Job:
    case: CaseOutcome
    scenario: Scenario
    plan: ScenarioPlan
    scorers: list[PreparedScorer]


BENCHMARK_TIMEOUT_COVERS = "the agent, its checkers and its scorers"
"""What a benchmark's ``timeout_s`` bounds: the whole trial (issue 30), named in its expiry error."""


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
) -> tuple[Benchmark, AgentHandle, list[_Job]]:
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
    done = 0
    width = concurrency or bench.execution.n_parallel_runs
    schedule = [(i, t) for i in range(len(jobs)) for t in range(k)]  # trials in schedule order
    finished: dict[int, dict[int, TrialOutcome]] = {}  # trials of the cases still running

    async def attempt(n: int) -> Called:
        job = jobs[schedule[n][0]]  # through the executor, under our limit; a fresh context each attempt
        context = _context(handle, job, schedule[n][1])
        return await call_metered(handle.run, job.scenario.prompt, context, timeout=limit or None)

    def attempt_now(n: int) -> Called:
        job = jobs[schedule[n][0]]  # a sync agent without a limit, in a worker thread of the driver
        return call_metered_now(handle.run_now, job.scenario.prompt, _context(handle, job, schedule[n][1]))

    def threaded(_n: int) -> bool:
        # batched hand-offs to the worker threads, as for sync evals; under a budget each trial's
        # spend is charged when it is scored, so the next one asks the budget after that, unbatched
        return active_budget() is None

    async def finish(n: int, ran: Attempted[Called]) -> None:
        nonlocal done
        index, trial = schedule[n]
        job = jobs[index]
        outcome = await _finish_trial(job, trial, limit, ran)
        # Each trial lands in its case as soon as it finishes, so an interruption keeps it.
        slots = finished.setdefault(index, {})
        slots[trial] = outcome
        job.case.trials = [slots[t] for t in sorted(slots)]
        done += 1
        if len(slots) == k:
            del finished[index]
            if on_case is not None:
                on_case(result, index)
        if progress is not None:
            progress(done, total)

    body: TrialBody[Called] = TrialBody(
        attempt=attempt,
        inspect=inspect_called,
        usage_of=called_usage,
        finish=finish,
        number=lambda n: schedule[n][1],
        traced=lambda _n: bench.execution.trace == "otel",
        # a sync agent without a limit runs in the driver's worker threads (no watchdog to time it)
        attempt_in_thread=attempt_now if not handle.is_async and not limit else None,
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


def _setup_failed(
    result: BenchmarkResult, jobs: list[_Job], k: int, ready: Outcome, on_case: OnCase | None
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


def select_jobs(bench: Benchmark, case_filter: str | None) -> list[_Job]:
    """The scenarios ``case_filter`` keeps, each compiled to its scorers."""
    jobs: list[_Job] = []
    base_dir = Path(bench.path).resolve().parent
    shared = shared_definition(bench)
    for cap in bench.capabilities:
        for scenario in cap.scenarios:
            if not _selected(f"{cap.name}/{scenario.key}", case_filter):
                continue
            plan: ScenarioPlan = scenario.plan or compile_scenario(scenario, bench.world, base_dir)
            scorers = [PreparedScorer.of(s) for s in plan.scorers]
            jobs.append(_Job(_case(bench, cap, scenario, plan, shared), scenario, plan, scorers))
    return jobs


def _check_overrides(trials: int | None, concurrency: int | None, timeout_s: float | None) -> None:
    for name, value in (("trials", trials), ("concurrency", concurrency)):
        if value is not None and value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")
    if timeout_s is not None and timeout_s <= 0:
        raise ValueError(f"timeout_s must be positive, got {timeout_s}")


def _new_result(
    bench: Benchmark, handle: AgentHandle, jobs: list[_Job], k: int, limit: float | None
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


def _context(handle: AgentHandle, job: _Job, trial: int) -> dict[str, Any]:
    """What the agent's ``run_case`` receives besides the prompt (fresh for every attempt)."""
    context: dict[str, Any] = {
        "case_id": job.case.id,
        "trial": trial,
        "dimensions": dict(job.case.dimensions),
    }
    if job.plan.state is not None:
        context["state"] = copy.deepcopy(job.plan.state)
    elif handle.accepts("state"):
        context["state"] = {}
    # the seed's form: appliers the agent applies to the world it keeps (always passed, [] when none)
    context["preconditions"] = copy.deepcopy(job.plan.preconditions) if job.plan.preconditions else []
    return context


async def _finish_trial(job: _Job, trial: int, limit: float | None, ran: Attempted[Called]) -> TrialOutcome:
    """A finished agent call as the trial's outcome: errored, or scored by every scorer."""
    called = ran.value
    outcome, meter = called.outcome, called.meter
    start = time.perf_counter() - outcome.elapsed  # the final attempt is the trial
    if not outcome.ok or ran.cache_error:
        if outcome.fault is not None:
            logger.debug("scenario %s trial %d raised", job.case.id, trial, exc_info=outcome.fault)
        spent = trial_usage(None, meter, None, scope=ran.scope)  # calls made before the fault were paid for
        return TrialOutcome(
            passed=False,
            error=ran.cache_error or outcome.error,
            traceback=outcome.traceback,  # trimmed to the agent's own frames, as for evals
            duration_s=time.perf_counter() - start,
            usage=spent,
            attempts=ran.attempts,
            cache=ran.cache_summary,
            models=sorted(agent_models(None, spent)) if spent else [],
        )
    task_result = outcome.value
    scores: dict[str, Score] = {}
    # the one scoring loop, under what is left of the trial's limit (it covers the agent, the
    # checkers and the scorers); a stuck or faulty scorer is errored, naming itself
    deadline = Deadline(limit or None, BENCHMARK_TIMEOUT_COVERS, start)
    scored = await score_all(
        job.scorers,
        task_result,
        job.plan.expected,
        {"input": job.scenario.prompt},
        deadline.left(),
        deadline.expired if deadline.limit is not None else None,
    )
    for score in scored:
        # keyed by the name the Score carries; a second Score with a taken name is kept as X#2
        scores[distinct_key(score.name, scores)] = score
    errored = [s for s in scores.values() if s.error]
    context = getattr(task_result, "context", None) or {}
    usage = task_usage(context, meter, scope=ran.scope)
    return TrialOutcome(
        passed=not errored and all(s.passed for s in scores.values()),
        error=f"scorer {errored[0].name!r} errored: {errored[0].error}" if errored else None,
        scores=scores,
        duration_s=time.perf_counter() - start,
        output=task_result.output,
        usage=usage,
        attempts=ran.attempts,
        cache=ran.cache_summary,
        models=sorted(agent_models(context, usage)) if context or usage else [],
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
