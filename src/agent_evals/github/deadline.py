"""Total deadlines of GitHub operations: when one must end, and a body read that cannot outlast it."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agent_evals.errors import GitHubError, GitHubUnavailableError

if TYPE_CHECKING:
    import requests

DEFAULT_DEADLINE_S = 60.0
"""The default bound of one GitHub operation, and of the whole baseline lookup (``--github-deadline-s``)."""
READ_CHUNK = 1 << 16


class GitHubDeadlineError(GitHubUnavailableError):
    """An operation did not finish within its deadline: a host that stalled, trickled or never answered."""


class BodyTooLargeError(GitHubError):
    """A download is larger than its cap: GitHub answered, and what it holds cannot be used."""


@dataclass(frozen=True)
class Deadline:
    """When an operation must be over (``at`` on a monotonic clock), and what it bounds."""

    at: float
    """The monotonic time it ends."""
    total_s: float
    """Its whole length, for messages."""
    scope: str
    """What it bounds (``the call``, ``the download``, ``the baseline lookup``)."""

    def left(self, now: float) -> float:
        """Seconds left at ``now`` (zero or less once passed)."""
        return self.at - now

    def error(self, operation: str, url: str, why: str) -> GitHubDeadlineError:
        """The error that ends ``operation`` on ``url``'s host: names the host, what timed out, the bound."""
        host = urlsplit(url).netloc or url
        return GitHubDeadlineError(
            f"GitHub did not finish {operation} from {host} within {self.total_s:g} s ({why}; {self.scope} "
            "did not finish in time); re-run the job, or raise --github-deadline-s (action input "
            "github-deadline-s)",
            endpoint=operation,
        )


def earliest(*deadlines: Deadline | None) -> Deadline | None:
    """The deadline that ends first (None when there is none)."""
    present = [d for d in deadlines if d is not None]
    return min(present, key=lambda d: d.at) if present else None


def read_body(
    response: requests.Response,
    *,
    max_bytes: int | None,
    where: str,
    deadline: Deadline | None,
    monotonic: Callable[[], float],
    read_timeout: float,
    operation: str,
) -> bytes:
    """The whole body of a streamed ``response``, read in chunks as they arrive; GitHubDeadlineError as
    soon as ``deadline`` passes (a body that trickles cannot outlast it), GitHubError past ``max_bytes``.

    Each read waits for the socket at most ``read_timeout`` or what is left, whichever is shorter."""
    import requests as requests_lib
    import urllib3.exceptions

    url = str(response.url or where)
    chunks: list[bytes] = []
    total = 0
    try:
        while True:
            left = deadline.left(monotonic()) if deadline is not None else read_timeout
            if left <= 0 and deadline is not None:
                raise deadline.error(operation, url, f"the body stopped after {total} bytes")
            _set_socket_timeout(response, max(0.01, min(read_timeout, left)))
            try:
                chunk = _read_some(response)
            except (
                urllib3.exceptions.HTTPError,
                requests_lib.RequestException,
                OSError,
            ) as exc:
                if deadline is not None and deadline.left(monotonic()) <= 0.05:
                    raise deadline.error(operation, url, f"the body stopped after {total} bytes") from exc
                raise GitHubUnavailableError(
                    f"{operation}: the connection to {urlsplit(url).netloc or url} broke while reading the "
                    f"body ({type(exc).__name__}); re-run the job",
                    endpoint=operation,
                ) from exc
            if not chunk:
                break
            total += len(chunk)
            if max_bytes is not None and total > max_bytes:
                raise BodyTooLargeError(
                    f"download of {where} exceeds {max_bytes} bytes; refusing to read further", endpoint=where
                )
            chunks.append(chunk)
    finally:
        response.close()
    return b"".join(chunks)


def _read_some(response: requests.Response) -> bytes:
    """What the socket has now (at least one byte, or b"" at the end), decoded."""
    raw: Any = response.raw
    if hasattr(raw, "read1"):
        return bytes(raw.read1(READ_CHUNK, decode_content=True))
    return bytes(raw.read(READ_CHUNK, decode_content=True))  # a test double or an older urllib3


def _set_socket_timeout(response: requests.Response, seconds: float) -> None:
    """Shorten the per-read socket timeout to what is left (best effort: a private path of urllib3)."""
    connection = getattr(response.raw, "_connection", None) or getattr(response.raw, "connection", None)
    sock = getattr(connection, "sock", None)
    if sock is not None and hasattr(sock, "settimeout"):
        with contextlib.suppress(OSError):
            sock.settimeout(seconds)
