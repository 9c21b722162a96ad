"""Run one trial of one eval case: target, body, assertions, the automatic pass, evaluators."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from agent_evals.core.executor import Attempted, Deadline, call_now, run_attempts, run_user
from agent_evals.core.retry import NO_RETRIES, RetryPolicy
from agent_evals.core.tracing import fill_context, in_traced_trial
from agent_evals.core.trials import drive_sync
from agent_evals.cost.http_usage import metering
from agent_evals.cost.meter import record_usage, trial_usage, usage_of_messages
from agent_evals.evals.context import EvalContext, normalize_usage
from agent_evals.evals.result import EvalCaseResult, record_keys
from agent_evals.evals.scores import EvalScore, merge_scores, parse_scores
from agent_evals.evals.spec import EvalCaseSpec
from agent_evals.evals.tracebacks import assertion_notes, describe, user_traceback
from agent_evals.record.models import agent_models

T = TypeVar("T")

EVAL_TIMEOUT_COVERS = "the body and its evaluators"
"""What an eval's ``timeout`` bounds: the whole trial (issue 30), named in its expiry error."""

EVALUATOR_DEFAULT_KEY = "pass"
"""Key given to an evaluator's score that has none (and to a bare True/False it returns)."""


async def _awaited(value: Awaitable[T]) -> T:
    return await value


async def _call(fn: Callable[..., Any], args: tuple[Any, ...], sync_mode: bool) -> Any:
    """Call a sync or async function; in sync mode (a worker thread) awaitables get their own loop."""
    value = fn(*args)
    if value is not None and inspect.isawaitable(value):  # most bodies return None
        value = asyncio.run(_awaited(value)) if sync_mode else await value
    return value


def _take_task_result(ctx: EvalContext, value: Any) -> Any:
    """A TaskResult output becomes its text; its ``context['usage']`` becomes the trial's usage."""
    # A TaskResult can only exist once its module is imported; checking sys.modules first keeps
    # the run path from importing (and building the models of) core.types for plain outputs.
    types_module = sys.modules.get("agent_evals.core.types")
    if types_module is not None and isinstance(value, types_module.TaskResult):
        usage = (value.context or {}).get("usage")
        if value.context:
            ctx.models |= agent_models(value.context)
        if usage is not None:
            ctx.usage = {**(ctx.usage or {}), **normalize_usage(usage, where="TaskResult.context['usage']")}
        ctx.messages_usage = usage_of_messages((value.context or {}).get("outputs")) or ctx.messages_usage
        return value.output
    if isinstance(value, (list, tuple, dict)):  # LangChain/LangGraph messages, or a state holding them
        ctx.messages_usage = usage_of_messages(value) or ctx.messages_usage
    return value


async def _body(spec: EvalCaseSpec, ctx: EvalContext, sync_mode: bool) -> None:
    """Target then body (the trial executor runs this and captures what it raises)."""
    if spec.target is not None:
        arg = ctx if spec.target_takes_context else ctx.input
        out = await _call(spec.target, (arg,), sync_mode)
        if out is not None:
            ctx.output = out
        ctx.output = _take_task_result(ctx, ctx.output)
    returned = await _call(spec.func, (ctx,) if spec.context_param else (), sync_mode)
    ctx.output = _take_task_result(ctx, ctx.output)
    if returned is not None:
        merge_scores(
            ctx.scores,
            parse_scores(returned, default_key=ctx.default_score_key, where=f"{spec.name} returned"),
        )


def _fill_from_spans(ctx: EvalContext, *, metered: bool) -> None:
    """A traced trial: the usage and models its spans tell, where the body or its target reported none."""
    filled = fill_context({"usage": ctx.usage} if ctx.usage else None, metered=metered)
    if not filled:
        return
    if ctx.usage is None and "usage" in filled:
        ctx.usage = normalize_usage(filled["usage"], where="the trial's spans")
    ctx.models |= agent_models(filled)


def _is_async(fn: Callable[..., Any]) -> bool:
    """Whether calling ``fn`` gives a coroutine (an ``async def`` function or ``__call__``)."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__)


def evaluator_name(fn: Callable[..., Any]) -> str:
    """Display name of an evaluator."""
    return str(getattr(fn, "__name__", None) or type(fn).__name__)


async def run_evaluators(
    result: EvalCaseResult,
    evaluators: tuple[Callable[..., Any], ...],
    *,
    sync_mode: bool = False,
    default_score_key: str = EVALUATOR_DEFAULT_KEY,
    deadline: Deadline | None = None,
) -> None:
    """Apply evaluators in order to a finished result; one that raises makes the result an error.

    As in ezvals 0.2.0, a result whose body ended without any score first gets the automatic pass
    under ``default_score_key``, so the evaluators see it and their scores sit beside it. An
    evaluator's scores are added next to the ones already there, never in their place: a keyless
    ``pass`` after a failed assertion, a failed stored score or an earlier evaluator's failure
    leaves the result failing. An evaluator that raises (or overruns) leaves the body's own scores
    only, without the automatic pass or earlier evaluators' scores (as ezvals). ``deadline``:
    the trial's limit, which the evaluators share with the body (what is left of it bounds each one;
    in sync mode the caller bounds the whole trial and reads ``deadline.part`` when it overran).
    """
    body_scores = len(result.scores)
    add_automatic_pass(result, default_score_key)
    for fn in evaluators:
        name = evaluator_name(fn)
        if deadline is not None:
            deadline.part = f"evaluator {name!r}"
        # the trial executor calls it (in sync mode a returned awaitable runs on a loop of its own)
        if sync_mode:
            called = call_now(fn, result, run_awaitable=True)
        else:
            left = deadline.left() if deadline is not None else None
            # under a limit a sync evaluator runs in a daemon thread, so one that never returns is let go
            thread = left is not None and not _is_async(fn)
            called = await run_user(fn, result, timeout=left, thread=thread)
            if called.timed_out and deadline is not None:
                result.error = deadline.expired(f"evaluator {name!r}")
                _keep_body_scores(result, body_scores)
                return
        if called.fault is None and called.value is None:
            continue
        if called.fault is None:  # what it returned is its own: a value that is no score is its fault
            where = f"evaluator {name} returned"
            called = call_now(
                lambda value=called.value, where=where: parse_scores(
                    value, default_key=EVALUATOR_DEFAULT_KEY, where=where, key_required=False
                )
            )
        if called.fault is not None:
            result.error = f"evaluator {name} raised {describe(called.fault)}"
            result.traceback = user_traceback(called.fault)
            _keep_body_scores(result, body_scores)
            return
        result.add_scores(called.value, "evaluator")


def _keep_body_scores(result: EvalCaseResult, count: int) -> None:
    """Drop every score after the body's first ``count`` (the automatic pass, the evaluators')."""
    if len(result.scores) > count:
        del result.scores[count:]
        keys = record_keys(result.scores)
        result.score_sources = {key: result.score_sources[key] for key in keys}


def add_automatic_pass(result: EvalCaseResult, key: str) -> None:
    """A result whose body ended without an error and without any score passes under ``key``
    (before any evaluator runs, as in ezvals 0.2.0)."""
    if result.error is None and not result.scores:
        result.add_scores([EvalScore(key=key, passed=True)], "auto")


Attempt = tuple[EvalCaseResult, "BaseException | None"]
"""One attempt of a trial: its result and the fault of its target or body (for the retry decision)."""


async def run_trial(
    spec: EvalCaseSpec,
    *,
    timeout: float | None = None,
    sync_mode: bool = False,
    output: Any = None,
    replay: bool = False,
    trial: int = 0,
    retry: RetryPolicy = NO_RETRIES,
) -> EvalCaseResult:
    """Run trial ``trial`` of ``spec`` and return its result; user exceptions never escape.

    ``timeout`` (else the spec's) bounds the target, the body and the evaluators of each attempt.
    ``sync_mode`` is for a worker thread without an event loop. With ``replay=True`` the target is skipped and
    ``output`` is used (how ``regrade`` re-scores a stored output). ``retry`` runs the trial again
    after an infrastructure error (the trial executor's rule); the final attempt is the result.
    """
    done = await run_attempts(
        lambda: run_attempt(spec, timeout=timeout, sync_mode=sync_mode, output=output, replay=replay),
        inspect_attempt,
        retry,
        usage_of=attempt_usage,
        trial=trial,
        blocking=sync_mode,
        traced=spec.traced,
    )
    return final_result(done)


def attempt_usage(attempt: Attempt, _scope: object) -> dict[str, Any] | None:
    """A retried attempt's usage for its ``attempts`` entry (already charged: see :func:`run_attempt`)."""
    return record_usage(attempt[0].usage)


def inspect_attempt(attempt: Attempt) -> tuple[BaseException | None, str | None, float]:
    """The trial executor's view of an attempt: its fault, error text and seconds."""
    result, fault = attempt
    return fault, result.error, result.duration


def final_result(done: Attempted[Attempt]) -> EvalCaseResult:
    """The final attempt's result, with the earlier attempts and the cache's part; a replay miss errors it."""
    result = done.value[0]
    result.attempts = done.attempts
    result.cache = done.cache_summary
    miss = done.cache_error
    if miss is not None:
        result.error, result.traceback = miss, None
    return result


async def run_attempt(
    spec: EvalCaseSpec,
    *,
    timeout: float | None = None,
    sync_mode: bool = False,
    output: Any = None,
    replay: bool = False,
    deadline: Deadline | None = None,
) -> Attempt:
    """One attempt of a trial of ``spec`` (see :func:`run_trial`): the limit bounds the body and the
    evaluators together. ``deadline``: the caller's (a sync trial run whole in a thread under it)."""
    started = time.perf_counter()
    ctx = EvalContext(
        input=spec.input,
        reference=spec.reference,
        metadata=spec.metadata,
        default_score_key=spec.default_score_key,
        output=output,
    )
    if deadline is not None:  # a sync trial run whole in a thread: its caller keeps what it stored
        deadline.progress = ctx
    result = EvalCaseResult(input=spec.input, reference=spec.reference)
    run_spec = dataclasses.replace(spec, target=None) if replay else spec
    limit = timeout if timeout is not None else spec.timeout
    with metering() as meter:  # the model calls of the target and the body (not the evaluators')
        if sync_mode:  # in a worker thread: the scheduler bounds the wait for the whole trial
            outcome = call_now(lambda: drive_sync(_body(run_spec, ctx, True)))
        else:  # the trial executor: our limit, and a late return (it blocked the loop) is errored
            outcome = await run_user(_body, run_spec, ctx, False, timeout=limit)
    if in_traced_trial():
        _fill_from_spans(ctx, metered=meter.calls > 0)
    failure = outcome.fault
    if outcome.timed_out:
        result.error = outcome.error
    if isinstance(failure, AssertionError) and spec.context_param is not None:
        notes = assertion_notes(failure)
        merge_scores(ctx.scores, [EvalScore(key=spec.default_score_key, passed=False, notes=notes)])
    elif isinstance(failure, AssertionError):
        result.error = f"AssertionError: {assertion_notes(failure)}"
        result.traceback = user_traceback(failure)
    elif failure is not None:
        result.error = describe(failure)
        result.traceback = user_traceback(failure)
    result.output = ctx.output
    result.input = ctx.input
    result.reference = ctx.reference
    result.metadata = ctx.metadata
    result.usage = trial_usage(ctx.usage, meter, ctx.messages_usage)
    models = ctx.models | agent_models(None, result.usage) if result.usage else ctx.models
    if ctx.usage and "model" in ctx.usage:  # reported with costs, it is not in the usage's breakdown
        models = models | agent_models(None, ctx.usage)
    if models:
        result.models = sorted(models)
    result.add_scores(ctx.scores, "body")
    if result.error is None and spec.evaluators:
        await run_evaluators(
            result,
            spec.evaluators,
            sync_mode=sync_mode,
            default_score_key=spec.default_score_key,
            deadline=deadline or Deadline(limit, EVAL_TIMEOUT_COVERS, started),
        )
    else:
        add_automatic_pass(result, spec.default_score_key)
    result.duration = time.perf_counter() - started
    return result, failure if not isinstance(failure, AssertionError) else None
