"""Run a task over a dataset and score every example: ``run_eval_async`` and its sync wrapper ``run_eval``."""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import time
import warnings
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from typing import Any

from agent_evals.calls.scope import TrialScope, active_cache
from agent_evals.core.aggregate import aggregate
from agent_evals.core.arguments import (
    check_config,
    check_dataset,
    check_platform,
    check_task,
    prepare_scorers,
)
from agent_evals.core.executor import Attempted, Outcome, await_user, call_now, run_attempts, run_user
from agent_evals.core.gc_tuning import relaxed_gc
from agent_evals.core.retry import RetryPolicy
from agent_evals.core.scorer import PreparedScorer, is_async_callable, score_all
from agent_evals.core.types import (
    EvalConfig,
    EvalExample,
    EvalResult,
    ExampleData,
    Score,
    TaskResult,
    wire_tool_calls,
)
from agent_evals.cost.http_usage import install as install_usage_hook
from agent_evals.cost.meter import (
    UsageMeter,
    bound_meter,
    explicit_usage,
    record_usage,
    trial_usage,
    usage_of_messages,
)

logger = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
NO_TASK = (
    "no task and no stored output: either pass task=... or give this example a pre-populated "
    "output=TaskResult(...) to replay"
)
# (result or whatever the task returned, error message, seconds spent in the task, the attempts
# when the trial executor's retries or response cache were in play, the final attempt's usage meter)
_Outcome = tuple[Any, "str | None", float, "Attempted[Any] | None", "UsageMeter | None"]

# Sync tasks run in worker threads. A thread hop costs tens of microseconds, more than a trivial
# task, so a lane hands a worker several examples at once while tasks stay fast; the batch
# shrinks back to one example as soon as tasks take noticeable time.
_MAX_BATCH = 512
_GROW_BELOW_S = 0.005
_SHRINK_ABOVE_S = 0.05


async def run_eval_async(
    task: Callable[[Any], Any] | None = None,
    dataset: Iterable[ExampleData] | None = None,
    scorers: Sequence[Any] | None = None,
    platform: Any | None = None,
    config: EvalConfig | Mapping[str, Any] | None = None,
    *,
    progress: Progress | None = None,
) -> EvalResult:
    """Run ``task`` on every example of ``dataset``, score each result, and return an EvalResult.

    ``task(input)`` may be sync (run in a worker thread so it never blocks the event loop) or
    async, and returns a ``TaskResult``; examples that carry a stored ``output`` are replayed
    without calling it (``task`` may then be None; an example with neither is an errored
    example). ``scorers`` are callables ``(result, expected=None, **context)``; one example's
    scorers run concurrently (sync ones in worker threads). Results are keyed by the
    ``Score.name`` each returns (the seed's rule). When two scorers return the same name the last
    one is kept, and a ``UserWarning`` names both. ``platform`` records the finished run:
    ``LocalConfig()`` (also what None and ``"local"`` mean) or any object with
    ``async record(result)``. ``progress(done, total)`` is called after each example.

    A task that raises or times out marks its example with ``error``, output ``""`` and no
    scores, and it counts as failed for every scorer; a scorer that raises or returns a non-Score
    yields an errored, failing Score. Wrong arguments raise ValueError/TypeError before anything runs.
    """
    cfg = check_config(config)
    examples = check_dataset(dataset)
    prepared = prepare_scorers(scorers)
    check_task(task, examples)
    platform = check_platform(platform)
    if task is not None:
        replayed = sum(1 for example in examples if example.output is not None)
        if replayed:
            logger.warning(
                "Pre-populated output found on %d of %d examples. Skipping task execution for "
                "them: a stored output takes precedence over the task.",
                replayed,
                len(examples),
            )
    started_at = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    with relaxed_gc():  # the results stay alive to the end: collections would only rescan them
        run = _Run(task, examples, prepared, cfg, progress)
        results = await run.execute()
        for message in run.collision_warnings():
            warnings.warn(message, UserWarning, stacklevel=2)
        names = list(dict.fromkeys(name for r in results for name in r.scores))
        pass_rates, means, summary = aggregate(results, names or [p.name for p in prepared])
        result = EvalResult(
            pass_rates=pass_rates,
            scores=means,
            examples=results,
            summary=summary,
            duration=time.perf_counter() - t0,
            started_at=started_at,
        )
    await _record(platform, result)
    return result


async def _record(platform: Any, result: EvalResult) -> None:
    # the scores are the valuable part: a platform that cannot store them is reported, not fatal
    try:
        recorded = await platform.record(result)
    except Exception:
        logger.error("could not record the run on %s; results are only in memory", platform, exc_info=True)
        return
    result.experiment_id = recorded.experiment_id
    result.experiment_url = recorded.experiment_url
    result.platform = recorded.platform


def run_eval(
    task: Callable[[Any], Any] | None = None,
    dataset: Iterable[ExampleData] | None = None,
    scorers: Sequence[Any] | None = None,
    platform: Any | None = None,
    config: EvalConfig | Mapping[str, Any] | None = None,
    *,
    progress: Progress | None = None,
) -> EvalResult:
    """Blocking form of :func:`run_eval_async` for plain scripts.

    Raises RuntimeError when called while an event loop is running (inside ``async def``,
    Jupyter): there, ``await run_eval_async(...)`` instead.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(run_eval_async(task, dataset, scorers, platform, config, progress=progress))
    raise RuntimeError(
        "run_eval() cannot be used while an event loop is running (inside async code or Jupyter); "
        "use `await run_eval_async(...)` there instead"
    )


class _Run:
    """One execution: lanes pull examples in dataset order until none are left."""

    def __init__(
        self,
        task: Callable[[Any], Any] | None,
        examples: list[ExampleData],
        scorers: list[PreparedScorer],
        config: EvalConfig,
        progress: Progress | None,
    ) -> None:
        self.task = task
        self.examples = examples
        self.scorers = scorers
        self.config = config
        self.progress = progress
        self.results: list[EvalExample | None] = [None] * len(examples)
        self.cursor = 0
        self.done = 0
        self.task_is_async = task is not None and is_async_callable(task)
        self.retry = RetryPolicy(config.retry_errors)
        self.pool: ThreadPoolExecutor | None = None
        self.any_context = any(s.accepts_context for s in scorers)
        self.returned_names: dict[int, str] = {}  # scorer index -> the Score.name it returned
        self.collisions: dict[tuple[str, int, int], bool] = {}  # (name, first, second) -> a failure hidden
        self.repeats: list[int] | None = None  # per example: how many earlier ones have its input

    async def execute(self) -> list[EvalExample]:
        lanes = min(self.config.max_concurrency, len(self.examples))
        if self.task is not None:
            install_usage_hook()  # the task's model calls over httpx are counted on its example's meter
        if self.task is not None and not self.task_is_async:
            # spare threads so a sync task stuck past its timeout does not shrink the concurrency
            self.pool = ThreadPoolExecutor(max_workers=2 * lanes, thread_name_prefix="agent-evals-task")
        workers = [asyncio.ensure_future(self._lane()) for _ in range(lanes)]
        try:
            await asyncio.gather(*workers)
        except BaseException:
            # cancelled, interrupted or a bug: leave no lane running behind the caller's back
            for worker in workers:
                worker.cancel()
            await asyncio.wait(workers)
            raise
        finally:
            if self.pool is not None:
                self.pool.shutdown(wait=False, cancel_futures=True)
        return [r for r in self.results if r is not None]

    def collision_warnings(self) -> list[str]:
        """One message per pair of scorers that returned the same ``Score.name`` in this run."""
        out = []
        for (name, first, second), hidden in self.collisions.items():
            a, b = self.scorers[first].name, self.scorers[second].name
            lost = " (a failing score was replaced by a passing one)" if hidden else ""
            out.append(
                f"scorers[{first}] ({a}) and scorers[{second}] ({b}) both returned a Score named {name!r}; "
                f"EvalResult.scores keeps only the last one{lost}; the example still fails if either "
                "failed, and a run record keeps both. Give each scorer a distinct name "
                "(e.g. its `name=` argument) to see both."
            )
        return out

    def _keep(
        self,
        scores: dict[str, Score],
        owners: dict[str, int],
        index: int,
        score: Score,
        replaced: list[Score],
    ) -> None:
        """Store one scorer's Score under its name; the last of two with one name wins (the seed's rule).

        The Score it replaces goes to ``replaced``, so the example still fails on it and a run record
        made from the result keeps both.
        """
        self.returned_names.setdefault(index, score.name)
        if score.name in owners:
            key = (score.name, owners[score.name], index)
            hidden = not scores[score.name].passed and score.passed
            self.collisions[key] = self.collisions.get(key, False) or hidden
            replaced.append(scores[score.name])
        owners[score.name] = index
        scores[score.name] = score

    async def _lane(self) -> None:
        tracked = self.retry.retries > 0 or active_cache() is not None  # one trial executor call each
        if self.pool is not None and self.config.timeout_s is None and not tracked:
            await self._batched_lane(self.pool)
            return
        loop = asyncio.get_running_loop()
        # One example at a time. Its scoring runs as a separate step so the lane can start the
        # next task first: a slow scorer never delays the next model call, and the lane waits
        # for the previous scoring before handing out another (scoring stays bounded too).
        scoring: asyncio.Future[None] | None = None
        try:
            while self.cursor < len(self.examples):
                index = self.cursor
                self.cursor += 1
                example = self.examples[index]
                if self.pool is None:
                    outcome = await self._run_async_task(example, self._repeat_of(index))
                else:
                    outcome = await self._run_sync_with_timeout(loop, example, self._repeat_of(index))
                if scoring is not None:
                    await scoring
                scoring = asyncio.ensure_future(self._finish(index, outcome))
            if scoring is not None:
                await scoring
        finally:
            if scoring is not None and not scoring.done():
                scoring.cancel()
            elif scoring is not None and not scoring.cancelled():
                scoring.exception()  # retrieved here when the lane stops before awaiting it

    async def _batched_lane(self, pool: ThreadPoolExecutor) -> None:
        loop = asyncio.get_running_loop()
        batch = 1
        while self.cursor < len(self.examples):
            start = self.cursor
            end = min(len(self.examples), start + batch)
            self.cursor = end
            t = time.perf_counter()
            # like asyncio.to_thread: the task sees the caller's context variables (tracing, ...)
            outcomes = await loop.run_in_executor(
                pool, contextvars.copy_context().run, _run_sync_batch, self.task, self.examples[start:end]
            )
            elapsed = time.perf_counter() - t
            if elapsed < _GROW_BELOW_S:
                batch = min(batch * 2, _MAX_BATCH)
            elif elapsed > _SHRINK_ABOVE_S:
                batch = max(1, batch // 2)
            for offset, outcome in enumerate(outcomes):
                await self._finish(start + offset, outcome)

    async def _run_async_task(self, example: ExampleData, trial: int) -> _Outcome:
        if example.output is not None:
            return example.output, None, 0.0, None, None
        task = self.task
        if task is None:
            return None, NO_TASK, 0.0, None, None
        return await self._attempts(
            lambda: run_user(task, example.input, timeout=self.config.timeout_s), example, trial
        )

    async def _run_sync_with_timeout(
        self, loop: asyncio.AbstractEventLoop, example: ExampleData, trial: int
    ) -> _Outcome:
        if example.output is not None:
            return example.output, None, 0.0, None, None
        task = self.task
        if task is None:
            return None, NO_TASK, 0.0, None, None
        limit, pool = self.config.timeout_s, self.pool or True
        # the worker thread cannot be interrupted: past the limit it finishes in the background
        return await self._attempts(
            lambda: run_user(task, example.input, timeout=limit, thread=pool), example, trial
        )

    async def _attempts(
        self, attempt: Callable[[], Awaitable[Outcome]], example: ExampleData, trial: int
    ) -> _Outcome:
        """One example's task call through the trial executor (retries, response cache), metered."""

        async def metered() -> tuple[Outcome, UsageMeter]:
            with bound_meter() as meter:  # the task's model calls, per attempt (not the scorers')
                return await attempt(), meter

        done = await run_attempts(
            metered,
            lambda pair: _inspect(pair[0]),
            self.retry,
            usage_of=_retried_usage,
            trial=trial,
        )
        outcome, meter = done.value
        value, error, elapsed, _, _ = _outcome(outcome, example, meter)
        return value, done.cache_error or error, elapsed, done, meter  # the final attempt is the trial

    def _repeat_of(self, index: int) -> int:
        """How many earlier examples of the dataset have this one's input: the response cache's trial
        index, so a repeated example never replays the answer recorded for the first one (0 without a cache)."""
        if active_cache() is None:
            return 0
        if self.repeats is None:
            seen: dict[str, int] = {}
            self.repeats = []
            for item in self.examples:
                key = repr(item.input)
                self.repeats.append(seen.get(key, 0))
                seen[key] = self.repeats[-1] + 1
        return self.repeats[index]

    async def _finish(self, index: int, outcome: _Outcome) -> None:
        example = self.examples[index]
        value, error, task_duration, attempted, meter = outcome
        t = time.perf_counter()
        result: TaskResult | None = None
        if error is None and type(value) is not TaskResult and inspect.isawaitable(value):
            # a "sync" callable that handed back a coroutine
            value, error, extra, _, _ = await self._await_late(value)
            task_duration += extra
        if error is None:
            if isinstance(value, TaskResult):
                result = value
            else:
                error = (
                    f"task returned {type(value).__name__}, expected a TaskResult "
                    "(return TaskResult(output=..., context={...}))"
                )
        scores: dict[str, Score] = {}
        replaced: list[Score] = []
        if result is not None:  # a failed task is not scored: its example fails every scorer
            context = {"input": example.input, "metadata": example.metadata} if self.any_context else {}
            owners: dict[str, int] = {}
            done = await score_all(
                self.scorers, result, example.expected, context, self.config.scorer_timeout_s
            )
            for i, out in enumerate(done):
                self._keep(scores, owners, i, out, replaced)
        outputs = result.context.get("outputs") if result is not None and result.context else None
        trajectory = outputs if isinstance(outputs, list) else None
        expected = example.expected
        finished = self.results[index] = EvalExample(
            index=index,
            input=example.input,
            expected=expected.expected if expected is not None else None,
            expected_context=expected.context if expected is not None else None,
            output=result.output if result is not None else "",
            context=result.context if result is not None else None,
            scores=scores,
            error=error,
            duration=task_duration + (time.perf_counter() - t),
            metadata=example.metadata,
            trajectory=trajectory,
            tool_calls=wire_tool_calls(trajectory),
        )
        finished.replaced_scores.extend(replaced)
        if attempted is not None:
            finished.attempts = attempted.attempts
            finished.cache = attempted.cache_summary
        if meter is not None:  # the task ran here: what its model calls and its context report, priced
            finished.usage = trial_usage(
                explicit_usage(finished.context),
                meter,
                usage_of_messages(outputs),
                scope=attempted.scope if attempted is not None else None,
            )
        self.done += 1
        if self.progress is not None:
            try:
                self.progress(self.done, len(self.examples))
            except Exception:
                logger.warning("progress callback raised; it will not be called again", exc_info=True)
                self.progress = None

    async def _await_late(self, awaitable: Any) -> _Outcome:
        outcome = await await_user(awaitable, self.config.timeout_s)
        return outcome.value, outcome.error, outcome.elapsed, None, None


def _retried_usage(pair: tuple[Outcome, UsageMeter], scope: TrialScope | None) -> dict[str, Any] | None:
    """What a retried attempt's model calls used, priced and charged (its ``attempts`` entry)."""
    return record_usage(trial_usage(None, pair[1], None, scope=scope))


def _run_sync_batch(task: Callable[[Any], Any] | None, examples: list[ExampleData]) -> list[_Outcome]:
    """Worker-thread side: call a sync task on each example (replayed ones are passed through)."""
    outcomes: list[_Outcome] = []
    for example in examples:
        if example.output is not None:
            outcomes.append((example.output, None, 0.0, None, None))
            continue
        if task is None:
            outcomes.append((None, NO_TASK, 0.0, None, None))
            continue
        with bound_meter() as meter:
            called = call_now(task, example.input)
        outcomes.append(_outcome(called, example, meter))
    return outcomes


def _outcome(outcome: Outcome, example: ExampleData, meter: UsageMeter) -> _Outcome:
    """The runner's (value, error, seconds, -, meter) of a task call made by the trial executor."""
    if outcome.fault is not None:
        logger.debug("task raised on example %r", example.input, exc_info=outcome.fault)
    return outcome.value, outcome.error, outcome.elapsed, None, meter


def _inspect(outcome: Outcome) -> tuple[BaseException | None, str | None, float]:
    return outcome.fault, outcome.error, outcome.elapsed
