"""What a failed GitHub answer means: the error, with its HTTP status, endpoint and what to do."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from agent_evals.errors import GitHubError, GitHubPermissionError, GitHubUnavailableError

if TYPE_CHECKING:
    import requests


def http_error(
    endpoint: str, response: requests.Response, permission: str | None, *, token: str | None, max_retries: int
) -> GitHubError:
    """The error for an answer of HTTP 400 or more: a permission (403), an unavailability (5xx, a rate
    limit) or another failure; the API's message is quoted with ``token`` masked."""
    status = response.status_code
    api_message = api_message_of(response)
    if token:
        api_message = api_message.replace(token, "***")
    base = f"GitHub API {endpoint} failed with HTTP {status}" + (f": {api_message}" if api_message else "")
    if status == 401:
        hint = "the token is missing or invalid; pass --github-token or set GITHUB_TOKEN"
    elif status == 403 and rate_limited(response):
        hint = "rate limited for too long; wait for the limit to reset and re-run"
    elif status == 403:
        need = f"the `{permission}` permission" if permission else "a permission this call needs"
        hint = (
            f"the token lacks {need}; add `permissions: {{{permission or '...'}}}` to the job "
            "(a pull request from a fork gets a read-only token)"
        )
        return GitHubPermissionError(f"{base}; {hint}", status=status, endpoint=endpoint)
    elif status == 404:
        hint = "not found; check the repository, workflow and artifact names" + (
            f", and that the token has `{permission}` (GitHub answers 404 when it may not see a resource)"
            if permission
            else ""
        )
    elif status == 410:
        hint = "the resource is gone (expired or deleted)"
    elif status == 429:
        hint = "rate limited; wait and re-run"
    elif status >= 500:
        hint = f"GitHub is having trouble (gave up after {max_retries} retries); re-run the job later"
    else:
        hint = "check the request's inputs"
    if status >= 500 or status in (403, 429):  # 403 here is a rate limit (a permission returned above)
        return GitHubUnavailableError(f"{base}; {hint}", status=status, endpoint=endpoint)
    return GitHubError(f"{base}; {hint}", status=status, endpoint=endpoint)


def rate_limited(response: requests.Response) -> bool:
    """True when a refusal says it is a rate limit (a header or the message), not a permission."""
    return (
        "retry-after" in response.headers
        or response.headers.get("x-ratelimit-remaining") == "0"
        or "rate limit" in response.text.lower()
    )


def api_message_of(response: requests.Response) -> str:
    """The ``message`` of an error body (at most 300 characters), or empty."""
    try:
        body = response.json()
    except ValueError:
        return ""
    message = body.get("message") if isinstance(body, dict) else None
    return str(message)[:300] if message else ""


def unusable(endpoint: str, url: str, exc: Exception) -> GitHubUnavailableError:
    """The error for a call ``requests`` gave up on without a usable answer (a redirect loop, a URL it
    cannot send or parse, a body it cannot decode): not retried, since the same request would fail the
    same way."""
    from requests import exceptions as failed

    host = urlsplit(url).netloc or url
    if isinstance(exc, failed.TooManyRedirects):
        what = "was redirected too many times (a redirect loop)"
        todo = f"check GITHUB_API_URL and any proxy in front of {host}, then re-run the job"
    elif isinstance(exc, (failed.InvalidURL, failed.InvalidSchema, failed.MissingSchema)):
        what = "was sent to a URL that cannot be requested (GITHUB_API_URL, or where an answer redirected)"
        todo = "check GITHUB_API_URL, then re-run the job"
    else:
        what = f"got an answer from {host} that could not be read"
        todo = "re-run the job"
    return GitHubUnavailableError(
        f"GitHub API {endpoint} {what} ({type(exc).__name__}); {todo}", endpoint=endpoint
    )
