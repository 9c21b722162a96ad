"""Retrying errored trials: which faults are infrastructure errors, and how long to wait before the next attempt.

A fault counts as an infrastructure error when (first match wins, following ``raise ... from`` causes):

* it is an ``AssertionError`` (a failed assertion): never an infrastructure error;
* it carries an HTTP status (``status_code`` or ``status`` on the exception or on its ``.response``):
  429 and 500-599 are, any other status is not (a 400 or 401 will not change on a retry);
* its class, or a base class, is one of :data:`INFRA_CLASSES` (by module and name, so no SDK is
  imported to classify): the SDKs' rate-limit, timeout and connection errors, httpx's and requests'
  transport errors, and Python's own ``ConnectionError`` family.

Our own time limit is never retried (a timed-out trial carries no fault), nor is a response-cache
replay miss (the executor checks for it before classifying).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timezone
from typing import Any

from agent_evals.core.signals import pause

BACKOFF_S = (1.0, 2.0, 4.0)
"""Waits before retries 1, 2 and 3 when the server gives no ``Retry-After``; later ones double on."""
BACKOFF_CAP_S = 30.0
"""The longest wait between attempts without ``Retry-After``."""
MAX_RETRY_AFTER_S = 120.0
"""A ``Retry-After`` longer than this is not waited for: the attempt stands as the trial's error."""

INFRA_CLASSES: dict[str, frozenset[str]] = {
    # the OpenAI and Anthropic SDKs (APIStatusError subclasses also carry status_code)
    "openai": frozenset({"RateLimitError", "APITimeoutError", "APIConnectionError", "InternalServerError"}),
    "anthropic": frozenset(
        {"RateLimitError", "APITimeoutError", "APIConnectionError", "InternalServerError", "OverloadedError"}
    ),
    # httpx (used by both SDKs, LangChain's OpenAI and Ollama clients): timeouts and network failures
    "httpx": frozenset({"TimeoutException", "NetworkError", "RemoteProtocolError"}),
    "httpcore": frozenset({"TimeoutException", "NetworkError", "RemoteProtocolError"}),
    # requests and the urllib3 under it
    "requests": frozenset({"ConnectionError", "Timeout"}),
    "urllib3": frozenset({"TimeoutError", "NewConnectionError", "ProtocolError"}),
    # aiohttp's client (its ClientResponseError carries status)
    "aiohttp": frozenset({"ClientConnectionError", "ServerTimeoutError"}),
    # Python's socket errors: refused, reset, aborted, broken pipe
    "builtins": frozenset({"ConnectionError"}),
}
"""Top-level module -> class names that mark an infrastructure error (matched over the class's MRO)."""

_CAUSE_DEPTH = 8


def infrastructure_reason(fault: BaseException) -> str | None:
    """Why ``fault`` is an infrastructure error (``HTTP 429``, ``openai.APIConnectionError``), else None."""
    seen: set[int] = set()
    current: BaseException | None = fault
    for _ in range(_CAUSE_DEPTH):
        if current is None or id(current) in seen:
            return None
        seen.add(id(current))
        if isinstance(current, AssertionError):
            return None
        status = http_status(current)
        if status is not None:
            return f"HTTP {status}" if status == 429 or 500 <= status <= 599 else None
        named = _infra_class(current)
        if named is not None:
            return named
        current = current.__cause__  # an agent's own wrapper (`raise AgentError(...) from exc`)
    return None


def http_status(fault: BaseException) -> int | None:
    """The HTTP status ``fault`` carries (``status_code``/``status``, on it or its ``.response``)."""
    for holder in (fault, _attr(fault, "response")):
        if holder is None:
            continue
        for name in ("status_code", "status"):
            value = _attr(holder, name)
            if isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599:
                return value
    return None


def _attr(obj: object, name: str) -> Any:
    try:
        return getattr(obj, name, None)
    except Exception:  # a property of a user exception may raise anything
        return None


def _infra_class(fault: BaseException) -> str | None:
    for cls in type(fault).__mro__:
        top = (getattr(cls, "__module__", "") or "").partition(".")[0]
        if cls.__name__ in INFRA_CLASSES.get(top, ()):
            own = type(fault)
            return f"{(own.__module__ or '').partition('.')[0]}.{own.__name__}"
    return None


def retry_after(fault: BaseException, now: float | None = None) -> float | None:
    """Seconds the server asked to wait (``Retry-After`` in seconds or as an HTTP-date, or
    ``retry-after-ms``) on ``fault``'s response or any of its causes; None when none was given."""
    current: BaseException | None = fault
    for _ in range(_CAUSE_DEPTH):
        if current is None:
            return None
        headers = _attr(_attr(current, "response"), "headers") or _attr(current, "headers")
        if headers is not None:
            wait = _parse_retry_after(headers, time.time() if now is None else now)
            if wait is not None:
                return wait
        current = current.__cause__
    return None


def _header(headers: Any, name: str) -> str | None:
    try:
        value = headers.get(name)
        if value is None and isinstance(headers, dict):  # a plain dict is case-sensitive
            value = next((v for k, v in headers.items() if str(k).lower() == name), None)
    except Exception:
        return None
    return value if isinstance(value, str) else None


def _number(text: str | None) -> float | None:
    """A header value as a number of seconds; None for text that is none (a date) and for NaN."""
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return None if math.isnan(value) else value


def _parse_retry_after(headers: Any, now: float) -> float | None:
    millis = _number(_header(headers, "retry-after-ms"))
    if millis is not None:
        return max(0.0, millis / 1000)
    value = _header(headers, "retry-after")
    if value is None:
        return None
    value = value.strip()
    seconds = _number(value)
    if seconds is not None:
        return max(0.0, seconds)  # inf (or 1e400) is "too long" to the caller, never slept
    try:
        import email.utils  # only for a Retry-After date: most runs never parse one

        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, when.timestamp() - now)


def backoff(retry_number: int) -> float:
    """The wait before retry ``retry_number`` (1-based) without ``Retry-After``: 1, 2, 4 ... capped at 30 s."""
    if retry_number <= len(BACKOFF_S):
        return BACKOFF_S[retry_number - 1]
    return min(BACKOFF_CAP_S, BACKOFF_S[-1] * 2.0 ** (retry_number - len(BACKOFF_S)))


@dataclass(frozen=True)
class Decision:
    """Whether an errored attempt is retried, and why."""

    reason: str | None
    """Why the fault is an infrastructure error (None: it is not, so no retry)."""
    wait_s: float | None
    """Seconds to wait before the next attempt (None: no retry: retries used up, or Retry-After too long)."""


@dataclass(frozen=True)
class RetryPolicy:
    """``--retry-errors N``: up to ``retries`` more attempts of a trial whose error is an infrastructure error.

    ``sleep`` / ``sleep_blocking`` are the clock (tests pass recording ones); ``now`` reads wall time
    for ``Retry-After`` dates. The blocking one (a worker thread's wait) wakes on a real SIGINT/SIGTERM
    (``core.signals``) and abandons the trial; the async one is cancelled with the event loop's tasks.
    """

    retries: int = 0
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, repr=False)
    sleep_blocking: Callable[[float], None] = field(default=pause, repr=False)
    now: Callable[[], float] = field(default=time.time, repr=False)

    def __post_init__(self) -> None:
        if self.retries < 0:
            raise ValueError(f"retries must be 0 or more, got {self.retries}")

    def decide(self, fault: BaseException | None, retry_number: int) -> Decision:
        """Whether to make retry ``retry_number`` (1-based) after an attempt that raised ``fault``."""
        if fault is None or retry_number > self.retries:
            return Decision(None, None)
        reason = infrastructure_reason(fault)
        if reason is None:
            return Decision(None, None)
        asked = retry_after(fault, self.now())
        if asked is not None and asked > MAX_RETRY_AFTER_S:
            return Decision(reason, None)
        return Decision(reason, asked if asked is not None else backoff(retry_number))


NO_RETRIES = RetryPolicy()
"""The default: every trial runs once."""
