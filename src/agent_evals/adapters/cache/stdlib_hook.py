"""The response cache on the standard library's ``http.client``: what urllib, requests and urllib3 send.

``http.client.HTTPConnection`` carries every request made with ``urllib.request``, ``http.client``
itself and ``requests`` (through urllib3, whose connections subclass it). While a cache is active
(:func:`hooked`), three of its methods are wrapped: ``putrequest`` starts a request, ``send`` copies
the bytes it sends, and ``getresponse`` answers. Under ``replay`` inside a trial nothing is sent at
all (no connection is opened by ``http.client``; urllib3 opens its HTTPS connections before the
request, and sends nothing on them): the request is answered from the cache, or refused with
``CacheMiss``. Under ``record`` the request goes out as usual and the answer is stored.

Entries are keyed exactly as the httpx hook keys them (method, full URL, body), so a request sent
through httpx and the same request through urllib share one entry. httpx never uses ``http.client``,
so no request is handled twice.
"""

from __future__ import annotations

import base64
import contextlib
import http
import http.client
import io
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from agent_evals.adapters.cache.http_hook import KIND
from agent_evals.adapters.cache.keys import request_digest
from agent_evals.calls.scope import ResponseStore, active_cache, current_scope, in_framework_recording
from agent_evals.cost.http_usage import REPLAYED_HEADER

_KEPT_HEADERS = ("content-type",)
"""Response headers an entry keeps (as the httpx hook keeps them)."""
_DROPPED_HEADERS = ("content-encoding", "content-length", "transfer-encoding", "connection")
"""Headers of a live answer that no longer hold once its body is decoded and buffered."""
_PENDING = "_agent_evals_cache_request"
"""The attribute of a connection that holds the request being sent while a cache is active."""


@dataclass
class _Request:
    """One request on one connection, from ``putrequest`` to ``getresponse``."""

    cache: ResponseStore
    replay: bool
    """True: nothing goes out; the cache answers or refuses."""
    sent: bytearray = field(default_factory=bytearray)


@dataclass(frozen=True)
class ParsedRequest:
    """What the cache keys on, read back from the bytes ``http.client`` sent."""

    method: str
    url: str
    body: bytes

    @property
    def what(self) -> str:
        """The request in messages: method and URL without the query string (it may hold keys)."""
        return f"{self.method} {self.url.split('?', 1)[0]}"


def parse_request(raw: bytes, scheme: str, fallback_host: str) -> ParsedRequest:
    """The method, full URL and body of the HTTP/1.1 request ``raw`` (a chunked body is decoded).

    The URL is written as httpx writes it (``https://host/path?query``, the port only when it is not
    the scheme's default), from the request line and the Host header (``fallback_host`` without one).
    """
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("iso-8859-1").split("\r\n")
    method, _, rest = lines[0].partition(" ")
    target = rest.rsplit(" ", 1)[0] if " " in rest else rest
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = _unchunked(body)
    if "://" in target.split("?", 1)[0]:  # a request to a proxy names the whole URL
        return ParsedRequest(method, target, body)
    host = headers.get("host") or fallback_host
    return ParsedRequest(method, f"{scheme}://{host}{target or '/'}", body)


def _unchunked(body: bytes) -> bytes:
    out = bytearray()
    while body:
        size_line, _, body = body.partition(b"\r\n")
        size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:
            break
        out += body[:size]
        body = body[size + 2 :]
    return bytes(out)


def decoded_body(body: bytes, encoding: str) -> tuple[bytes, bool]:
    """``body`` without its gzip or deflate content encoding, and whether it is now plain."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body, True
    if encoding in ("gzip", "x-gzip", "deflate"):
        try:
            decoder = zlib.decompressobj(wbits=47)  # gzip or zlib headers, detected
            return decoder.decompress(body) + decoder.flush(), True
        except zlib.error:
            with contextlib.suppress(zlib.error):
                return zlib.decompress(body, -15), True  # raw deflate
    return body, False


class _Canned:
    """A socket that never touches the network: what it was sent is dropped, reads give ``data``."""

    def __init__(self, data: bytes = b"") -> None:
        self.data = data

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BytesIO:
        return io.BytesIO(self.data)

    def settimeout(self, timeout: float | None) -> None:
        pass

    def gettimeout(self) -> float | None:
        return None

    def setsockopt(self, *args: Any) -> None:
        pass

    def sendall(self, data: Any) -> None:
        pass

    def shutdown(self, how: int) -> None:
        pass

    def close(self) -> None:
        pass


def _response_bytes(status: int, headers: list[tuple[str, str]], body: bytes, close: bool) -> bytes:
    try:
        reason = http.HTTPStatus(status).phrase
    except ValueError:
        reason = ""
    lines = [f"HTTP/1.1 {status} {reason}"]
    lines += [f"{k}: {v}" for k, v in headers if k.lower() not in ("content-length", "connection")]
    lines.append(f"Content-Length: {len(body)}")
    if close:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("iso-8859-1") + body


def _as_bytes(data: Any, blocksize: int) -> bytes:
    """What ``http.client``'s ``send`` would send for ``data`` (bytes, a readable or an iterable)."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    if hasattr(data, "read"):
        out = bytearray()
        while block := data.read(blocksize):
            out += block.encode("iso-8859-1") if isinstance(block, str) else block
        return bytes(out)
    return b"".join(bytes(part) for part in data)


_original: dict[str, Any] = {}
_users = 0
_lock = threading.Lock()


def _putrequest(self: Any, *args: Any, **kwargs: Any) -> Any:
    cache = active_cache()
    pending = None
    if cache is not None and not (cache.mode == "record" and in_framework_recording()):
        pending = _Request(cache, replay=cache.mode == "replay" and current_scope() is not None)
    setattr(self, _PENDING, pending)
    return _original["putrequest"](self, *args, **kwargs)


def _send(self: Any, data: Any) -> Any:
    pending: _Request | None = getattr(self, _PENDING, None)
    if pending is None:
        return _original["send"](self, data)
    chunk = _as_bytes(data, getattr(self, "blocksize", 8192))
    pending.sent += chunk
    if pending.replay:
        if self.sock is None:
            self.sock = _Canned()  # never connected: urllib3 sets a timeout on it before the answer
        return None
    return _original["send"](self, chunk)


def _getresponse(self: Any, *args: Any, **kwargs: Any) -> Any:
    pending: _Request | None = getattr(self, _PENDING, None)
    if pending is None:
        return _original["getresponse"](self, *args, **kwargs)
    setattr(self, _PENDING, None)
    scheme = "https" if getattr(self, "default_port", 80) == 443 else "http"
    request = parse_request(bytes(pending.sent), scheme, f"{self.host}:{self.port}")
    digest = request_digest(request.method, request.url, request.body)
    try:
        scope, found = pending.cache.lookup(KIND, digest, request.what)
    except BaseException:
        if pending.replay:
            self.close()  # the request never went out: the connection is left idle and empty
        raise
    if not pending.replay:
        live = _original["getresponse"](self, *args, **kwargs)
        if scope is None or found is None:
            return live
        return _recorded(pending.cache, scope, digest, int(found["occurrence"]), request, live)
    if not isinstance(self.sock, _Canned) and self.sock is not None:
        self.sock.close()  # opened before the request (urllib3's HTTPS), never written to
    answer = (found or {}).get("response") or {}
    headers = [*answer.get("headers", {}).items(), (REPLAYED_HEADER, "replayed")]
    body = base64.b64decode(answer.get("body_b64", ""))
    self.sock = _Canned(_response_bytes(int(answer.get("status", 200)), headers, body, close=True))
    return _original["getresponse"](self, *args, **kwargs)


def _recorded(
    cache: ResponseStore, scope: Any, digest: str, occurrence: int, request: ParsedRequest, live: Any
) -> Any:
    """Store a live answer (never a 429 or 5xx) and hand the caller a fresh copy of it."""
    encoding = live.getheader("content-encoding", "") or ""
    body, plain = decoded_body(live.read(), encoding)
    kept_encoding = [] if plain else [("content-encoding", encoding)]  # one we cannot decode stays
    headers = [(k, v) for k, v in live.getheaders() if k.lower() not in _DROPPED_HEADERS]
    if live.status != 429 and live.status < 500:
        kept = [(k.lower(), v) for k, v in headers if k.lower() in _KEPT_HEADERS]
        entry = {
            "request": {"method": request.method, "url": request.url.split("?", 1)[0]},
            "response": {
                "status": live.status,
                "headers": dict([*kept, *kept_encoding]),
                "body_b64": base64.b64encode(body).decode("ascii"),
            },
        }
        cache.store(KIND, digest, scope, occurrence, entry)
    canned = _Canned(_response_bytes(live.status, [*headers, *kept_encoding], body, close=False))
    copy = http.client.HTTPResponse(canned, method=request.method)  # type: ignore[arg-type]
    copy.begin()
    return copy


@contextlib.contextmanager
def hooked() -> Iterator[None]:
    """Wrap ``http.client.HTTPConnection`` for the ``with`` block (nested blocks share one wrapping)."""
    global _users
    with _lock:
        if _users == 0:
            connection = http.client.HTTPConnection
            _original.update(  # kept after the block: a request still in flight there finds them
                putrequest=connection.putrequest, send=connection.send, getresponse=connection.getresponse
            )
            connection.putrequest = _putrequest  # type: ignore[method-assign]
            connection.send = _send  # type: ignore[method-assign]
            connection.getresponse = _getresponse  # type: ignore[method-assign]
        _users += 1
    try:
        yield
    finally:
        with _lock:
            _users -= 1
            if _users == 0:
                connection = http.client.HTTPConnection
                connection.putrequest = _original["putrequest"]  # type: ignore[method-assign]
                connection.send = _original["send"]  # type: ignore[method-assign]
                connection.getresponse = _original["getresponse"]  # type: ignore[method-assign]
