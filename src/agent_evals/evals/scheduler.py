"""Schedule eval trials through the one trial driver (``core.trials``).

Async evals run on the event loop; sync evals under a time limit in the driver's reused daemon
workers, one call each under the loop's timer (a stuck worker is replaced); sync evals without one
whole in the driver's worker threads, several per hand-off while they are quick
(10,000 trivial evals stay well under a second), so user code never runs on the loop thread and a
sync eval may call ``asyncio.run`` itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agent_evals.core.executor import Attempted, Deadline, Outcome, run_user
from agent_evals.core.retry import NO_RETRIES, RetryPolicy
from agent_evals.core.trials import TrialBody, drive, drive_sync
from agent_evals.evals.context import EvalContext
from agent_evals.evals.execution import (
    EVAL_TIMEOUT_COVERS,
    Attempt,
    attempt_usage,
    final_result,
    inspect_attempt,
    run_attempt,
)
from agent_evals.evals.result import EvalCaseResult
from agent_evals.evals.spec import EvalCaseSpec

OnResult = Callable[[int, int, EvalCaseResult], None]
"""Called as ``on_result(spec_index, trial_index, result)``; may be called from a worker thread."""


@dataclass(slots=True)  # not frozen: a run makes one per trial, and frozen ones set fields the slow way
class Job:
    """One trial of one case."""

    spec_index: int
    """Position of the case in the spec list."""
    trial: int
    """0-based trial number."""


def _async_flags(specs: Sequence[EvalCaseSpec]) -> list[bool]:
    """Each spec's ``is_async``, worked out once per eval (its function, target and evaluators), not
    once per case."""
    known: dict[tuple[int, int, int], bool] = {}
    flags = []
    for spec in specs:  # the specs hold the parts, so their ids stay theirs for the loop
        key = (id(spec.func), id(spec.target), id(spec.evaluators))
        flag = known.get(key)
        if flag is None:
            flag = known[key] = spec.is_async
        flags.append(flag)
    return flags


def _limit(spec: EvalCaseSpec, timeout: float | None) -> float | None:
    return timeout if timeout is not None else spec.timeout


def _sync_attempt(spec: EvalCaseSpec, deadline: Deadline | None = None) -> Attempt:
    return drive_sync(run_attempt(spec, sync_mode=True, deadline=deadline))


def _timed_out(spec: EvalCaseSpec, outcome: Outcome, deadline: Deadline | None = None) -> Attempt:
    """A sync trial's attempt as its result: our limit stopped the wait for its thread (the error
    names the part that was running: the body, or which evaluator; the body's stored scores are
    kept), or it returned."""
    if outcome.fault is not None:  # run_attempt absorbs user faults: this is a bug of ours
        raise outcome.fault
    if outcome.timed_out:
        result = EvalCaseResult(
            input=spec.input,
            reference=spec.reference,
            metadata=dict(spec.metadata),
            error=outcome.error
            if deadline is None or deadline.part == "the body"
            else deadline.expired(deadline.part),
            duration=outcome.elapsed,
        )
        ctx = deadline.progress if deadline is not None else None
        if isinstance(ctx, EvalContext):  # the scores the body stored before the limit (as ezvals)
            result.add_scores(list(ctx.scores), "body")
        return result, None
    attempt: Attempt = outcome.value
    return attempt


async def run_jobs(
    specs: Sequence[EvalCaseSpec],
    jobs: Sequence[Job],
    *,
    on_result: OnResult,
    concurrency: int = 1,
    timeout: float | None = None,
    retry: RetryPolicy = NO_RETRIES,
) -> None:
    """Run every job with at most ``concurrency`` trials in flight; results go to ``on_result``.

    ``timeout`` overrides the per-eval timeout (it bounds the body and the evaluators together). A
    sync trial with a limit runs in a daemon worker thread; one that overruns is reported as timed out,
    naming the part still running (its thread cannot be interrupted). ``retry``
    re-runs a trial that errored with an infrastructure error (each attempt under the limit).
    A trial the run's budget does not let start is skipped (``on_result`` is not called for it).
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    is_async = _async_flags(specs)

    async def attempt(index: int) -> Attempt:
        spec = specs[jobs[index].spec_index]
        limit = _limit(spec, timeout)
        if is_async[jobs[index].spec_index]:
            return await run_attempt(spec, timeout=timeout)
        # the trial executor, in a daemon worker of the run's pool: one stuck past the limit is
        # written off (another worker takes the next trial) and never keeps the process alive
        deadline = Deadline(limit, EVAL_TIMEOUT_COVERS)  # the body and the evaluators, in one thread
        outcome = await run_user(_sync_attempt, spec, deadline, timeout=limit, thread=True)
        return _timed_out(spec, outcome, deadline)

    def in_thread(index: int) -> Attempt:
        return _sync_attempt(specs[jobs[index].spec_index])

    def threaded(index: int) -> bool:
        spec_index = jobs[index].spec_index
        return not is_async[spec_index] and _limit(specs[spec_index], timeout) is None

    def finish(index: int, done: Attempted[Attempt]) -> None:
        job = jobs[index]
        on_result(job.spec_index, job.trial, final_result(done))

    body: TrialBody[Attempt] = TrialBody(
        attempt=attempt,
        inspect=inspect_attempt,
        usage_of=attempt_usage,
        finish=finish,
        attempt_in_thread=in_thread,
        finish_in_thread=finish,  # each sync trial is reported as it ends (a streamed record keeps it)
        threaded=threaded,
        number=lambda index: jobs[index].trial,
        traced=lambda index: specs[jobs[index].spec_index].traced,
    )
    await drive(len(jobs), body, concurrency=concurrency, retry=retry)
