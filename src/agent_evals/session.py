"""One run over eval files and YAML benchmarks: collect, execute, and build the run record."""

from __future__ import annotations

import asyncio
import gc
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_evals import __version__
from agent_evals.core.record import (
    BudgetInfo,
    CIInfo,
    GitInfo,
    RunInfo,
    RunRecord,
    Suite,
    fingerprint,
)
from agent_evals.core.redact import Redactor
from agent_evals.core.retry import RetryPolicy
from agent_evals.errors import UsageError
from agent_evals.evals.execution import evaluator_name
from agent_evals.evals.recording import TrialWriter
from agent_evals.evals.result import EvalCaseResult
from agent_evals.evals.scheduler import Job, run_jobs
from agent_evals.evals.spec import EvalCaseSpec
from agent_evals.evals.suite_ids import ID_BASE
from agent_evals.plan import display_path as display_path
from agent_evals.plan import match_case_id as match_case_id
from agent_evals.plan import plan_run

if TYPE_CHECKING:
    from agent_evals.benchmark.result import BenchmarkResult
    from agent_evals.cost.budget import Budget
    from agent_evals.shard import Slicer
    from agent_evals.suite_inputs import Tracker

Progress = Callable[[int, int], None]
"""``progress(done, total)``; may be called from a worker thread."""


def utc_now() -> str:
    """The current UTC time as ISO 8601 with a ``Z`` suffix."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def git_info(env: Mapping[str, str], cwd: Path) -> GitInfo:
    """Commit SHA and ref from ``GITHUB_SHA``/``GITHUB_REF``, else from ``git`` (best effort)."""
    sha = env.get("GITHUB_SHA")
    ref = env.get("GITHUB_HEAD_REF") or env.get("GITHUB_REF")
    if not (sha and ref):
        # one process for both: `rev-parse HEAD --abbrev-ref HEAD` prints the SHA, then the branch
        lines = (_git(["rev-parse", "HEAD", "--abbrev-ref", "HEAD"], cwd) or "").splitlines()
        if len(lines) == 2:
            sha = sha or lines[0]
            ref = ref or (lines[1] if lines[1] != "HEAD" else None)
    return GitInfo(sha=sha, ref=ref)


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    out = done.stdout.strip()
    return out if done.returncode == 0 and out else None


def ci_info(env: Mapping[str, str]) -> CIInfo:
    """CI provider, run id and pull request number from the GitHub Actions environment."""
    if env.get("GITHUB_ACTIONS") != "true":
        return CIInfo()
    match = re.match(r"refs/pull/(\d+)/", env.get("GITHUB_REF", ""))
    return CIInfo(
        provider="github", run_id=env.get("GITHUB_RUN_ID"), pr=int(match.group(1)) if match else None
    )


class _EvalSuitePlan:
    """One eval file's selected cases and where their results land."""

    def __init__(self, suite_id: str, label: str, specs: list[EvalCaseSpec], start: int) -> None:
        self.suite_id = suite_id
        """Relative to the project root (``evals.suite_ids``): the same from any working directory."""
        self.label = label
        """The file as shown to the user (relative to the working directory when below it)."""
        self.specs = specs
        self.start = start


class RunBuilder:
    """Accumulates results while a run executes, so an interrupted run can still be written."""

    def __init__(self, *, env: Mapping[str, str] | None = None, cwd: Path | None = None) -> None:
        """Start a run now; ``env`` (default ``os.environ``) feeds git/CI facts and secret redaction."""
        self.env: Mapping[str, str] = os.environ if env is None else env
        self.cwd = cwd or Path.cwd()
        self.started_at = utc_now()
        self.writer = TrialWriter(Redactor.from_env(self.env))
        # Ask git while the run executes rather than after it.
        self._git: list[GitInfo] = []
        self._git_thread = threading.Thread(
            target=lambda: self._git.append(git_info(self.env, self.cwd)), daemon=True
        )
        self._git_thread.start()
        self._plans: list[_EvalSuitePlan] = []
        self._specs: list[EvalCaseSpec] = []
        self._results: dict[int, dict[int, EvalCaseResult]] = {}
        self._lock = threading.Lock()
        self._other_suites: list[Suite | BenchmarkResult] = []
        self.tracker: Tracker | None = None
        """Set (``run --record-inputs``) to record each suite's inputs (``suite_inputs``)."""
        self._inputs: dict[int, dict[str, Any]] = {}  # id(suite plan or benchmark) -> run-side inputs

    def snapshot_inputs(self, items: Sequence[object], sources: Sequence[str]) -> None:
        """Record the inputs read so far as those of ``items`` (suites just finished; every earlier read
        counts: a module imported before is an input all the same)."""
        if self.tracker is None:
            return
        from agent_evals.suite_inputs import project_root

        root = project_root(self.cwd)
        # a virtual environment inside the project holds installed packages, not project files (their
        # versions count); a prefix at or above the root must not hide the whole project
        prefixes = [
            Path(p).resolve()
            for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}
            if root in Path(p).resolve().parents
        ]
        for item, source in zip(items, sources, strict=True):
            extra = [self.cwd / source]
            self._inputs[id(item)] = self.tracker.inputs(root, skipped=prefixes, extra=extra)

    def _git_facts(self) -> GitInfo:
        self._git_thread.join(timeout=10)
        return self._git[0] if self._git else GitInfo()

    def add_eval_suite(self, label: str, specs: list[EvalCaseSpec], *, suite_id: str | None = None) -> None:
        """Plan an eval suite (one file's selected cases); ``suite_id`` defaults to ``label``."""
        self._plans.append(_EvalSuitePlan(suite_id or label, label, specs, len(self._specs)))
        self._specs.extend(specs)

    @property
    def eval_plans(self) -> list[_EvalSuitePlan]:
        """The planned eval suites, in order."""
        return self._plans

    @property
    def specs(self) -> list[EvalCaseSpec]:
        """Every planned eval case, in suite order."""
        return self._specs

    def add_result(self, spec_index: int, trial: int, result: EvalCaseResult) -> None:
        """Record one finished trial (thread-safe)."""
        with self._lock:
            self._results.setdefault(spec_index, {})[trial] = result

    def add_suite(self, suite: Suite) -> None:
        """Add a finished suite (a benchmark); secret values in it are masked like the evals' ones."""
        self._other_suites.append(self._redacted(suite))

    def add_benchmark(self, result: BenchmarkResult) -> None:
        """Follow a benchmark as it runs: the record holds its finished cases even if it is interrupted."""
        self._other_suites.append(result)

    def tally(self) -> tuple[int, int, int]:
        """Finished trials so far as (passed, failed, errored), for a live progress line."""
        passed = failed = errored = 0
        with self._lock:
            eval_results = [r for trials in self._results.values() for r in trials.values()]
        for result in eval_results:
            if result.error is not None:
                errored += 1
            elif result.passed:
                passed += 1
            else:
                failed += 1
        for item in list(self._other_suites):
            if isinstance(item, Suite):
                continue
            for case in list(item.cases):
                for trial in list(case.trials):
                    if trial.error is not None:
                        errored += 1
                    elif trial.passed:
                        passed += 1
                    else:
                        failed += 1
        return passed, failed, errored

    @property
    def setup_failures(self) -> list[str]:
        """``benchmark id: why`` for each benchmark whose agent's ``setup()`` raised (an infra fault)."""
        failures = []
        for suite in self._other_suites:
            why = getattr(suite, "setup_error", None)
            if why:
                failures.append(f"{getattr(suite, 'benchmark_id', '?')}: {why.splitlines()[0]}")
        return failures

    def _redacted(self, suite: Suite) -> Suite:
        redact = self.writer.redact
        if redact.active:
            return Suite.model_validate_json(redact(suite.model_dump_json()))
        return suite

    def _other(self, complete: bool) -> list[Suite]:
        suites = []
        for item in self._other_suites:
            if isinstance(item, Suite):
                suites.append(item)
                continue
            suite = self._redacted(item.to_suite())
            suite.inputs = self._inputs.get(id(item))
            if suite.cases or (complete and item.complete):
                suites.append(suite)
        return suites

    def record(self, *, complete: bool) -> RunRecord:
        """The run record of everything finished so far."""
        # Building tens of thousands of small objects triggers many full GC passes that find
        # nothing to free; pausing the collector halves the time of a large record.
        paused = gc.isenabled()
        gc.disable()
        try:
            suites = [self._eval_suite(plan) for plan in self._plans]
        finally:
            if paused:
                gc.enable()
        suites = [s for s in suites if s.cases or complete]
        run = RunInfo(
            tool_version=__version__,
            started_at=self.started_at,
            finished_at=utc_now(),
            complete=complete,
            suite_ids=ID_BASE,
            git=self._git_facts(),
            ci=ci_info(self.env),
        )
        return RunRecord(run=run, suites=[*suites, *self._other(complete)])

    def _eval_suite(self, plan: _EvalSuitePlan) -> Suite:
        cases = []
        evaluators: set[str] = set()
        for offset, spec in enumerate(plan.specs):
            done = self._results.get(plan.start + offset, {})
            if not done:
                continue
            evaluators.update(evaluator_name(e) for e in spec.evaluators)
            input_text, input_json = self.writer.text(spec.input)
            ref_text, ref_json = self.writer.text(spec.reference)
            cases.append(
                {
                    "id": f"{plan.suite_id}::{spec.function_id}",
                    "group": spec.dataset or Path(plan.label).stem,
                    "name": spec.function_id,
                    "location": {"file": plan.label, "line": spec.line},
                    "input": input_text,
                    "input_json": input_json,
                    "expected": ref_text,
                    "reference_json": ref_json,
                    "labels": list(spec.labels),
                    "trials": [self.writer.trial(done[t]) for t in sorted(done)],
                }
            )
        suite = Suite.model_validate(
            {"id": plan.suite_id, "kind": "evals", "source": plan.label, "cases": cases}
        )
        suite.fingerprint = fingerprint(suite, {"evaluators": sorted(evaluators)})
        suite.inputs = self._inputs.get(id(plan))
        return suite


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


async def run_paths_async(
    paths: Sequence[str | Path],
    *,
    agent: str | None = None,
    trials: int | None = None,
    concurrency: int | None = None,
    timeout_s: float | None = None,
    case_filter: str | None = None,
    datasets: Sequence[str] = (),
    labels: Sequence[str] = (),
    progress: Progress | None = None,
    builder: RunBuilder | None = None,
    shard: Slicer | None = None,
    retry_errors: int = 0,
    skip_files: Collection[Path] = (),
    budget_usd: float | None = None,
) -> RunRecord:
    """Run eval files and YAML benchmarks and return the run record.

    With ``budget_usd`` no new trial starts once the finished trials' recorded cost reaches it; the
    record is then ``complete: false`` with ``incomplete_reason: budget``.

    Directories are searched for eval files and benchmark YAML; no path means the ``benchmarks/``
    and ``evals/`` folders that exist.
    ``trials``, ``timeout_s`` and ``concurrency`` override what the files declare. ``datasets``,
    ``labels`` select evals; ``case_filter`` selects case ids. Pass a ``RunBuilder`` to keep the
    partial results of an interrupted run. With ``shard`` only that shard's cases run and the record
    is stamped as the shard (``shard.stamp``). ``retry_errors`` retries a trial that errored with an
    infrastructure error (HTTP 429/5xx, rate-limit, timeout and connection errors; ``core.retry``).
    Eval files and benchmarks in ``skip_files`` (resolved paths) are left out (`ci --reuse-unchanged`
    copies their results from the baseline).
    Raises ``UsageError`` (incl. ``EvalFileError``).
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
    from agent_evals.cost.budget import budgeted

    with budgeted(budget_usd) as budget:
        record = await _run_planned(
            paths,
            agent=agent,
            trials=trials,
            concurrency=concurrency,
            timeout_s=timeout_s,
            case_filter=case_filter,
            datasets=datasets,
            labels=labels,
            progress=progress,
            builder=builder or RunBuilder(),
            shard=shard,
            retry_errors=retry_errors,
            skip_files=skip_files,
            budget=budget,
        )
    return record


async def _run_planned(
    paths: Sequence[str | Path],
    *,
    agent: str | None,
    trials: int | None,
    concurrency: int | None,
    timeout_s: float | None,
    case_filter: str | None,
    datasets: Sequence[str],
    labels: Sequence[str],
    progress: Progress | None,
    builder: RunBuilder,
    shard: Slicer | None,
    retry_errors: int,
    skip_files: Collection[Path],
    budget: Budget | None,
) -> RunRecord:
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
    for suite in plan.eval_suites:
        specs = suite.specs
        if shard is not None:
            population = [(f"{suite.suite_id}::{s.function_id}", s.trials) for s in specs]
            evaluators = sorted({evaluator_name(e) for s in specs for e in s.evaluators})
            specs = [specs[i] for i in shard.take(suite.suite_id, population, {"evaluators": evaluators})]
        builder.add_eval_suite(suite.label, specs, suite_id=suite.suite_id)

    jobs = [Job(i, t) for i, spec in enumerate(builder.specs) for t in range(spec.trials)]
    total = len(jobs)
    done = 0
    count_lock = threading.Lock()

    def on_result(spec_index: int, trial: int, result: EvalCaseResult) -> None:
        nonlocal done
        builder.add_result(spec_index, trial, result)
        if progress is not None:
            with count_lock:
                done += 1
                progress(done, total)

    if jobs:
        await run_jobs(
            builder.specs,
            jobs,
            on_result=on_result,
            concurrency=concurrency or 1,
            timeout=timeout_s,
            retry=RetryPolicy(retry_errors),
        )
    builder.snapshot_inputs(builder.eval_plans, [p.label for p in builder.eval_plans])
    for yaml_file in plan.benchmark_files:
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
            on_setup_error="record",  # the other suites still run; the CLI exits 3 afterwards
            shard=shard,
            retry_errors=retry_errors,
        )
        builder.snapshot_inputs([bench], [bench.source])
    exhausted = budget is not None and budget.exhausted
    record = builder.record(complete=not exhausted)
    if budget is not None:
        record.run.budget = BudgetInfo(
            limit_usd=budget.limit_usd, spent_usd=round(budget.spent_usd, 6), skipped_trials=budget.skipped
        )
        if exhausted:
            record.run.incomplete_reason = "budget"
    return shard.stamp(record) if shard is not None else record


def run_paths(
    paths: Sequence[str | Path],
    *,
    agent: str | None = None,
    trials: int | None = None,
    concurrency: int | None = None,
    timeout_s: float | None = None,
    case_filter: str | None = None,
    datasets: Sequence[str] = (),
    labels: Sequence[str] = (),
    progress: Progress | None = None,
    builder: RunBuilder | None = None,
    shard: Slicer | None = None,
    retry_errors: int = 0,
    skip_files: Collection[Path] = (),
    budget_usd: float | None = None,
) -> RunRecord:
    """Synchronous wrapper of :func:`run_paths_async`."""
    holder: list[RunRecord] = []

    async def main() -> None:
        # The record is handed back through `holder`, not as the task's result: on Python 3.11
        # asyncio.run's SIGINT bookkeeping can repr the finished task, and with it a huge record.
        holder.append(
            await run_paths_async(
                paths,
                agent=agent,
                trials=trials,
                concurrency=concurrency,
                timeout_s=timeout_s,
                case_filter=case_filter,
                datasets=datasets,
                labels=labels,
                progress=progress,
                builder=builder,
                shard=shard,
                retry_errors=retry_errors,
                skip_files=skip_files,
                budget_usd=budget_usd,
            )
        )

    asyncio.run(main())
    return holder[0]
