"""The scorer protocol: naming a scorer, and calling one safely (sync or async, kwargs filtered)."""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from agent_evals.core.faults import absorbed, describe_fault
from agent_evals.core.types import ExpectedResult, Score, TaskResult

logger = logging.getLogger(__name__)


@runtime_checkable
class Scorer(Protocol):
    """Anything callable as ``scorer(result, expected=None, **context)`` returning a Score.

    Plain functions, ``async def`` functions and class instances with ``__call__`` all fit.
    Context keyword arguments (``input``, ``metadata``) are only passed to scorers that
    accept ``**kwargs``.
    """

    def __call__(
        self, result: TaskResult, expected: ExpectedResult | None = None, **context: Any
    ) -> Score | Awaitable[Score]:
        """Score one example."""
        ...


Expiry = Callable[[str], str]
"""The error of a part (``"scorer 'x'"``) still running when its trial's limit passed."""


def scorer_name(obj: Any) -> str:
    """The name a scorer's results are keyed by, fixed before any example runs.

    Its ``name`` attribute when that is a non-empty string, else its ``__name__`` (functions,
    methods, classes), else the wrapped function's name for ``functools.partial``, else its
    class name. ``ValidJSON()`` is therefore "ValidJSON" and ``def my_check(...)`` is "my_check".
    """
    name = getattr(obj, "name", None)
    if isinstance(name, str) and name:
        return name
    dunder = getattr(obj, "__name__", None)
    if isinstance(dunder, str) and dunder:
        return dunder
    if isinstance(obj, functools.partial):
        return scorer_name(obj.func)
    return type(obj).__name__


def _accepts_var_kwargs(fn: Any) -> bool:
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # some builtins and C callables have no signature
        return False
    return any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values())


@functools.lru_cache(maxsize=256)
def _call_convention(call: Callable[..., Any]) -> tuple[bool, bool]:
    """(is async, takes **kwargs) of the instances of a class whose ``__call__`` is ``call``, worked out once."""
    return inspect.iscoroutinefunction(call), _accepts_var_kwargs(call)


def _convention(fn: Any) -> tuple[bool, bool]:
    """(is async, takes **kwargs) of a scorer.

    An instance of a class with ``__call__`` behaves as its class does, so that is inspected once
    per class (a benchmark builds one scorer instance per scenario); anything else each time.
    """
    call = getattr(type(fn), "__call__", None)  # noqa: B004 - the class's own __call__
    if (
        inspect.isfunction(call)
        and not isinstance(fn, (type, functools.partial))
        and not inspect.isroutine(fn)
        and getattr(fn, "__wrapped__", None) is None
        and getattr(fn, "__signature__", None) is None
    ):
        return _call_convention(call)
    return is_async_callable(fn), _accepts_var_kwargs(fn)


def is_async_callable(fn: Any) -> bool:
    """True when calling ``fn`` gives an awaitable: ``async def``, partials of one, async ``__call__``."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(type(fn), "__call__", None)  # noqa: B004 - a class instance with async __call__
    return not inspect.isfunction(fn) and not inspect.ismethod(fn) and inspect.iscoroutinefunction(call)


@dataclass(frozen=True)
class PreparedScorer:
    """A scorer with its name and calling convention worked out once, before the run."""

    name: str
    """The key its scores are stored under."""
    fn: Any
    """The callable itself."""
    accepts_context: bool
    """Whether it takes ``**kwargs`` (only then are context keywords passed)."""
    is_async: bool = False
    """Whether calling it gives an awaitable (then it runs on the event loop)."""
    inline: bool = False
    """A sync scorer that declares itself quick (``runs_inline = True``): called where the trial is
    finished (on the loop, or in the worker thread of a trial without a limit) and never waited for.

    Every other sync scorer runs in a worker thread, so a slow one never stalls the event loop.
    """

    @classmethod
    def of(cls, scorer: Any, *, name: str | None = None) -> PreparedScorer:
        """Inspect ``scorer`` once; raise TypeError when it is not callable."""
        if not callable(scorer):
            raise TypeError(
                f"a scorer must be callable as scorer(result, expected=None, **context), "
                f"got {type(scorer).__name__}"
            )
        is_async, accepts_context = _convention(scorer)
        return cls(
            name=name if name is not None else scorer_name(scorer),
            fn=scorer,
            accepts_context=accepts_context,
            is_async=is_async,
            inline=not is_async and getattr(scorer, "runs_inline", False) is True,
        )

    def start(
        self, result: TaskResult, expected: ExpectedResult | None, context: Mapping[str, Any]
    ) -> Score | Awaitable[Any]:
        """Call the scorer: a finished Score for sync scorers, else the awaitable to finish.

        Pass an awaitable result to :meth:`finish`. Exceptions become error Scores here.
        """
        try:
            out = self.fn(result, expected, **context) if self.accepts_context else self.fn(result, expected)
        except BaseException as exc:
            if not absorbed(exc):
                raise
            return self._raised(exc)
        if type(out) is not Score and inspect.isawaitable(out):
            return out
        return self.check(out)

    def now(self, result: TaskResult, expected: ExpectedResult | None, context: Mapping[str, Any]) -> Score:
        """An inline scorer's Score, called here and now: it is sync and returns its Score at once.

        One that hands back an awaitable anyway breaks that promise: its Score is an error naming it
        (the awaitable is closed unawaited), so a trial scored in a worker thread never has to wait.
        """
        out = self.start(result, expected, context)
        if isinstance(out, Score):
            return out
        close = getattr(out, "close", None)
        if callable(close):
            close()  # a coroutine never awaited: closed, so Python does not warn about it
        return error_score(
            self.name,
            f"scorer {self.name!r} declares runs_inline = True but returned {type(out).__name__}; an inline "
            "scorer is sync and returns its Score (drop runs_inline to have its result awaited)",
        )

    async def score(
        self,
        result: TaskResult,
        expected: ExpectedResult | None,
        context: Mapping[str, Any],
        timeout_s: float | None = None,
        expiry: Expiry | None = None,
    ) -> Score:
        """Call the scorer through the one trial executor and always come back with a Score keyed by
        ``self.name``, at most ``timeout_s`` seconds later.

        For a scorer that is not inline (those are scored by :meth:`now`): an async one is called on
        the loop (one that blocks the loop past the limit is errored, never passed); a sync one runs
        in a daemon thread of its own, so one stuck past the limit holds only that thread and never
        keeps the process alive. An exception, a timeout or a return value that is not a Score
        becomes a Score with ``error`` set, value 0 and ``passed`` False. ``expiry(part)``: the error
        when the limit passes (a trial's shared limit names its part that overran), else the
        scorer's own timeout text.
        """
        from agent_evals.core.executor import run_user

        outcome = await run_user(
            self.start,
            result,
            expected,
            context,
            timeout=timeout_s,
            thread=not self.is_async,
        )
        if outcome.late and outcome.limit is not None:
            why = "an async scorer that blocks the event loop cannot be stopped at the limit"
            if expiry is not None:  # the trial's limit: named as such, with the time it took
                text = f"{expiry(f'scorer {self.name!r}')} (it returned after {outcome.elapsed:.1f}s: {why})"
                return error_score(self.name, text)
            return error_score(
                self.name,
                f"scorer {self.name!r} timed out after {outcome.limit:g}s (it returned after "
                f"{outcome.elapsed:.1f}s: {why})",
            )
        if outcome.timed_out and expiry is not None:
            return error_score(self.name, expiry(f"scorer {self.name!r}"))
        if outcome.timed_out:
            return error_score(self.name, f"scorer {self.name!r} {outcome.error}")
        if outcome.fault is not None:
            return self._raised(outcome.fault)
        return self.check(outcome.value)

    def check(self, out: Any) -> Score:
        """Turn a scorer's return value into the Score to store.

        Results are keyed by the ``name`` of the Score the scorer returns (the seed's rule), so a
        factory closure or two instances of one class are told apart by what they return. A
        Score without a name, and the error Score of a scorer that failed, take ``self.name``.
        """
        if not isinstance(out, Score):
            return error_score(
                self.name,
                f"scorer {self.name!r} returned {type(out).__name__}, expected a Score "
                "(agent_evals.core.types.Score)",
            )
        score: Score = out
        if not score.name or (score.error is not None and score.passed):
            # an errored score never passes
            score = score.model_copy(
                update={"name": score.name or self.name, "passed": score.passed and score.error is None}
            )
        return score

    def _raised(self, exc: BaseException) -> Score:
        logger.debug("scorer %r raised", self.name, exc_info=True)
        return error_score(self.name, f"scorer {self.name!r} raised {describe_fault(exc)}")


def error_score(name: str, message: str) -> Score:
    """A failing Score that records why scoring could not happen (also under ``metadata["error"]``)."""
    return Score(
        name=name,
        value=0.0,
        passed=False,
        error=message,
        metadata={"error": message},
        reasoning=f"Evaluator failed with error: {message}",
    )


async def score_all(
    scorers: Sequence[PreparedScorer],
    result: TaskResult,
    expected: ExpectedResult | None,
    context: Mapping[str, Any],
    timeout_s: float | None = None,
    expiry: Expiry | None = None,
) -> list[Score]:
    """Every scorer's Score for one result, in scorer order; the scorers run concurrently.

    ``timeout_s`` bounds each scorer; ``expiry(part)`` gives the error of one still running then
    (a trial's shared limit: see ``core.executor.Deadline``).

    Quick inline scorers are scored first, here and now (:meth:`PreparedScorer.now`); the others
    (async ones, and sync ones in worker threads) run side by side, so three 1-second judges take
    about a second, not three.
    """
    scores: list[Score | None] = []
    waiting: list[tuple[int, Awaitable[Score]]] = []
    for scorer in scorers:
        if scorer.inline:
            scores.append(scorer.now(result, expected, context))
            continue
        waiting.append((len(scores), scorer.score(result, expected, context, timeout_s, expiry)))
        scores.append(None)
    if len(waiting) == 1:
        position, only = waiting[0]
        scores[position] = await only
    elif waiting:
        done = await asyncio.gather(*(w for _, w in waiting))
        for (position, _), score in zip(waiting, done, strict=True):
            scores[position] = score
    return [s for s in scores if s is not None]


async def call_scorer(
    scorer: Any, result: TaskResult, expected: ExpectedResult | None = None, **context: Any
) -> Score:
    """Run one scorer on one result and return its Score, never raising for scorer faults.

    Handles sync, async and inline scorers as a run does (:func:`score_all`), passes ``context``
    only when the scorer accepts ``**kwargs``, and turns exceptions and non-Score returns into
    error Scores.
    """
    (score,) = await score_all([PreparedScorer.of(scorer)], result, expected, context)
    return score
