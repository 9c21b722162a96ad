"""``EvalCaseResult``: the finished outcome of one eval trial, and the pass rule."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_evals.cost.meter import record_usage
from agent_evals.evals.scores import EvalScore
from agent_evals.record.trial import UNCHANGED, Redact, ScoreData, distinct_key, trial_data


def passes(scores: list[EvalScore], error: str | None) -> bool:
    """The pass rule: no error, at least one pass/fail score, and every pass/fail score passed."""
    if error is not None:
        return False
    verdicts = [s.passed for s in scores if s.passed is not None]
    return bool(verdicts) and all(verdicts)


def record_keys(scores: list[EvalScore]) -> list[str]:
    """The key each score is recorded under: its own, or ``key#2``, ``key#3`` for a repeated key.

    An evaluator's score never replaces an earlier one of the same key, so a result can hold two
    ``pass`` scores; the run record keeps both (``pass`` and ``pass#2``).
    """
    taken: set[str] = set()
    keys = []
    for score in scores:
        key = distinct_key(score.key, taken)
        taken.add(key)
        keys.append(key)
    return keys


def graded(scores: list[EvalScore], error: str | None) -> bool:
    """Whether a result counts in pass rates: it errored or holds at least one pass/fail score."""
    return error is not None or any(s.passed is not None for s in scores)


@dataclass(slots=True)
class EvalCaseResult:
    """What one run of an eval produced."""

    input: Any = None
    """The input the eval ran on."""
    output: Any = None
    """The output it recorded (``ctx.output``, or the target's return value)."""
    reference: Any = None
    """The reference, if any."""
    scores: list[EvalScore] = field(default_factory=list)
    """Every score, from the body, assertions and evaluators."""
    error: str | None = None
    """``Type: message`` of the exception that stopped the eval, None when it finished."""
    duration: float = 0.0
    """Seconds spent in the target, the body and the evaluators."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Metadata declared on the eval plus what it stored."""
    usage: dict[str, Any] | None = None
    """Tokens and cost reported by the eval, when any."""
    traceback: str | None = None
    """The error's traceback trimmed to the user's frames, when there is an error."""
    score_sources: dict[str, str] = field(default_factory=dict)
    """Which step produced each score, by its record key (see :func:`record_keys`): ``body``,
    ``evaluator`` or ``auto`` (the automatic pass)."""
    attempts: list[dict[str, Any]] = field(default_factory=list)
    """Earlier attempts retried by ``--retry-errors`` (this result is the final one)."""
    cache: dict[str, Any] | None = None
    """What the response cache did in this trial, when a cache mode was on."""
    models: list[str] = field(default_factory=list)
    """The models the trial's agent used, as far as it told (``record.models.agent_models``)."""

    def add_scores(self, scores: list[EvalScore], source: str) -> None:
        """Append ``scores`` (kept next to any score of the same key) and note where they came from."""
        if not scores:
            return
        taken = set(record_keys(self.scores))
        for score in scores:
            key = distinct_key(score.key, taken)
            taken.add(key)
            self.scores.append(score)
            self.score_sources[key] = source

    @property
    def passed(self) -> bool:
        """True when there is no error, at least one pass/fail score, and all of them passed."""
        return passes(self.scores, self.error)

    @property
    def graded(self) -> bool:
        """False for a numeric-only result, which neither passes nor fails a pass rate."""
        return graded(self.scores, self.error)

    def trial_data(self, redact: Redact = UNCHANGED) -> dict[str, Any]:
        """This result as run-record trial data (``record.trial``), secrets masked with ``redact``."""
        sources = self.score_sources
        scores = {
            key: ScoreData(value=s.value, passed=s.passed, notes=s.notes, source=sources.get(key))
            for key, s in zip(record_keys(self.scores), self.scores, strict=True)
        }
        return trial_data(
            passed=passes(self.scores, self.error),
            error=self.error,
            scores=scores,
            duration_s=self.duration,
            output=self.output,
            usage=None if self.usage is None else record_usage(self.usage),
            graded=graded(self.scores, self.error),
            traceback=self.traceback,
            attempts=self.attempts,
            cache=self.cache,
            redact=redact,
        )

    def score(self, key: str) -> EvalScore | None:
        """The score stored under ``key``, or None."""
        for item in self.scores:
            if item.key == key:
                return item
        return None
