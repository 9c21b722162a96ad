"""One benchmark trial: what the agent is handed, and the trial's outcome once its scorers have spoken."""

from __future__ import annotations

import copy
import logging
import time
from dataclasses import dataclass
from typing import Any

from agent_evals.benchmark.agent import AgentHandle
from agent_evals.benchmark.checkers import ScenarioPlan
from agent_evals.benchmark.result import CaseOutcome, TrialOutcome
from agent_evals.benchmark.schema import Scenario
from agent_evals.core.executor import Attempted, Deadline
from agent_evals.core.scorer import PreparedScorer, score_all
from agent_evals.core.trials import Called
from agent_evals.core.types import Score
from agent_evals.cost.meter import task_usage, trial_usage
from agent_evals.record.models import agent_models
from agent_evals.record.trial import distinct_key

logger = logging.getLogger(__name__)

BENCHMARK_TIMEOUT_COVERS = "the agent, its checkers and its scorers"
"""What a benchmark's ``timeout_s`` bounds: the whole trial (issue 30), named in its expiry error."""


@dataclass
class Job:
    """One scenario of the run: its case (filled in trial by trial), what it asks and how it is checked."""

    case: CaseOutcome
    scenario: Scenario
    plan: ScenarioPlan
    scorers: list[PreparedScorer]

    @property
    def inline(self) -> bool:
        """Whether every scorer is inline (the native checks): a trial is then scored without waiting."""
        return all(scorer.inline for scorer in self.scorers)


def agent_context(handle: AgentHandle, job: Job, trial: int) -> dict[str, Any]:
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


def finished_now(job: Job, trial: int, ran: Attempted[Called]) -> TrialOutcome | None:
    """The trial's outcome when it needs no waiting: errored, or scored by inline scorers only (the
    native checks); None when a scorer must be awaited (:func:`scored_later`)."""
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
    if not job.inline:
        return None
    task_result = outcome.value
    context = {"input": job.scenario.prompt}
    return _scored(job, ran, start, [s.now(task_result, job.plan.expected, context) for s in job.scorers])


async def scored_later(job: Job, limit: float | None, ran: Attempted[Called]) -> TrialOutcome:
    """The outcome of a trial whose agent returned and whose scorers are awaited (judges, sync
    scorers in threads of their own), all of them under what is left of the trial's limit."""
    start = time.perf_counter() - ran.value.outcome.elapsed
    # the one scoring loop, under what is left of the trial's limit (it covers the agent, the
    # checkers and the scorers); a stuck or faulty scorer is errored, naming itself
    deadline = Deadline(limit or None, BENCHMARK_TIMEOUT_COVERS, start)
    scored = await score_all(
        job.scorers,
        ran.value.outcome.value,
        job.plan.expected,
        {"input": job.scenario.prompt},
        deadline.left(),
        deadline.expired if deadline.limit is not None else None,
    )
    return _scored(job, ran, start, scored)


def _scored(job: Job, ran: Attempted[Called], start: float, scored: list[Score]) -> TrialOutcome:
    """A trial whose agent returned, with its scorers' Scores."""
    task_result, meter = ran.value.outcome.value, ran.value.meter
    scores: dict[str, Score] = {}
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
