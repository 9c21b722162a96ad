"""Scorer protocol: names fixed up front, sync and async calls, kwargs filtering, faults as error Scores."""

from __future__ import annotations

import asyncio
import functools
import re
import threading
import time
from typing import Any

import pytest

from agent_evals.core.scorer import PreparedScorer, Scorer, call_scorer, score_all, scorer_name
from agent_evals.core.types import ExpectedResult, Score, TaskResult
from agent_evals.record.trial import distinct_key

RESULT = TaskResult(output="42")
EXPECTED = ExpectedResult(expected="42")


def exact(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
    ok = expected is not None and result.output == expected.expected
    return Score(name="exact", value=float(ok), passed=ok)


async def async_exact(result: TaskResult, expected: ExpectedResult | None = None, **context: Any) -> Score:
    await asyncio.sleep(0)
    return Score(name="async_exact", value=1.0, passed=True, metadata={"context": sorted(context)})


class Judge:
    def __call__(self, result: TaskResult, expected: ExpectedResult | None = None) -> Score:
        return Score(name="Judge", value=1.0, passed=True)


class NamedJudge(Judge):
    name = "tone"


def weighted(result: TaskResult, expected: ExpectedResult | None = None, *, weight: float = 1.0) -> Score:
    return Score(name="weighted", value=1.0, passed=True)


@pytest.mark.parametrize(
    ("scorer", "name"),
    [
        (exact, "exact"),
        (async_exact, "async_exact"),
        (Judge(), "Judge"),
        (NamedJudge(), "tone"),
        (functools.partial(weighted, weight=2.0), "weighted"),
        (lambda result, expected=None: None, "<lambda>"),
    ],
)
def test_scorer_name__function_class_instance_or_name_attribute(scorer: Any, name: str) -> None:
    assert scorer_name(scorer) == name


def test_scorer_protocol__functions_and_instances_fit() -> None:
    assert isinstance(exact, Scorer)
    assert isinstance(Judge(), Scorer)


async def test_call_scorer__sync_function__returns_its_score() -> None:
    score = await call_scorer(exact, RESULT, EXPECTED)
    assert score.passed and score.name == "exact"


async def test_call_scorer__async_function_with_kwargs__gets_context() -> None:
    score = await call_scorer(async_exact, RESULT, EXPECTED, input="q", metadata={})
    assert score.metadata["context"] == ["input", "metadata"]


async def test_call_scorer__scorer_without_var_kwargs__is_not_passed_context() -> None:
    score = await call_scorer(weighted, RESULT, EXPECTED, input="q", weight=5)
    assert score.error is None and score.passed


async def test_call_scorer__scorer_raises__error_score_names_scorer_and_exception() -> None:
    def boom(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
        raise KeyError("missing")

    score = await call_scorer(boom, RESULT, EXPECTED)
    assert score.name == "boom"
    assert not score.passed and score.value == 0.0
    assert score.error == "scorer 'boom' raised KeyError: 'missing'"


async def test_call_scorer__async_scorer_raises__error_score() -> None:
    async def boom(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
        raise RuntimeError("judge down")

    score = await call_scorer(boom, RESULT, EXPECTED)
    assert score.error == "scorer 'boom' raised RuntimeError: judge down"


@pytest.mark.parametrize(
    ("returned", "type_name"), [(None, "NoneType"), (0.5, "float"), ({"score": 1}, "dict")]
)
async def test_call_scorer__returns_non_score__error_names_scorer_and_type(
    returned: Any, type_name: str
) -> None:
    def sloppy(result: TaskResult, expected: ExpectedResult | None = None) -> Any:
        return returned

    score = await call_scorer(sloppy, RESULT, EXPECTED)
    assert not score.passed
    assert score.error is not None
    assert f"scorer 'sloppy' returned {type_name}, expected a Score" in score.error


@pytest.mark.parametrize(
    ("returned", "kept"),
    [
        pytest.param("something_else", "something_else", id="the-returned-name-is-kept"),
        pytest.param("", "check", id="an-empty-name-takes-the-callable-name"),
    ],
)
async def test_call_scorer__score_keeps_the_name_it_returns(returned: str, kept: str) -> None:
    def check(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
        return Score(name=returned, value=1.0, passed=True)

    assert (await call_scorer(check, RESULT)).name == kept


@pytest.mark.parametrize(
    ("taken", "key"),
    [(set(), "X"), ({"X"}, "X#2"), ({"X", "X#2"}, "X#3"), ({"X", "X#3"}, "X#2")],
)
def test_distinct_key__next_free_spelling(taken: set[str], key: str) -> None:
    assert distinct_key("X", taken) == key


async def test_call_scorer__errored_score_claiming_pass__never_passes() -> None:
    def contradictory(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
        return Score(name="contradictory", value=1.0, passed=True, error="judge timed out")

    score = await call_scorer(contradictory, RESULT)
    assert not score.passed and score.error == "judge timed out"


async def test_prepared_scorer__async_scorer_past_timeout__error_score() -> None:
    async def slow(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
        await asyncio.sleep(5)
        return Score(name="slow", value=1.0, passed=True)

    score = await PreparedScorer.of(slow).score(RESULT, None, {}, timeout_s=0.01)
    assert re.fullmatch(r"scorer 'slow' timed out after 0\.01s \(waited 0\.\d\ds\)", score.error or ""), (
        score.error
    )


def test_prepared_scorer__not_callable__type_error() -> None:
    with pytest.raises(TypeError, match="must be callable"):
        PreparedScorer.of("exact")


async def test_prepared_scorer__sync_scorer_stuck_past_timeout__errored_and_its_thread_a_daemon() -> None:
    release = threading.Event()
    seen: list[threading.Thread] = []

    def stuck(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
        seen.append(threading.current_thread())
        release.wait(30)
        return Score(name="stuck", value=1.0, passed=True)

    try:
        score = await PreparedScorer.of(stuck).score(RESULT, None, {}, timeout_s=0.2)
        assert not score.passed and (score.error or "").startswith("scorer 'stuck' timed out after 0.2s")
        [thread] = seen
        assert thread.daemon and thread is not threading.main_thread()  # never keeps the process alive
    finally:
        release.set()


async def test_prepared_scorer__async_scorer_blocking_the_loop_past_timeout__errored_never_passed() -> None:
    async def blocking(result: TaskResult, expected: ExpectedResult | None = None) -> Score:
        time.sleep(0.6)
        return Score(name="blocking", value=1.0, passed=True)

    score = await PreparedScorer.of(blocking).score(RESULT, None, {}, timeout_s=0.1)
    assert not score.passed
    assert "it returned after" in (score.error or "") and "blocks the event loop" in (score.error or "")


class KwargsJudge:
    def __call__(self, result: TaskResult, expected: ExpectedResult | None = None, **context: Any) -> Score:
        return Score(name="KwargsJudge", value=1.0, passed=True)


def _wrapped_with_kwargs() -> Judge:
    judge = Judge()
    judge.__wrapped__ = async_exact  # type: ignore[attr-defined]  # what functools.wraps leaves behind
    return judge


@pytest.mark.parametrize(
    ("make", "accepts"),
    [
        (Judge, False),
        (KwargsJudge, True),
        (lambda: exact, False),
        (lambda: async_exact, True),
        (lambda: functools.partial(weighted, weight=2.0), False),
        (_wrapped_with_kwargs, True),  # an instance's own __wrapped__ decides, not its class
    ],
)
def test_prepared_scorer__context_keywords_only_for_scorers_taking_kwargs(make: Any, accepts: bool) -> None:
    first, second = PreparedScorer.of(make()), PreparedScorer.of(make())  # the second from the class's cache
    assert (first.accepts_context, second.accepts_context) == (accepts, accepts)


class _Inline:
    """A sync scorer that declares itself quick: called where its trial is finished, never awaited."""

    runs_inline = True

    def __init__(self, returns: Any) -> None:
        self.returns = returns
        self.name = "quick"

    def __call__(self, result: TaskResult, expected: ExpectedResult | None = None) -> Any:
        if isinstance(self.returns, BaseException):
            raise self.returns
        return self.returns() if callable(self.returns) else self.returns


async def _later() -> Score:
    await asyncio.sleep(0)
    return Score(name="quick", value=1.0, passed=True)


@pytest.mark.parametrize(
    ("returns", "value", "passed", "error"),
    [
        (Score(name="quick", value=1.0, passed=True), 1.0, True, None),
        (Score(name="", value=0.5, passed=False), 0.5, False, None),  # no name: the scorer's own
        (RuntimeError("boom"), 0.0, False, "scorer 'quick' raised RuntimeError: boom"),
        ("yes", 0.0, False, "scorer 'quick' returned str, expected a Score"),
        (
            _later,
            0.0,
            False,
            "scorer 'quick' declares runs_inline = True but returned coroutine; an inline scorer is sync",
        ),
    ],
    ids=["score", "score-without-name", "raises", "not-a-score", "awaitable"],
)
async def test_prepared_scorer_now__inline_scorer__its_score_at_once_or_an_error_naming_it(
    returns: Any, value: float, passed: bool, error: str | None, recwarn: pytest.WarningsRecorder
) -> None:
    scorer = PreparedScorer.of(_Inline(returns))
    assert scorer.inline
    score = scorer.now(RESULT, EXPECTED, {})
    assert (score.name, score.value, score.passed) == ("quick", value, passed)
    assert (score.error or "").startswith(error or "") and (score.error is None) == (error is None)
    # score_all gives the same Score, without awaiting anything
    (again,) = await asyncio.wait_for(score_all([scorer], RESULT, EXPECTED, {}), 1)
    assert (again.value, again.passed, again.error) == (score.value, score.passed, score.error)
    assert not [w for w in recwarn if "never awaited" in str(w.message)]  # the coroutine was closed


async def test_call_scorer__inline_scorer__by_the_rules_of_a_run() -> None:
    # outside a run as inside it: an inline scorer's awaitable is refused, not awaited
    score = await call_scorer(_Inline(_later), RESULT, EXPECTED)
    assert score.passed is False and "declares runs_inline = True" in (score.error or "")
    assert (await call_scorer(_Inline(Score(name="quick", value=1.0, passed=True)), RESULT)).passed
