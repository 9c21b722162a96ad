"""The transport rule for every endpoint that receives prompts: TLS, or plain text only on loopback."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

ACCEPTED_ENDPOINT_FORMS = (
    "https://HOST[:PORT][/PATH] or wss://HOST[:PORT][/PATH] for any host; "
    "http:// or ws:// only for localhost (or localhost.), 127.0.0.0/8 or [::1] "
    "(for example http://localhost:11434/v1)"
)
"""Human-readable list of the endpoint forms `validate_endpoint` accepts (quoted in its errors)."""

_SECURE_SCHEMES = frozenset({"https", "wss"})
_CLEARTEXT_SCHEMES = frozenset({"http", "ws"})
_LOOPBACK_V4 = ipaddress.IPv4Network("127.0.0.0/8")
_LOOPBACK_V6 = ipaddress.IPv6Address("::1")
# "scheme://user:password@host" -> keep the user, hide the password (also in malformed values).
_PASSWORD_IN_URL = re.compile(r"(?P<head>^[^/]*//[^/@:]*:)(?P<password>[^/@]*)@")


def _mask_password(value: str) -> str:
    return _PASSWORD_IN_URL.sub(lambda m: f"{m.group('head')}***@", value, count=1)


def is_loopback_host(host: str) -> bool:
    """True for ``localhost`` (also written ``localhost.``, the same name fully qualified) and loopback
    IP literals (127.0.0.0/8, ::1); False for any other name."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False  # a DNS name other than localhost: it may resolve anywhere
    if isinstance(address, ipaddress.IPv4Address):
        return address in _LOOPBACK_V4
    return address == _LOOPBACK_V6


def _refusal(value: str) -> str | None:
    """Why ``value`` is refused, or None when it is acceptable."""
    if not value.strip():
        return "it is empty"
    if any(ch.isspace() or ord(ch) < 32 for ch in value):
        return "it contains whitespace or control characters"
    parts = urlsplit(value)
    scheme = parts.scheme.lower()
    if scheme not in _SECURE_SCHEMES | _CLEARTEXT_SCHEMES:
        shown = f"scheme {parts.scheme!r}" if parts.scheme else "no scheme"
        return f"it has {shown}; only https, wss, and http/ws on loopback are allowed"
    if not value[len(parts.scheme) :].startswith("://"):
        return f"it does not start with '{scheme}://'"
    try:
        host = parts.hostname
        _ = parts.port  # raises ValueError on a non-numeric or out-of-range port
    except ValueError as exc:
        return f"it has an invalid host or port ({exc})"
    if not host:
        return "it names no host"
    if scheme in _CLEARTEXT_SCHEMES and not is_loopback_host(host):
        return (
            f"{scheme}:// would send prompts in cleartext to {host!r}, which is not a loopback address "
            "(private-network addresses are refused too)"
        )
    return None


def validate_endpoint(value: object, *, parameter: str) -> str:
    """Check that an endpoint URL may carry prompts, and return it unchanged.

    Accepted: ``https://`` and ``wss://`` for any host; ``http://`` and ``ws://`` only when the host is
    ``localhost`` (``localhost.`` too) or a loopback literal (``127.0.0.0/8``, ``::1``). Everything else (other hosts in
    cleartext, private-range addresses, misspelt or missing schemes, URLs without a host) raises
    ``ValueError`` naming ``parameter``, the value with any password masked, and the accepted forms.
    """
    if not isinstance(value, str):
        raise ValueError(
            f"{parameter} must be a URL string, got {type(value).__name__}. Accepted forms: {ACCEPTED_ENDPOINT_FORMS}."
        )
    reason = _refusal(value)
    if reason is not None:
        raise ValueError(
            f"{parameter}={_mask_password(value)!r} is refused: {reason}. "
            f"Accepted forms: {ACCEPTED_ENDPOINT_FORMS}."
        )
    return value
