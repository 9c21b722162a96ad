"""The http.client cache hook's pure parts: reading a sent request back, decoding a stored body."""

from __future__ import annotations

import gzip
import zlib

import pytest

from agent_evals.adapters.cache.stdlib_hook import ParsedRequest, decoded_body, parse_request

PLAIN = b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Length: 2\r\n\r\n{}"
CHUNKED = (
    b"POST /v1/x?k=1 HTTP/1.1\r\nHost: api.example.com\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\n\r\n"
)
PROXIED = b"GET http://other.example/a?b=c HTTP/1.1\r\nHost: other.example\r\n\r\n"
NO_HOST = b"GET /health HTTP/1.1\r\n\r\n"


@pytest.mark.parametrize(
    ("raw", "scheme", "expected"),
    [
        (PLAIN, "http", ParsedRequest("POST", "http://127.0.0.1:8080/v1/chat/completions", b"{}")),
        (CHUNKED, "https", ParsedRequest("POST", "https://api.example.com/v1/x?k=1", b"abcde")),
        (PROXIED, "http", ParsedRequest("GET", "http://other.example/a?b=c", b"")),
        (NO_HOST, "https", ParsedRequest("GET", "https://fallback:9/health", b"")),
    ],
    ids=["plain_post", "chunked_body_https", "absolute_target_to_a_proxy", "no_host_header"],
)
def test_parse_request__bytes_http_client_sent__method_url_and_body_as_httpx_writes_them(
    raw: bytes, scheme: str, expected: ParsedRequest
) -> None:
    assert parse_request(raw, scheme, "fallback:9") == expected


def test_parsed_request__what__leaves_the_query_string_out() -> None:
    assert ParsedRequest("GET", "https://h/p?key=secret", b"").what == "GET https://h/p"


BODY = b'{"ok": true}'


@pytest.mark.parametrize(
    ("body", "encoding", "expected"),
    [
        (BODY, "", (BODY, True)),
        (BODY, "identity", (BODY, True)),
        (gzip.compress(BODY), "gzip", (BODY, True)),
        (gzip.compress(BODY), " GZIP ", (BODY, True)),
        (zlib.compress(BODY), "deflate", (BODY, True)),
        (zlib.compress(BODY)[2:-4], "deflate", (BODY, True)),
        (b"\x0b\x02\x80", "br", (b"\x0b\x02\x80", False)),
        (b"not gzip", "gzip", (b"not gzip", False)),
    ],
    ids=[
        "none",
        "identity",
        "gzip",
        "gzip_spaced_upper",
        "zlib_deflate",
        "raw_deflate",
        "brotli",
        "torn_gzip",
    ],
)
def test_decoded_body__content_encoding__plain_body_or_kept_as_is(
    body: bytes, encoding: str, expected: tuple[bytes, bool]
) -> None:
    assert decoded_body(body, encoding) == expected
