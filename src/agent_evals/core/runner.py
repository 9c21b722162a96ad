"""Run a task over a dataset and score every example: ``run_eval_async`` and its sync wrapper ``run_eval``."""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from agent_evals.calls.scope import active_cache
from agent_evals.core.aggregate import aggregate
from agent_evals.core.arguments import (
    check_config,
    check_dataset,
    check_platform,
    check_task,
    prepare_scorers,
)
from agent_evals.core.executor import Attempted, Deadline, Outcome, await_user
from agent_evals.core.gc_tuning import relaxed_gc
from agent_evals.core.retry import RetryPolicy
from agent_evals.core.run_sync import run_sync
from agent_evals.core.scorer import Expiry, PreparedScorer, is_async_callable, score_all
from agent_evals.core.trials import (
    Called,
    TrialBody,
    call_metered,
    call_metered_now,
    called_usage,
    drive,
    inspect_called,
)
from agent_evals.core.types import (
    EvalConfig,
    EvalExample,
    EvalResult,
    ExampleData,
    Score,
    TaskResult,
    wire_tool_calls,
)
from agent_evals.cost.meter import task_usage
from agent_evals.record.models import judge_models

logger = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
RUN_EVAL_TIMEOUT_COVERS = "the task and its scorers"
"""What ``EvalConfig.timeout_s`` bounds: the whole example (issue 30), named in its expiry error."""

NO_TASK = (
    "no task and no stored output: either pass task=... or give this example a pre-populated "
    "output=TaskResult(...) to replay"
)


async def run_eval_async(
    task: Callable[[Any], Any] | None = None,
    dataset: Iterable[ExampleData] | None = None,
    scorers: Sequence[Any] | None = None,
    platform: Any | None = None,
    config: EvalConfig | Mapping[str, Any] | None = None,
    *,
    progress: Progress | None = None,
    default_platform: Callable[[], Any] | None = None,
) -> EvalResult:
    """Run ``task`` on every example of ``dataset``, score each result, and return an EvalResult.

    ``task(input)`` may be sync (run in a worker thread so it never blocks the event loop) or
    async, and returns a ``TaskResult``; examples that carry a stored ``output`` are replayed
    without calling it (``task`` may then be None; an example with neither is an errored
    example). ``scorers`` are callables ``(result, expected=None, **context)``; one example's
    scorers run concurrently (sync ones in worker threads). Results are keyed by the
    ``Score.name`` each returns (the seed's rule). When two scorers return the same name the last
    one is kept, and a ``UserWarning`` names both. ``platform`` records the finished run:
    ``LocalConfig()`` or any object with ``async record(result)``; None and ``"local"`` mean
    ``default_platform()`` (``agent_evals.run_eval`` passes ``LocalConfig``, so there they record
    to local files; called from this module without one, None records nowhere).
    ``progress(done, total)`` is called after each example.

    A task that raises or times out marks its example with ``error``, output ``""`` and no
    scores, and it counts as failed for every scorer; a scorer that raises or returns a non-Score
    yields an errored, failing Score. Wrong arguments raise ValueError/TypeError before anything runs.
    """
    cfg = check_config(config)
    examples = check_dataset(dataset)
    prepared = prepare_scorers(scorers)
    check_task(task, examples)
    recorder = check_platform(platform, default_platform)
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
        result.judge_models.extend(sorted(judge_models(p.fn for p in prepared)))
    if recorder is not None:
        await _record(recorder, result)
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
    default_platform: Callable[[], Any] | None = None,
) -> EvalResult:
    """Blocking form of :func:`run_eval_async` for plain scripts.

    Raises RuntimeError when called while an event loop is running (inside ``async def``,
    Jupyter): there, ``await run_eval_async(...)`` instead.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return run_sync(
            run_eval_async(
                task, dataset, scorers, platform, config, progress=progress, default_platform=default_platform
            )
        )
    raise RuntimeError(
        "run_eval() cannot be used while an event loop is running (inside async code or Jupyter); "
        "use `await run_eval_async(...)` there instead"
    )


class _Run:
    """One execution: the trial driver runs the task on every example; ``_finish`` scores it."""

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
        self.done = 0
        self.task_is_async = task is not None and is_async_callable(task)
        self.retry = RetryPolicy(config.retry_errors)
        self.any_context = any(s.accepts_context for s in scorers)
        self.returned_names: dict[int, str] = {}  # scorer index -> the Score.name it returned
        self.collisions: dict[tuple[str, int, int], bool] = {}  # (name, first, second) -> a failure hidden
        self.repeats: list[int] | None = None  # per example: how many earlier ones have its input

    async def execute(self) -> list[EvalExample]:
        sync_task = self.task is not None and not self.task_is_async
        # a sync task without a time limit runs whole in the driver's worker threads (batched)
        threaded = sync_task and self.config.timeout_s is None
        body: TrialBody[Called] = TrialBody(
            attempt=self._attempt,
            inspect=inspect_called,
            usage_of=called_usage,
            finish=self._finish,
            attempt_in_thread=self._attempt_now if threaded else None,
            threaded=_always if threaded else _never,
            overlap=True,  # a slow scorer never delays the next example's model call
            number=self._repeat_of,
        )
        await drive(len(self.examples), body, concurrency=self.config.max_concurrency, retry=self.retry)
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

    def _not_called(self, index: int) -> Called | None:
        """The trial of an example whose task is not called: a stored output, or no task (errored)."""
        example = self.examples[index]
        if example.output is not None:
            return Called(Outcome(value=example.output))
        if self.task is None:
            return Called(Outcome(), preset_error=NO_TASK)
        return None

    async def _attempt(self, index: int) -> Called:
        """One call of the task from the loop: async on it, sync in a daemon thread under the limit."""
        skipped = self._not_called(index)
        if skipped is not None:
            return skipped
        assert self.task is not None
        # a sync task's thread cannot be interrupted: past the limit it finishes in the background
        called = await call_metered(
            self.task,
            self.examples[index].input,
            timeout=self.config.timeout_s,
            thread=not self.task_is_async,
        )
        _log_fault(called, self.examples[index])
        return called

    def _attempt_now(self, index: int) -> Called:
        """One call of a sync task in a worker thread (no time limit)."""
        skipped = self._not_called(index)
        if skipped is not None:
            return skipped
        assert self.task is not None
        called = call_metered_now(self.task, self.examples[index].input)
        _log_fault(called, self.examples[index])
        return called

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

    async def _finish(self, index: int, done: Attempted[Called]) -> None:
        example = self.examples[index]
        called = done.value
        ran = called.meter is not None  # the task ran here (not a stored output, not a missing task)
        value, task_duration = called.outcome.value, called.outcome.elapsed
        error = (done.cache_error or called.error) if ran else called.error
        t = time.perf_counter()
        result: TaskResult | None = None
        if error is None and type(value) is not TaskResult and inspect.isawaitable(value):
            # a "sync" callable that handed back a coroutine
            late = await await_user(value, self.config.timeout_s)
            value, error = late.value, late.error
            task_duration += late.elapsed
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
            # timeout_s bounds the whole trial: the scorers get what the task left of it
            deadline = Deadline(self.config.timeout_s, RUN_EVAL_TIMEOUT_COVERS, t - task_duration)
            expired: list[str] = []
            limit, expiry = _scorer_limit(deadline, self.config.scorer_timeout_s, expired)
            scored = await score_all(self.scorers, result, example.expected, context, limit, expiry)
            error = error or (expired[0] if expired else None)  # past the example's limit: errored
            for i, out in enumerate(scored):
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
        if ran:  # what its model calls and its context report, priced; earlier attempts; the cache's part
            finished.attempts = done.attempts
            finished.cache = done.cache_summary
            finished.usage = task_usage(finished.context, called.meter, scope=done.scope)
        self._advance()

    def _advance(self) -> None:
        self.done += 1
        if self.progress is not None:
            try:
                self.progress(self.done, len(self.examples))
            except Exception:
                logger.warning("progress callback raised; it will not be called again", exc_info=True)
                self.progress = None


def _scorer_limit(
    deadline: Deadline, own: float | None, expired: list[str]
) -> tuple[float | None, Expiry | None]:
    """Each scorer's limit: its own (``scorer_timeout_s``) or what the example's ``timeout_s`` left,
    whichever is shorter; past the example's limit, the error names the scorer (kept in ``expired``)."""
    left = deadline.left()
    if left is None or (own is not None and own <= left):
        return own, None

    def expiry(part: str) -> str:
        text = deadline.expired(part)
        expired.append(text)
        return text

    return left, expiry


def _always(_index: int) -> bool:
    return True


def _never(_index: int) -> bool:
    return False


def _log_fault(called: Called, example: ExampleData) -> None:
    if called.outcome.fault is not None:
        logger.debug("task raised on example %r", example.input, exc_info=called.outcome.fault)
