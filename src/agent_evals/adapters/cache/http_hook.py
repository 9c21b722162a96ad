"""The response cache on httpx: a hook in the transport chain (``calls.hooks``) that replays or records.

Every client built on httpx or httpx2 (the OpenAI and Anthropic SDKs, LangChain's OpenAI and Ollama
models) is covered without a code change while a ``--cache`` run is active. The hook sits inside
the usage hook, so a replayed answer is metered as the live one was.
"""

from __future__ import annotations

import base64
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

from agent_evals.adapters.cache.keys import request_digest
from agent_evals.calls.hooks import Send, SendAsync
from agent_evals.calls.scope import ResponseStore, TrialScope, active_cache, in_framework_recording
from agent_evals.cost.http_usage import REPLAYED_HEADER

KIND = "http"
_KEPT_HEADERS = ("content-type",)
"""Response headers an entry keeps (the body is stored decoded, so never content-encoding)."""
_DROPPED_HEADERS = ("content-encoding", "content-length", "transfer-encoding")
"""Headers of a live answer that no longer hold once its body is decoded and buffered."""


def _module(obj: Any) -> Any:
    """The httpx-compatible module (``httpx`` or ``httpx2``) ``obj`` belongs to."""
    return sys.modules[type(obj).__module__.split(".", 1)[0]]


def _digest(request: Any, body: bytes) -> str:
    return request_digest(str(request.method), str(request.url), body)


def _what(request: Any) -> str:
    url = request.url
    return f"{request.method} {url.scheme}://{url.host}{url.path}"  # no query string: it may hold keys


def _response(request: Any, status: int, headers: Any, body: bytes, is_async: bool) -> Any:
    """A response whose body is streamed from ``body``, so the outer hooks (the usage meter) read it
    as they read a live one (a response built from ``content=`` would arrive already read)."""
    module = _module(request)
    if is_async:

        class AsyncBody(module.AsyncByteStream):  # type: ignore[misc,name-defined]
            async def __aiter__(self) -> AsyncIterator[bytes]:
                yield body

        stream: Any = AsyncBody()
    else:

        class Body(module.SyncByteStream):  # type: ignore[misc,name-defined]
            def __iter__(self) -> Iterator[bytes]:
                yield body

        stream = Body()
    return module.Response(status, headers=headers, stream=stream, request=request)


def _replayed(request: Any, entry: dict[str, Any], is_async: bool) -> Any:
    response = entry.get("response") or {}
    body = base64.b64decode(response.get("body_b64", ""))
    headers = {**response.get("headers", {}), REPLAYED_HEADER: "replayed"}  # the usage meter reads it
    return _response(request, int(response.get("status", 200)), headers, body, is_async)


def _buffered(request: Any, response: Any, is_async: bool) -> Any:
    """A live answer, read whole, as a fresh response for the outer hooks."""
    headers = [(k, v) for k, v in response.headers.items() if k.lower() not in _DROPPED_HEADERS]
    return _response(request, response.status_code, headers, response.content, is_async)


def _store(
    cache: ResponseStore, scope: TrialScope, digest: str, occurrence: int, request: Any, response: Any
) -> None:
    """Keep a live answer (record mode); a 429 or 5xx is never kept, so replay never repeats an outage."""
    if response.status_code == 429 or response.status_code >= 500:
        return
    headers = {k: v for k, v in response.headers.items() if k.lower() in _KEPT_HEADERS}
    entry = {
        "request": {"method": str(request.method), "url": _what(request).partition(" ")[2]},
        "response": {
            "status": response.status_code,
            "headers": headers,
            "body_b64": base64.b64encode(response.content).decode("ascii"),
        },
    }
    cache.store(KIND, digest, scope, occurrence, entry)


class CacheHook:
    """Answers model calls from the run's response cache (replay) or stores their answers (record)."""

    def handle(self, request: Any, send: Send) -> Any:
        """A sync request."""
        cache: ResponseStore | None = active_cache()
        if cache is None or (cache.mode == "record" and in_framework_recording()):
            return send(request)
        digest = _digest(request, request.read())
        scope, found = cache.lookup(KIND, digest, _what(request))
        if scope is None or found is None:
            return send(request)
        if cache.mode == "replay":
            return _replayed(request, found, False)
        response = send(request)
        response.read()
        _store(cache, scope, digest, int(found["occurrence"]), request, response)
        return _buffered(request, response, False)

    async def handle_async(self, request: Any, send: SendAsync) -> Any:
        """An async request."""
        cache: ResponseStore | None = active_cache()
        if cache is None or (cache.mode == "record" and in_framework_recording()):
            return await send(request)
        digest = _digest(request, await request.aread())
        scope, found = cache.lookup(KIND, digest, _what(request))
        if scope is None or found is None:
            return await send(request)
        if cache.mode == "replay":
            return _replayed(request, found, True)
        response = await send(request)
        await response.aread()
        _store(cache, scope, digest, int(found["occurrence"]), request, response)
        return _buffered(request, response, True)


HOOK = CacheHook()
"""The one cache hook; ``ResponseCache.activate()`` installs it for the run."""
