"""--retry-errors: which faults are infrastructure errors, Retry-After, the backoff, and the executor's loop."""

from __future__ import annotations

import email.utils
from typing import Any

import httpx
import openai
import pytest
import requests

from agent_evals.core.executor import Outcome, run_attempts, run_user
from agent_evals.core.retry import BACKOFF_CAP_S, RetryPolicy, backoff, infrastructure_reason, retry_after

REQUEST = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")


def _status_error(status: int, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    response = httpx.Response(status, headers=headers or {}, request=REQUEST)
    cls = {429: openai.RateLimitError, 500: openai.InternalServerError}.get(status, openai.APIStatusError)
    return cls("boom", response=response, body=None)


class WithStatus(Exception):
    def __init__(self, **attrs: Any) -> None:
        super().__init__("with attrs")
        self.__dict__.update(attrs)


class Holder:
    def __init__(self, **attrs: Any) -> None:
        self.__dict__.update(attrs)


def _caused(outer: BaseException, cause: BaseException) -> BaseException:
    outer.__cause__ = cause
    return outer


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        (_status_error(429), "HTTP 429"),
        (_status_error(500), "HTTP 500"),
        (_status_error(503), "HTTP 503"),
        (_status_error(400), None),
        (_status_error(401), None),
        (_status_error(404), None),
        (WithStatus(status_code=502), "HTTP 502"),
        (WithStatus(status=599), "HTTP 599"),
        (WithStatus(status=600), None),
        (WithStatus(status_code=True), None),
        (WithStatus(status_code="503"), None),
        (WithStatus(response=Holder(status_code=429)), "HTTP 429"),
        (WithStatus(response=Holder(status=504)), "HTTP 504"),
        (
            httpx.HTTPStatusError("x", request=REQUEST, response=httpx.Response(503, request=REQUEST)),
            "HTTP 503",
        ),
        (httpx.HTTPStatusError("x", request=REQUEST, response=httpx.Response(422, request=REQUEST)), None),
        (openai.APIConnectionError(request=REQUEST), "openai.APIConnectionError"),
        (openai.APITimeoutError(request=REQUEST), "openai.APITimeoutError"),
        (httpx.ConnectError("refused"), "httpx.ConnectError"),
        (httpx.ReadTimeout("slow"), "httpx.ReadTimeout"),
        (httpx.RemoteProtocolError("cut"), "httpx.RemoteProtocolError"),
        (httpx.UnsupportedProtocol("ftp"), None),
        (requests.ConnectionError("refused"), "requests.ConnectionError"),
        (requests.ReadTimeout("slow"), "requests.ReadTimeout"),
        (ConnectionResetError("reset"), "builtins.ConnectionResetError"),
        (ConnectionRefusedError("refused"), "builtins.ConnectionRefusedError"),
        (TimeoutError("the agent's own limit"), None),
        (ValueError("bad"), None),
        (AssertionError("expected 2"), None),
        (_caused(RuntimeError("agent failed"), _status_error(429)), "HTTP 429"),
        (_caused(RuntimeError("agent failed"), ValueError("bad")), None),
        (_caused(AssertionError("no"), _status_error(503)), None),
        (_caused(WithStatus(status_code=400), _status_error(503)), None),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, BaseException) else str(v),
)
def test_infrastructure_reason__classifies_status_class_and_cause(
    fault: BaseException, reason: str | None
) -> None:
    assert infrastructure_reason(fault) == reason


def test_infrastructure_reason__a_cause_cycle_ends() -> None:
    a, b = RuntimeError("a"), RuntimeError("b")
    a.__cause__, b.__cause__ = b, a
    assert infrastructure_reason(a) is None


def test_infrastructure_reason__a_raising_attribute_is_not_infrastructure() -> None:
    class Nasty(Exception):
        @property
        def status_code(self) -> int:
            raise RuntimeError("no")

    assert infrastructure_reason(Nasty()) is None


NOW = 1_800_000_000.0


@pytest.mark.parametrize(
    ("headers", "wait"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"Retry-After": "0.5"}, 0.5),
        ({"retry-after": email.utils.formatdate(NOW + 7, usegmt=True)}, 7.0),
        ({"retry-after": email.utils.formatdate(NOW - 60, usegmt=True)}, 0.0),
        ({"retry-after": "-4"}, 0.0),
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "nan"}, None),  # not a wait: the backoff applies
        ({"retry-after-ms": "NaN", "retry-after": "2"}, 2.0),
        ({"retry-after": "inf"}, float("inf")),
        ({"retry-after": "1e400"}, float("inf")),
        ({"retry-after": "Fri, 31 Dec 9999 23:59:59 GMT"}, 253402300799.0 - NOW),
        ({"retry-after": "Mon, 99 Foo 2025 25:61:00 GMT"}, None),
        ({}, None),
    ],
)
def test_retry_after__seconds_http_date_and_milliseconds(headers: dict[str, str], wait: float | None) -> None:
    assert retry_after(_status_error(429, headers), now=NOW) == wait


def test_retry_after__read_from_a_plain_dict_and_from_the_cause() -> None:
    assert retry_after(WithStatus(status=503, headers={"Retry-After": "2"}), now=NOW) == 2.0
    assert (
        retry_after(_caused(RuntimeError("wrapped"), _status_error(429, {"retry-after": "4"})), now=NOW)
        == 4.0
    )


def test_backoff__is_1_2_4_then_doubles_up_to_30_seconds() -> None:
    assert [backoff(n) for n in range(1, 9)] == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]
    assert BACKOFF_CAP_S == 30.0


class Clock:
    """Records the waits instead of sleeping."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)

    def sleep_blocking(self, seconds: float) -> None:
        self.waits.append(seconds)

    def policy(self, retries: int) -> RetryPolicy:
        return RetryPolicy(retries, sleep=self.sleep, sleep_blocking=self.sleep_blocking, now=lambda: NOW)


def _inspect(outcome: Outcome) -> tuple[BaseException | None, str | None, float]:
    return outcome.fault, outcome.error, outcome.elapsed


def _no_usage(outcome: Outcome, scope: object) -> None:
    return None


async def _run(faults: list[BaseException | None], policy: RetryPolicy, **kwargs: Any) -> tuple[Any, int]:
    calls = 0

    def task() -> str:
        nonlocal calls
        fault = faults[min(calls, len(faults) - 1)]
        calls += 1
        if fault is not None:
            raise fault
        return "ok"

    done = await run_attempts(lambda: run_user(task, **kwargs), _inspect, policy, usage_of=_no_usage)
    return done, calls


async def test_run_attempts__without_retry_after_waits_1_2_4_seconds() -> None:
    clock = Clock()
    done, calls = await _run([_status_error(503)] * 3 + [None], clock.policy(3))
    assert calls == 4 and done.value.value == "ok"
    assert clock.waits == [1.0, 2.0, 4.0]
    assert [a["reason"] for a in done.attempts] == ["HTTP 503"] * 3
    assert [a["waited_s"] for a in done.attempts] == [1.0, 2.0, 4.0]
    assert all(a["error"] == "APIStatusError: boom" for a in done.attempts)


async def test_run_attempts__retry_after_replaces_the_backoff() -> None:
    clock = Clock()
    done, _ = await _run([_status_error(429, {"retry-after": "9"}), None], clock.policy(2))
    assert clock.waits == [9.0] and done.value.ok


async def test_run_attempts__a_retry_after_beyond_the_ceiling_is_not_waited_for() -> None:
    clock = Clock()
    done, calls = await _run([_status_error(429, {"retry-after": "3600"}), None], clock.policy(2))
    assert calls == 1 and clock.waits == [] and done.value.fault is not None


@pytest.mark.parametrize(
    "value",
    ["3600", "inf", "1e400", "Fri, 31 Dec 9999 23:59:59 GMT", email.utils.formatdate(NOW + 121, usegmt=True)],
)
async def test_run_attempts__a_huge_retry_after_in_seconds_or_as_a_date__is_never_slept(value: str) -> None:
    clock = Clock()
    done, calls = await _run([_status_error(429, {"retry-after": value}), None], clock.policy(2))
    assert calls == 1 and clock.waits == [] and done.value.fault is not None


async def test_run_attempts__a_retry_after_date_is_waited_for_as_seconds_from_now() -> None:
    clock = Clock()
    when = email.utils.formatdate(NOW + 12, usegmt=True)
    done, calls = await _run([_status_error(503, {"retry-after": when}), None], clock.policy(1))
    assert calls == 2 and clock.waits == [12.0] and done.value.ok


async def test_run_attempts__a_nan_retry_after__falls_back_to_the_backoff() -> None:
    clock = Clock()
    done, calls = await _run([_status_error(429, {"retry-after": "nan"}), None], clock.policy(1))
    assert calls == 2 and clock.waits == [1.0] and done.value.ok


async def test_run_attempts__stops_after_n_retries_with_the_last_error_as_the_trial() -> None:
    clock = Clock()
    done, calls = await _run([_status_error(503)], clock.policy(2))
    assert calls == 3 and len(done.attempts) == 2
    assert done.value.error == "APIStatusError: boom"


@pytest.mark.parametrize(
    "fault",
    [AssertionError("expected 2"), ValueError("bad input"), _status_error(400), TimeoutError("own")],
    ids=["assertion", "value-error", "http-400", "agents-own-timeout"],
)
async def test_run_attempts__never_retries_what_is_not_infrastructure(fault: BaseException) -> None:
    clock = Clock()
    done, calls = await _run([fault, None], clock.policy(3))
    assert calls == 1 and done.attempts == [] and clock.waits == []


async def test_run_attempts__never_retries_our_own_timeout() -> None:
    import asyncio

    calls = 0

    async def slow() -> None:
        nonlocal calls
        calls += 1
        await asyncio.sleep(5)

    clock = Clock()
    done = await run_attempts(
        lambda: run_user(slow, timeout=0.05), _inspect, clock.policy(3), usage_of=_no_usage
    )
    assert calls == 1 and done.value.timed_out and done.attempts == []


async def test_run_attempts__zero_retries_runs_once() -> None:
    clock = Clock()
    done, calls = await _run([_status_error(503), None], clock.policy(0))
    assert calls == 1 and done.attempts == [] and clock.waits == []


def test_retry_policy__refuses_a_negative_count() -> None:
    with pytest.raises(ValueError, match="0 or more"):
        RetryPolicy(-1)
