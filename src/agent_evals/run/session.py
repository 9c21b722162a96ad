"""One run over eval files and YAML benchmarks: collect, execute, and stream the run record."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Awaitable, Callable, Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from agent_evals.core.retry import RetryPolicy
from agent_evals.core.run_sync import run_sync
from agent_evals.core.workers import LoopPool
from agent_evals.errors import UsageError
from agent_evals.evals.execution import evaluator_name
from agent_evals.evals.result import EvalCaseResult
from agent_evals.evals.scheduler import Job, run_jobs
from agent_evals.run.builder import RunBuilder as RunBuilder
from agent_evals.run.plan import display_path as display_path
from agent_evals.run.plan import match_case_id as match_case_id
from agent_evals.run.plan import plan_run

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from agent_evals.record.model import RunRecord
    from agent_evals.run.shard import Slicer

Progress = Callable[[int, int], None]
"""``progress(done, total)``; may be called from a worker thread."""


def _benchmark_runner() -> Any:
    try:
        from agent_evals.benchmark import runner
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("agent_evals"):
            raise UsageError(
                "YAML benchmarks cannot run: this build of agent-evals has no benchmark runner"
            ) from exc
        raise
    return runner.run_benchmark_async


class RunOptions(TypedDict, total=False):
    """The keyword options of :func:`execute_async`, for the wrappers that pass them on (mypy checks both agree)."""

    agent: str | None
    trials: int | None
    concurrency: int | None
    timeout_s: float | None
    case_filter: str | None
    datasets: Sequence[str]
    labels: Sequence[str]
    progress: Progress | None
    shard: Slicer | None
    retry_errors: int
    skip_files: Collection[Path]
    budget_usd: float | None
    trace: str | None


async def execute_async(
    paths: Sequence[str | Path],
    builder: RunBuilder,
    *,
    agent: str | None = None,
    trials: int | None = None,
    concurrency: int | None = None,
    timeout_s: float | None = None,
    case_filter: str | None = None,
    datasets: Sequence[str] = (),
    labels: Sequence[str] = (),
    progress: Progress | None = None,
    shard: Slicer | None = None,
    retry_errors: int = 0,
    skip_files: Collection[Path] = (),
    budget_usd: float | None = None,
    trace: str | None = None,
) -> None:
    """Run eval files and YAML benchmarks; every case goes to ``builder``'s record as it finishes.

    Directories are searched for eval files and benchmark YAML; no path means the ``benchmarks/``
    and ``evals/`` folders that exist. ``trials``, ``timeout_s`` and ``concurrency`` override what
    the files declare. ``datasets``, ``labels`` select evals; ``case_filter`` selects case ids. With
    ``shard`` only that shard's cases run and the record is stamped as the shard. ``retry_errors``
    retries a trial that errored with an infrastructure error (HTTP 429/5xx, rate-limit, timeout and
    connection errors; ``core.retry``). Eval files and benchmarks in ``skip_files`` (resolved paths)
    are left out (`ci --reuse-unchanged` copies their results from the baseline). Suites run one
    after another (the trials of one suite concurrently), so each suite's cases reach the record
    together. With ``budget_usd`` no new trial starts once the finished trials' recorded cost reaches
    it; the record is then ``complete: false`` with ``incomplete_reason: budget``. With ``trace="otel"``
    every trial runs under an OpenTelemetry trace of its own (``core.tracing``; UsageError without the
    SDK). The record file opens once the plan is checked; the caller finishes it
    (``builder.finish``), interrupted or not. Raises ``UsageError`` (incl. ``EvalFileError``).
    """
    if trials is not None and trials < 1:
        raise UsageError(f"--trials must be at least 1, got {trials}")
    if concurrency is not None and concurrency < 1:
        raise UsageError(f"--concurrency must be at least 1, got {concurrency}")
    if timeout_s is not None and timeout_s <= 0:
        raise UsageError(f"--timeout must be a positive number of seconds, got {timeout_s}")
    if retry_errors < 0:
        raise UsageError(f"--retry-errors must be 0 or more, got {retry_errors}")
    if budget_usd is not None and not 0 < budget_usd < float("inf"):
        raise UsageError(f"--budget-usd must be a positive number of US dollars, got {budget_usd}")
    from agent_evals.core.tracing import tracing
    from agent_evals.cost.budget import budgeted

    with tracing(trace), budgeted(budget_usd) as budget:
        try:
            await _execute_plan(
                paths,
                builder,
                agent=agent,
                trials=trials,
                concurrency=concurrency,
                timeout_s=timeout_s,
                case_filter=case_filter,
                datasets=datasets,
                labels=labels,
                progress=progress,
                shard=shard,
                retry_errors=retry_errors,
                skip_files=skip_files,
            )
        finally:
            builder.budget = budget  # the final record says what the budget came to


async def _execute_plan(
    paths: Sequence[str | Path],
    builder: RunBuilder,
    *,
    agent: str | None,
    trials: int | None,
    concurrency: int | None,
    timeout_s: float | None,
    case_filter: str | None,
    datasets: Sequence[str],
    labels: Sequence[str],
    progress: Progress | None,
    shard: Slicer | None,
    retry_errors: int,
    skip_files: Collection[Path],
) -> None:
    from agent_evals.cost.prices import load_table, use_table

    use_table(load_table(builder.cwd))  # the repo's prices (a bad prices: key fails before anything runs)
    plan = plan_run(
        paths,
        cwd=builder.cwd,
        trials=trials,
        case_filter=case_filter,
        datasets=datasets,
        labels=labels,
        skip=skip_files,
    )
    if plan.benchmark_files:
        _benchmark_runner()  # fail before running anything when benchmarks cannot run
    builder.shard = shard
    for suite in plan.eval_suites:
        specs = suite.specs
        if shard is not None:
            population = [(f"{suite.suite_id}::{s.function_id}", s.trials) for s in specs]
            evaluators = sorted({evaluator_name(e) for s in specs for e in s.evaluators})
            mine = shard.take(
                suite.suite_id, population, {"evaluators": evaluators}, files=[builder.cwd / suite.label]
            )
            specs = [specs[i] for i in mine]
        builder.add_eval_suite(suite.label, specs, suite_id=suite.suite_id)
    builder.start()

    total = sum(spec.trials for spec in builder.specs)
    done = 0
    count_lock = threading.Lock()

    def on_result(spec_index: int, trial: int, result: EvalCaseResult) -> None:
        nonlocal done
        builder.add_result(spec_index, trial, result)
        if progress is not None:
            with count_lock:
                done += 1
                progress(done, total)

    for first, count in builder.eval_plans:
        specs = builder.specs
        jobs = [Job(i, t) for i in range(first, first + count) for t in range(specs[i].trials)]
        if jobs:
            await run_jobs(
                specs,
                jobs,
                on_result=on_result,
                concurrency=concurrency or 1,
                timeout=timeout_s,
                retry=RetryPolicy(retry_errors),
            )
    builder.snapshot_inputs(builder.eval_suite_indices, builder.eval_sources)
    selected = sum(len(suite.specs) for suite in plan.eval_suites)  # before the shard took its slice
    for yaml_file in plan.benchmark_files:
        _back_to(builder.cwd)  # the paths given are relative to it, and the agent module is found from it
        offset = done

        def bench_progress(b_done: int, b_total: int, offset: int = offset) -> None:
            if progress is not None:
                progress(offset + b_done, total + b_total)

        bench = await _benchmark_runner()(
            yaml_file,
            agent,
            trials=trials,
            concurrency=concurrency,
            timeout_s=timeout_s,
            case_filter=case_filter,
            progress=bench_progress,
            on_start=builder.add_benchmark,
            on_case=builder.benchmark_case_done,
            on_setup_error="record",  # the other suites still run; the CLI exits 3 afterwards
            shard=shard,
            retry_errors=retry_errors,
        )
        builder.snapshot_inputs([builder.benchmark_index(bench)], [bench.source])
        dealt = shard.populations.get(bench.benchmark_id) if shard is not None else None
        selected += len(dealt.ids) if dealt is not None else len(bench.cases)
    _back_to(builder.cwd)
    if case_filter and plan.benchmark_files and not selected:  # eval files alone: plan_run said so
        where = ", ".join(str(p) for p in plan.paths)
        raise UsageError(
            f"no case in {where} matches --filter {case_filter!r}, so nothing ran; `agent-evals list` "
            "shows the case ids"
        )


def _back_to(cwd: Path) -> None:
    """Return to the run's working directory when an agent left it (a coding agent that works in a
    folder of its own): the next suite's files and the repo's policy are found where the run started."""
    try:
        if Path.cwd() == cwd:
            return
    except OSError:  # the folder the agent went to is gone
        pass
    os.chdir(cwd)


def execute(paths: Sequence[str | Path], builder: RunBuilder, **options: Unpack[RunOptions]) -> None:
    """Synchronous wrapper of :func:`execute_async` (the same keyword options), on a loop of its own
    whose default executor is not waited for after a real signal (``core.workers.LoopPool``)."""
    run_sync(_with_loop_pool(execute_async(paths, builder, **options)))


async def _with_loop_pool(work: Awaitable[None]) -> None:
    asyncio.get_running_loop().set_default_executor(LoopPool(thread_name_prefix="agent-evals-loop"))
    await work


async def run_paths_async(
    paths: Sequence[str | Path], *, builder: RunBuilder | None = None, **options: Unpack[RunOptions]
) -> RunRecord:
    """Run eval files and YAML benchmarks (:func:`execute_async`, the same keyword options) and return
    the finished run record.

    Pass a ``RunBuilder`` to keep the partial results of an interrupted run (``builder.record(complete=False)``).
    """
    builder = builder or RunBuilder()
    await execute_async(paths, builder, **options)
    return builder.record(complete=True)


def run_paths(
    paths: Sequence[str | Path], *, builder: RunBuilder | None = None, **options: Unpack[RunOptions]
) -> RunRecord:
    """Synchronous wrapper of :func:`run_paths_async`."""
    return run_sync(run_paths_async(paths, builder=builder, **options))
