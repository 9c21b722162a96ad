"""Hooks around httpx's transports, so model calls made through any httpx-based SDK can be observed.

The OpenAI SDK (and LangChain's OpenAI and Ollama models through their SDKs) send every request
through ``HTTPTransport.handle_request`` or ``AsyncHTTPTransport.handle_async_request`` of
``httpx`` (or of its successor ``httpx2``, which recent OpenAI SDKs use). :func:`add_hook` wraps
those methods once per installed module (the way OpenTelemetry's httpx instrumentation does) and
then hands each request to the installed hooks in order, outermost first. A hook gets the request
and ``send``, the rest of the chain; it may look at the request, answer it itself (a response
cache), or call ``send`` and look at or replace the response (the usage meter). Requests and
responses are the calling module's own classes: ``type(request).__module__`` tells which.

Nothing is wrapped until a hook is added, and with no hook installed a request goes straight to
httpx. A user's own transport that is not an ``HTTPTransport`` is not seen.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

HTTPX_MODULES = ("httpx", "httpx2")
"""The httpx-compatible clients whose transports are hooked, when installed."""

Send = Callable[[Any], Any]
"""The rest of the chain, for a sync request: request -> response."""

SendAsync = Callable[[Any], Awaitable[Any]]
"""The rest of the chain, for an async request: request -> awaitable response."""


class Hook(Protocol):
    """Something that sits around every httpx request: observe, answer, or pass on."""

    def handle(self, request: Any, send: Send) -> Any:
        """A sync request: return ``send(request)`` (possibly changed) or a response of its own."""
        ...

    async def handle_async(self, request: Any, send: SendAsync) -> Any:
        """An async request: return ``await send(request)`` (possibly changed) or a response of its own."""
        ...


_hooks: tuple[Hook, ...] = ()
_lock = threading.Lock()
_looked_up: set[str] = set()  # the HTTPX_MODULES already looked for: wrapped, or not installed


def hooks() -> tuple[Hook, ...]:
    """The installed hooks, outermost first."""
    return _hooks


def add_hook(hook: Hook, *, outer: bool = False) -> None:
    """Install ``hook`` (once; adding it again does nothing). It runs inside the hooks already
    installed, or outside them with ``outer=True``. Without httpx or httpx2 nothing is hooked."""
    global _hooks
    with _lock:
        for name in HTTPX_MODULES:  # once per process: hooks are added per trial, a lookup is not free
            if name not in _looked_up:
                _looked_up.add(name)
                if importlib.util.find_spec(name) is not None:
                    _wrap(importlib.import_module(name))
        if any(h is hook for h in _hooks):
            return
        _hooks = (hook, *_hooks) if outer else (*_hooks, hook)


def remove_hook(hook: Hook) -> None:
    """Uninstall ``hook`` (a hook that is not installed is ignored)."""
    global _hooks
    with _lock:
        _hooks = tuple(h for h in _hooks if h is not hook)


def _wrap(module: Any) -> None:
    sync_send = module.HTTPTransport.handle_request
    async_send = module.AsyncHTTPTransport.handle_async_request

    def handle_request(self: Any, request: Any) -> Any:
        chain = _hooks
        if not chain:
            return sync_send(self, request)

        def at(index: int) -> Send:
            if index == len(chain):
                return lambda req: sync_send(self, req)
            return lambda req: chain[index].handle(req, at(index + 1))

        return at(0)(request)

    async def handle_async_request(self: Any, request: Any) -> Any:
        chain = _hooks
        if not chain:
            return await async_send(self, request)

        def at(index: int) -> SendAsync:
            if index == len(chain):
                return lambda req: async_send(self, req)
            return lambda req: chain[index].handle_async(req, at(index + 1))

        return await at(0)(request)

    module.HTTPTransport.handle_request = handle_request
    module.AsyncHTTPTransport.handle_async_request = handle_async_request
