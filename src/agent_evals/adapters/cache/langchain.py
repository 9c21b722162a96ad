"""The response cache as LangChain's LLM cache (``langchain_core`` ``BaseCache``), set for the run's duration."""

from __future__ import annotations

import contextlib
import importlib.util
from collections import deque
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from agent_evals.adapters.cache.keys import request_digest
from agent_evals.calls.scope import ResponseStore, TrialScope, current_scope, framework_recording

if TYPE_CHECKING:
    from langchain_core.outputs import Generation


KIND = "langchain"


@contextlib.contextmanager
def langchain_hooked(cache: ResponseStore) -> Iterator[None]:
    """Set LangChain's global LLM cache to ``cache`` for the ``with`` block (when LangChain is installed).

    A chat model built with ``cache=False`` opts out; one given its own cache keeps it.
    """
    if importlib.util.find_spec("langchain_core") is None:
        yield
        return
    from langchain_core.globals import get_llm_cache, set_llm_cache

    before = get_llm_cache()
    set_llm_cache(_hook_class()(cache))
    try:
        yield
    finally:
        set_llm_cache(before)


def _hook_class() -> type[Any]:
    from langchain_core.caches import BaseCache
    from langchain_core.load import dumps, loads

    class RunCache(BaseCache):
        """LangChain's view of the run's response cache: keyed by prompt, model settings and trial."""

        def __init__(self, cache: ResponseStore) -> None:
            self.cache = cache
            # a lookup's occurrence, waiting for the update of the same call (record mode)
            self._pending: dict[tuple[int, str], deque[tuple[TrialScope, int]]] = {}

        def lookup(self, prompt: str, llm_string: str) -> Sequence[Generation] | None:
            digest = request_digest(llm_string, prompt)
            scope, found = self.cache.lookup(KIND, digest, _what(llm_string))
            if scope is None or found is None:
                return None
            if self.cache.mode == "record":
                self._pending.setdefault((id(scope), digest), deque()).append((scope, found["occurrence"]))
                framework_recording(scope)  # this call's HTTP request is not stored a second time
                return None
            generations: list[Generation] = loads(found["generations"], allowed_objects="core")
            _meter_replayed(generations)
            return generations

        def update(self, prompt: str, llm_string: str, return_val: Sequence[Generation]) -> None:
            if self.cache.mode != "record":
                return
            framework_recording(None)
            digest = request_digest(llm_string, prompt)
            waiting = self._pending.get((id(current_scope()), digest))
            if not waiting:
                return  # no lookup in this trial (a call outside any trial): not recorded
            scope, occurrence = waiting.popleft()
            if not waiting:
                del self._pending[(id(scope), digest)]
            self.cache.store(
                KIND,
                digest,
                scope,
                occurrence,
                {"model": _what(llm_string), "generations": dumps(list(return_val))},
            )

        async def alookup(self, prompt: str, llm_string: str) -> Sequence[Generation] | None:
            return self.lookup(prompt, llm_string)  # a small file read: no thread hop, same context

        async def aupdate(self, prompt: str, llm_string: str, return_val: Sequence[Generation]) -> None:
            self.update(prompt, llm_string, return_val)

        def clear(self, **kwargs: Any) -> None:
            """Entries are files in the cache folder: delete the folder to clear them."""

    return RunCache


def _meter_replayed(generations: Sequence[Generation]) -> None:
    """Count a replayed answer's tokens on the trial's meter, marked replayed (no HTTP call carries
    them): the record keeps them for gating, and the budget does not charge them."""
    from agent_evals.cost.meter import current_meter
    from agent_evals.cost.wire import from_messages

    meter = current_meter()
    if meter is None:
        return
    for report in from_messages([getattr(g, "message", None) for g in generations]):
        meter.add(report, replayed=True)


def _what(llm_string: str) -> str:
    """A short name of the model call for messages (the class LangChain's settings string names)."""
    marker = '"name": "'
    start = llm_string.find(marker)
    if start >= 0:
        end = llm_string.find('"', start + len(marker))
        return f"a LangChain {llm_string[start + len(marker) : end]} call"
    return "a LangChain model call"
