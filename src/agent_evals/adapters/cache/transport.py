"""The response cache as an httpx transport wrapper: give it to the OpenAI (or any httpx-based) client.

    import httpx, openai
    from agent_evals.adapters.cache.transport import CachingTransport

    client = openai.OpenAI(http_client=httpx.Client(transport=CachingTransport()))

Outside a ``--cache record|replay`` run it passes every request straight through. It wraps any other
transport (``CachingTransport(inner)``), so it composes with the usage hook and custom transports.
"""

from __future__ import annotations

import base64
from typing import Any

import httpx

from agent_evals.adapters.cache.store import ResponseCache, request_digest
from agent_evals.core.trial_scope import TrialScope, active_cache

KIND = "http"
_KEPT_HEADERS = ("content-type",)
"""Response headers an entry keeps (the body is stored decoded, so never content-encoding)."""


def _digest(request: httpx.Request, body: bytes) -> str:
    return request_digest(request.method, str(request.url), body)


def _what(request: httpx.Request) -> str:
    return f"{request.method} {request.url.scheme}://{request.url.host}{request.url.path}"  # no query: keys


def _replayed(request: httpx.Request, entry: dict[str, Any]) -> httpx.Response:
    response = entry.get("response") or {}
    return httpx.Response(
        int(response.get("status", 200)),
        headers={**response.get("headers", {}), "x-agent-evals-cache": "replayed"},
        content=base64.b64decode(response.get("body_b64", "")),
        request=request,
    )


def _entry(request: httpx.Request, response: httpx.Response) -> dict[str, Any] | None:
    """What record mode stores of a live answer (None: an infrastructure error is never stored)."""
    if response.status_code == 429 or response.status_code >= 500:
        return None
    headers = {k: v for k, v in response.headers.items() if k.lower() in _KEPT_HEADERS}
    return {
        "request": {"method": request.method, "url": _what(request).partition(" ")[2]},
        "response": {
            "status": response.status_code,
            "headers": headers,
            "body_b64": base64.b64encode(response.content).decode("ascii"),
        },
    }


def _record(
    cache: ResponseCache, scope: TrialScope, digest: str, plan: dict[str, Any], request: httpx.Request,
    response: httpx.Response,
) -> None:  # fmt: skip
    entry = _entry(request, response)
    if entry is not None:
        cache.store(KIND, digest, scope, int(plan["occurrence"]), entry)


class CachingTransport(httpx.BaseTransport):
    """Sync httpx transport: replays or records model calls for the run's response cache."""

    def __init__(self, inner: httpx.BaseTransport | None = None) -> None:
        """Wrap ``inner`` (default: a plain ``httpx.HTTPTransport()``)."""
        self.inner = inner if inner is not None else httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        cache: ResponseCache | None = active_cache()
        if cache is None:
            return self.inner.handle_request(request)
        digest = _digest(request, request.read())
        scope, found = cache.lookup(KIND, digest, _what(request))
        if scope is None or found is None:
            return self.inner.handle_request(request)
        if cache.mode == "replay":
            return _replayed(request, found)
        response = self.inner.handle_request(request)
        response.read()
        _record(cache, scope, digest, found, request, response)
        return response

    def close(self) -> None:
        self.inner.close()


class AsyncCachingTransport(httpx.AsyncBaseTransport):
    """Async httpx transport (``httpx.AsyncClient``, ``openai.AsyncOpenAI``): as :class:`CachingTransport`."""

    def __init__(self, inner: httpx.AsyncBaseTransport | None = None) -> None:
        """Wrap ``inner`` (default: a plain ``httpx.AsyncHTTPTransport()``)."""
        self.inner = inner if inner is not None else httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        cache: ResponseCache | None = active_cache()
        if cache is None:
            return await self.inner.handle_async_request(request)
        digest = _digest(request, await request.aread())
        scope, found = cache.lookup(KIND, digest, _what(request))
        if scope is None or found is None:
            return await self.inner.handle_async_request(request)
        if cache.mode == "replay":
            return _replayed(request, found)
        response = await self.inner.handle_async_request(request)
        await response.aread()
        _record(cache, scope, digest, found, request, response)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()
