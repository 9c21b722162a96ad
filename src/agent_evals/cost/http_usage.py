"""The usage hook on httpx: counts the tokens that model API responses report, on the trial's meter.

The response body is read as the caller reads it (a stream stays a stream): the hook keeps a copy
of what passes, up to a cap, and parses it when the body ends or is closed.
"""

from __future__ import annotations

import sys
import threading
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

from agent_evals.calls.hooks import Send, SendAsync, add_hook, hooks
from agent_evals.cost.meter import UsageMeter, bound_meter, current_meter
from agent_evals.cost.wire import from_text

MAX_BODY_BYTES = 32 * 1024 * 1024
"""Responses longer than this are passed on unread by the meter (their usage is not counted)."""

_TYPES = ("json", "event-stream", "ndjson")

REPLAYED_HEADER = "x-agent-evals-cache"
"""The header the response cache's replay sets on the answers it serves (value ``replayed``)."""


class _Copy:
    """What passed through one response body, parsed once at its end."""

    def __init__(self, meter: UsageMeter, encoding: str, replayed: bool) -> None:
        self.meter = meter
        self.replayed = replayed
        self.parts: list[bytes] = []
        self.size = 0
        self.done = False
        self.lock = threading.Lock()
        self.decoder: Any = None
        if encoding in ("gzip", "deflate"):
            self.decoder = zlib.decompressobj(wbits=47)  # gzip or zlib headers, detected
        elif encoding not in ("", "identity"):
            self.size = -1  # an encoding we do not decode: not counted

    def add(self, chunk: bytes) -> None:
        if self.size < 0:
            return
        self.size += len(chunk)
        if self.size > MAX_BODY_BYTES:
            self.size, self.parts = -1, []
            return
        self.parts.append(chunk)

    def finish(self) -> None:
        with self.lock:
            if self.done:
                return
            self.done = True
        if self.size <= 0:
            return
        raw = b"".join(self.parts)
        self.parts = []
        try:
            body = self.decoder.decompress(raw) + self.decoder.flush() if self.decoder is not None else raw
        except zlib.error:
            return
        report = from_text(body.decode("utf-8", "replace"))
        if report is not None:
            self.meter.add(report, replayed=self.replayed)


def _copy_for(request: Any, response: Any) -> _Copy | None:
    meter = current_meter()
    if meter is None or request.method != "POST" or not 200 <= response.status_code < 300:
        return None
    kind = response.headers.get("content-type", "")
    if not any(t in kind for t in _TYPES):
        return None
    return _Copy(
        meter,
        response.headers.get("content-encoding", "").strip().lower(),
        response.headers.get(REPLAYED_HEADER) == "replayed",  # the response cache answered it
    )


class UsageHook:
    """Counts every model call a trial's code makes through httpx on the trial's meter."""

    def handle(self, request: Any, send: Send) -> Any:
        """Pass the request on; copy the response body as it is read."""
        meter = current_meter()  # the trial's, taken now: the body may be read elsewhere
        response = send(request)
        found = _copy_for(request, response) if meter is not None else None
        if found is None:
            return response
        copy: _Copy = found
        inner = response.stream
        httpx = _module_of(response)

        class Tee(httpx.SyncByteStream):  # type: ignore[name-defined,misc]
            def __iter__(self) -> Iterator[bytes]:
                for chunk in inner:
                    copy.add(chunk)
                    yield chunk
                copy.finish()

            def close(self) -> None:
                copy.finish()
                close = getattr(inner, "close", None)
                if close is not None:
                    close()

        response.stream = Tee()
        return response

    async def handle_async(self, request: Any, send: SendAsync) -> Any:
        """Pass the request on; copy the response body as it is read."""
        meter = current_meter()
        response = await send(request)
        found = _copy_for(request, response) if meter is not None else None
        if found is None:
            return response
        copy: _Copy = found
        inner = response.stream
        httpx = _module_of(response)

        class Tee(httpx.AsyncByteStream):  # type: ignore[name-defined,misc]
            async def __aiter__(self) -> AsyncIterator[bytes]:
                async for chunk in inner:
                    copy.add(chunk)
                    yield chunk
                copy.finish()

            async def aclose(self) -> None:
                copy.finish()
                close = getattr(inner, "aclose", None)
                if close is not None:
                    await close()

        response.stream = Tee()
        return response


def _module_of(response: Any) -> Any:
    """The httpx-compatible module a response belongs to (``httpx`` or ``httpx2``)."""
    return sys.modules[type(response).__module__.split(".", 1)[0]]


_HOOK = UsageHook()


def install() -> None:
    """Install the usage hook (once; it counts only inside a trial's ``metering()`` block)."""
    add_hook(_HOOK, outer=True)


class metering(bound_meter):
    """Count the model calls a trial's code makes inside the block (and in the tasks and threads it
    starts) on a new meter, with the usage hook installed."""

    __slots__ = ()

    def __enter__(self) -> UsageMeter:
        if not any(hook is _HOOK for hook in hooks()):
            install()
        return super().__enter__()
