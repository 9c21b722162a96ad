"""The trial being run, as model-call hooks see it: its index, the run's response cache, what it replayed."""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

CacheMode = Literal["record", "replay", "off"]


@dataclass
class TrialScope:
    """One attempt of one trial, for the response cache: counts the calls its hooks saw.

    The cache keys an entry by the request, the trial index and how many identical requests this
    attempt made before it, so trial 2 never replays trial 1 and a retried attempt starts over.
    """

    trial: int
    """0-based trial index."""
    mode: CacheMode
    """The run's cache mode."""
    replayed: int = 0
    """Responses served from the cache."""
    recorded: int = 0
    """Responses fetched live and stored."""
    misses: list[str] = field(default_factory=list)
    """What replay mode could not find (each one errors the trial)."""
    _seen: dict[str, int] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def occurrence(self, request_key: str) -> int:
        """How many requests with this key the attempt made before this one (thread-safe)."""
        with self._lock:
            n = self._seen.get(request_key, 0)
            self._seen[request_key] = n + 1
            return n

    def note(self, what: Literal["replayed", "recorded"]) -> None:
        """Count one replayed or recorded response."""
        with self._lock:
            setattr(self, what, getattr(self, what) + 1)

    def missed(self, description: str) -> None:
        """Note a replay miss (the hook also raises, so the call never goes out live)."""
        with self._lock:
            self.misses.append(description)

    @property
    def miss_error(self) -> str | None:
        """The trial's error when replay mode missed, else None."""
        if not self.misses:
            return None
        more = f" (and {len(self.misses) - 1} more)" if len(self.misses) > 1 else ""
        return (
            f"CacheMiss: --cache replay has no recorded response for {self.misses[0]}{more}; "
            "record one with --cache record (same request, same trial index), or run with --cache off"
        )

    def summary(self) -> dict[str, Any]:
        """The trial's ``cache`` entry in the run record."""
        return {
            "mode": self.mode,
            "replayed": self.replayed,
            "recorded": self.recorded,
            "missed": len(self.misses),
        }


class ResponseStore(Protocol):
    """What the model-call hooks need of the run's response cache (``adapters.cache.store.ResponseCache``)."""

    @property
    def mode(self) -> CacheMode:
        """``record`` or ``replay``."""
        ...

    def lookup(self, kind: str, digest: str, what: str) -> tuple[TrialScope | None, dict[str, Any] | None]:
        """The entry for a request in the current trial, or None to call live (see ``ResponseCache``)."""
        ...

    def store(
        self, kind: str, digest: str, scope: TrialScope, occurrence: int, entry: dict[str, Any]
    ) -> None:
        """Keep the entry of a live answer."""
        ...


_scope: contextvars.ContextVar[TrialScope | None] = contextvars.ContextVar("agent_evals_trial", default=None)
_active: list[Any] = []  # the run's response cache (a stack: the innermost run wins)
_active_lock = threading.Lock()


_framework_call: contextvars.ContextVar[TrialScope | None] = contextvars.ContextVar(
    "agent_evals_framework_call", default=None
)


def framework_recording(scope: TrialScope | None) -> None:
    """Mark (``scope``) or unmark (None) this context as inside a framework-cached call being
    recorded (LangChain's cache records it), so the HTTP hook does not store the same answer twice."""
    _framework_call.set(scope)


def in_framework_recording() -> bool:
    """Whether this context is inside such a call of the current attempt."""
    scope = _framework_call.get()
    return scope is not None and scope is _scope.get()


def current_scope() -> TrialScope | None:
    """The attempt being run in this context, when a response cache is active."""
    return _scope.get()


def active_cache() -> ResponseStore | None:
    """The response cache of the run in progress (an ``adapters.cache.store.ResponseCache``), or None."""
    return _active[-1] if _active else None


@contextlib.contextmanager
def cache_active(cache: Any) -> Iterator[None]:
    """Make ``cache`` the run's response cache for the ``with`` block (None: leave things as they are)."""
    if cache is None:
        yield
        return
    with _active_lock:
        _active.append(cache)
    try:
        yield
    finally:
        with _active_lock:
            _active.remove(cache)


def open_scope(trial: int) -> tuple[TrialScope | None, contextvars.Token[TrialScope | None] | None]:
    """Start an attempt of trial ``trial``: a scope when a cache is active (else nothing to track)."""
    cache = active_cache()
    if cache is None:
        return None, None
    scope = TrialScope(trial=trial, mode=cache.mode)
    return scope, _scope.set(scope)


def close_scope(token: contextvars.Token[TrialScope | None] | None) -> None:
    """End the attempt :func:`open_scope` started."""
    if token is not None:
        _scope.reset(token)
