"""A small GitHub REST client: timeouts, deadlines, retries with backoff, rate limits, pagination, redirects."""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agent_evals.errors import GitHubError, GitHubUnavailableError
from agent_evals.github.answers import http_error, unusable
from agent_evals.github.deadline import Deadline, earliest, read_body

if TYPE_CHECKING:
    import requests

log = logging.getLogger(__name__)

API_VERSION = "2022-11-28"
RETRY_STATUSES = frozenset({500, 502, 503, 504})
WRITE_METHODS = frozenset({"POST", "PATCH", "PUT", "DELETE"})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
PAGE_LIMIT = 100
"""The most pages ``paginate`` reads (10,000 items at 100 a page) before it calls a listing endless."""


class GitHubClient:
    """Calls the GitHub REST API through an injected ``requests.Session``.

    Every call has a timeout. 5xx answers and network errors are retried with jittered exponential
    backoff (``max_retries`` times); rate-limited answers (403/429) wait for ``retry-after`` or, when
    ``x-ratelimit-remaining`` is 0, until ``x-ratelimit-reset``. Content-creating calls
    (POST/PATCH/PUT/DELETE) are serialized, as GitHub's secondary rate limits ask.

    With ``deadline_s`` every operation (a call with its redirects, retries and waits, or a download
    with its body) ends within that many seconds however slowly the host answers: a stall, a body that
    trickles, or a ``Retry-After`` longer than what is left ends it at once with GitHubDeadlineError (a
    GitHubUnavailableError). ``within()`` puts several operations under one overall deadline. An answer
    ``requests`` cannot use (a redirect loop, a Location it cannot parse, a body it cannot decode) is a
    GitHubUnavailableError at once, naming the endpoint.
    See https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api
    """

    def __init__(
        self,
        session: requests.Session,
        *,
        api_url: str,
        token: str | None,
        timeout: float = 30.0,
        max_retries: int = 3,
        backoff_s: float = 1.0,
        max_wait_s: float = 900.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        jitter: Callable[[], float] = random.random,
        user_agent: str = "agent-evals",
        deadline_s: float | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._session = session
        self.api_url = api_url.rstrip("/")
        self.__token = token
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_wait_s = max_wait_s
        self._sleep = sleep
        self._clock = clock
        self._jitter = jitter
        self._user_agent = user_agent
        self._write_lock = threading.Lock()
        self.deadline_s = deadline_s
        self._monotonic = monotonic
        self._overall = threading.local()

    def __repr__(self) -> str:
        return f"GitHubClient(api_url={self.api_url!r}, token={'set' if self.__token else 'unset'})"

    # -- public calls -------------------------------------------------------------------------

    @contextmanager
    def within(self, seconds: float | None, scope: str) -> Iterator[None]:
        """Run the block's operations under one overall deadline of ``seconds`` (None: none), named
        ``scope`` in messages; an inner block never extends an outer one."""
        with self._under(
            Deadline(self._monotonic() + seconds, seconds, scope) if seconds is not None else None
        ):
            yield

    @contextmanager
    def _under(self, deadline: Deadline | None) -> Iterator[None]:
        outer: Deadline | None = getattr(self._overall, "deadline", None)
        self._overall.deadline = earliest(outer, deadline)
        try:
            yield
        finally:
            self._overall.deadline = outer

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json_body: Any = None,
        permission: str | None = None,
        allow_redirects: bool = True,
        accept: str = "application/vnd.github+json",
    ) -> requests.Response:
        """Call ``path`` (relative to the API root, or an absolute URL on it); raise GitHubError on failure.

        Reads follow redirects when ``allow_redirects``; writes never do (a 3xx is a GitHubError).
        ``accept`` picks a media type (``application/vnd.github.raw+json`` for a file's bytes).
        """
        url = self._api_url_for(path)
        headers = {
            "Accept": accept,
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": self._user_agent,
        }
        if self.__token:
            headers["Authorization"] = f"Bearer {self.__token}"
        endpoint = f"{method.upper()} {urlsplit(url).path}"
        deadline = self._deadline("the call")
        if method.upper() in WRITE_METHODS:
            # A write is never sent on to another URL (requests would re-send a 307's body there), and
            # a POST that may have landed is never re-sent: the caller re-reads instead.
            with self._write_lock:
                response = self._send(
                    method, url, endpoint, headers, params, json_body, False,
                    retry=method.upper() != "POST", deadline=deadline,
                )  # fmt: skip
            if response.status_code in REDIRECT_STATUSES:
                response.close()
                where = urlsplit(response.headers.get("Location") or "").netloc or "another URL"
                raise GitHubError(
                    f"GitHub API {endpoint} answered HTTP {response.status_code}, a redirect to {where}; "
                    "writes are not sent on to another URL. Check GITHUB_API_URL and the repository "
                    "name (a renamed or moved repository redirects), then re-run",
                    status=response.status_code,
                    endpoint=endpoint,
                )
        else:
            response = self._send(
                method, url, endpoint, headers, params, json_body, allow_redirects, deadline=deadline
            )
        if response.status_code >= 400:
            raise self._error(endpoint, response, permission)
        return response

    def get_json(
        self, path: str, *, params: Mapping[str, Any] | None = None, permission: str | None = None
    ) -> Any:
        """GET ``path`` and decode its JSON body."""
        return _json(self.request("GET", path, params=params, permission=permission), f"GET {path}")

    @property
    def graphql_url(self) -> str:
        """GitHub's GraphQL endpoint beside this REST root: ``<root>/graphql`` (api.github.com, GHE.com),
        ``/api/graphql`` on GitHub Enterprise Server, whose REST root is ``/api/v3``."""
        root = self.api_url.removesuffix("/api/v3")
        return f"{root}/api/graphql" if root != self.api_url else f"{root}/graphql"

    def graphql(self, query: str) -> dict[str, Any]:
        """POST a read-only GraphQL ``query`` and return its ``data``; GitHubError when it has none."""
        where = "POST /graphql"
        body = _json(self.request("POST", self.graphql_url, json_body={"query": query}), where)
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, dict):
            errors = body.get("errors") if isinstance(body, dict) else None
            raise GitHubError(f"GitHub API {where} answered no data: {str(errors)[:300]}", endpoint=where)
        return data

    def paginate(
        self,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        item_key: str | None = None,
        permission: str | None = None,
        max_pages: int | None = None,
        page_limit: int = PAGE_LIMIT,
    ) -> Iterator[dict[str, Any]]:
        """Yield the items of every page, following ``Link: <...>; rel="next"`` headers.

        ``item_key`` names the list inside an object page (``workflow_runs``, ``artifacts``);
        without it each page is a JSON list. ``max_pages`` stops quietly after that many pages (a
        caller that wants only the newest items); stop early by leaving the loop. Otherwise every page
        is read, up to ``page_limit``: a listing that goes on past it, or whose ``next`` link points
        back to a page already read, is GitHubUnavailableError naming the endpoint and the limit,
        never a list cut short in silence (a caller looking for one item would wrongly miss it).
        """
        endpoint = f"GET {path}"
        next_url: str | None = path
        query: Mapping[str, Any] | None = {"per_page": 100, **(params or {})}
        pages = 0
        read: set[str] = set()
        while next_url and (max_pages is None or pages < max_pages):
            if pages >= page_limit:
                raise GitHubUnavailableError(
                    f"GitHub API {endpoint} goes on past {page_limit} pages (the most read, of 100 items "
                    "each); stopped rather than act on part of the list. Check GITHUB_API_URL and any "
                    "proxy in front of GitHub, then re-run the job",
                    endpoint=endpoint,
                )
            response = self.request("GET", next_url, params=query, permission=permission)
            pages += 1
            read.update((next_url, str(response.url)))
            body = _json(response, endpoint)
            items = body.get(item_key) if item_key and isinstance(body, dict) else body
            if not isinstance(items, list):
                raise GitHubUnavailableError(
                    f"GitHub API GET {path} answered a page that is not the shape GitHub documents "
                    f"(expected a list{f' under {item_key!r}' if item_key else ''}); re-run the job",
                    status=response.status_code,
                    endpoint=endpoint,
                )
            yield from (item for item in items if isinstance(item, dict))
            next_url = response.links.get("next", {}).get("url")
            query = None  # the next link carries the whole query string
            if next_url in read:
                raise GitHubUnavailableError(
                    f"GitHub API {endpoint}: page {pages} links as next to a page already read "
                    f"({urlsplit(next_url).path}?{urlsplit(next_url).query}), so the listing would never "
                    "end; stopped rather than act on part of the list. Check any proxy in front of "
                    "GitHub, then re-run the job",
                    endpoint=endpoint,
                )

    def download(
        self,
        path: str,
        *,
        permission: str | None = None,
        max_bytes: int,
        deadline_s: float = 600.0,
        max_url_renewals: int = 2,
        what: str | None = None,
    ) -> bytes:
        """GET a file that the API serves as a redirect to another host (artifact zips, logs).

        The redirect is followed by hand and WITHOUT the Authorization header: the target is a
        pre-signed storage URL, and the token must never reach another host. A 403 from the storage
        host means the signed URL expired (it lives about a minute): the API is asked for a fresh one,
        up to ``max_url_renewals`` times. The whole download, renewals included, must finish within
        ``deadline_s`` seconds (and the client's own deadlines); ``what`` names it in messages.
        """
        operation = what or f"the download of {path}"
        deadline = earliest(
            self._deadline("the download"),
            Deadline(self._monotonic() + deadline_s, deadline_s, "the download"),
        )
        assert deadline is not None
        renewals = 0
        while True:
            with self._under(deadline):
                response = self.request("GET", path, permission=permission, allow_redirects=False)
            if response.status_code not in REDIRECT_STATUSES:
                return self._read(response, deadline, operation, max_bytes, path)
            location = response.headers.get("Location")
            response.close()
            if not location or urlsplit(location).scheme not in ("http", "https"):
                raise GitHubError(
                    f"GitHub API GET {path} redirected to an unusable location; re-run the job",
                    status=response.status_code,
                    endpoint=path,
                )
            endpoint = f"GET {urlsplit(location).netloc}{urlsplit(location).path}"
            response = self._send(
                "GET", location, endpoint, {"User-Agent": self._user_agent}, None, None, True,
                stream=True, deadline=deadline, operation=operation,
            )  # fmt: skip
            if (
                response.status_code == 403
                and renewals < max_url_renewals
                and deadline.left(self._monotonic()) > 0
            ):
                response.close()
                renewals += 1
                log.info(
                    "%s: the signed storage URL was refused (HTTP 403); asking for a fresh one", endpoint
                )
                continue
            if response.status_code >= 400:
                response.close()
                raise GitHubUnavailableError(
                    f"{endpoint} (the artifact storage host) failed with HTTP {response.status_code} "
                    f"after {renewals} fresh signed URL(s); re-run the job",
                    status=response.status_code,
                    endpoint=endpoint,
                )
            return self._read(response, deadline, operation, max_bytes, path)

    # -- internals ----------------------------------------------------------------------------

    def _deadline(self, scope: str) -> Deadline | None:
        """The deadline of an operation starting now: the overall one, or the client's own, whichever is
        first (None when neither is set)."""
        own = self.deadline_s
        return earliest(
            getattr(self._overall, "deadline", None),
            Deadline(self._monotonic() + own, own, scope) if own is not None else None,
        )

    def _read(
        self, response: requests.Response, deadline: Deadline, operation: str, max_bytes: int, where: str
    ) -> bytes:
        return read_body(
            response, max_bytes=max_bytes, where=where, deadline=deadline, monotonic=self._monotonic,
            read_timeout=self.timeout, operation=operation,
        )  # fmt: skip

    def _read_into(self, response: requests.Response, deadline: Deadline, operation: str) -> None:
        """Read a streamed answer's body within ``deadline`` and keep it on the response (``.json()``)."""
        body = read_body(
            response, max_bytes=None, where=operation, deadline=deadline, monotonic=self._monotonic,
            read_timeout=self.timeout, operation=operation,
        )  # fmt: skip
        response._content = body
        setattr(response, "_content_consumed", True)  # noqa: B010  # requests keeps it private

    def _api_url_for(self, path: str) -> str:
        if path.startswith(("http://", "https://")):
            if not path.startswith(self.api_url + "/") and path != self.graphql_url:
                raise GitHubError(f"refusing to send the token to a URL outside {self.api_url}: {path}")
            return path
        return f"{self.api_url}/{path.lstrip('/')}"

    def _send(
        self,
        method: str,
        url: str,
        endpoint: str,
        headers: Mapping[str, str],
        params: Mapping[str, Any] | None,
        json_body: Any,
        allow_redirects: bool,
        *,
        stream: bool = False,
        retry: bool = True,
        deadline: Deadline | None = None,
        operation: str | None = None,
    ) -> requests.Response:
        """Send with retries; ``retry=False`` retries only answers that say nothing was done (rate limits).

        Under a ``deadline`` every attempt, wait and body read fits in what is left: the body is read
        here in chunks (unless ``stream``: then only an error's body is), and a wait longer than what is
        left ends the operation now (GitHubDeadlineError naming ``operation`` and the host)."""
        import requests

        operation = operation or f"the API call {endpoint}"
        attempt = 0
        while True:
            timeout = self._timeout_within(deadline, operation, url, attempt)
            try:
                response = self._session.request(
                    method,
                    url,
                    params=params,
                    json=json_body,
                    headers=dict(headers),
                    timeout=timeout,
                    allow_redirects=allow_redirects,
                    stream=stream or deadline is not None,
                )
                if deadline is not None and (not stream or response.status_code >= 400):
                    self._read_into(response, deadline, operation)
            except (
                requests.ConnectionError,
                requests.Timeout,
                requests.exceptions.ChunkedEncodingError,
            ) as exc:
                if deadline is not None and (
                    deadline.left(self._monotonic()) <= 0.05
                    or (timeout < self.timeout and isinstance(exc, requests.Timeout))
                ):
                    raise deadline.error(operation, url, "no answer") from exc
                # A request that may have reached the server is not re-sent unless it is safe to repeat.
                resend = retry or isinstance(exc, requests.ConnectTimeout)
                if attempt >= self.max_retries or not resend:
                    raise GitHubUnavailableError(
                        f"GitHub API {endpoint}: network error after {attempt + 1} attempts "
                        f"({type(exc).__name__}); check connectivity to {urlsplit(url).netloc} and re-run",
                        endpoint=endpoint,
                    ) from exc
                why = f"network error ({type(exc).__name__})"
                self._wait(self._backoff(attempt), endpoint, why, deadline, operation, url)
                attempt += 1
                continue
            except (requests.RequestException, ValueError) as exc:  # a redirect loop, a bad URL or body
                raise unusable(endpoint, url, exc) from exc
            log.debug("%s -> %s", endpoint, response.status_code)
            wait = self._retry_wait(response, attempt)
            if not retry and response.status_code in RETRY_STATUSES:
                wait = None  # a 5xx after a write may mean the write landed
            if wait is None or attempt >= self.max_retries:
                return response
            if wait > self.max_wait_s:
                return response  # a reset too far away: report the rate limit instead of hanging
            response.close()
            self._wait(wait, endpoint, f"HTTP {response.status_code}", deadline, operation, url)
            attempt += 1

    def _timeout_within(self, deadline: Deadline | None, operation: str, url: str, attempt: int) -> float:
        """The socket timeout of the next attempt: the client's, or what is left of ``deadline``."""
        if deadline is None:
            return self.timeout
        left = deadline.left(self._monotonic())
        if left <= 0:
            raise deadline.error(operation, url, f"after {attempt} attempt(s)")
        return min(self.timeout, left)

    def _retry_wait(self, response: requests.Response, attempt: int) -> float | None:
        status = response.status_code
        if status in RETRY_STATUSES:
            return self._backoff(attempt)
        if status not in (403, 429):
            return None
        retry_after = response.headers.get("retry-after")
        if retry_after is not None:
            try:
                return max(0.0, float(retry_after))
            except ValueError:
                return 60.0
        if response.headers.get("x-ratelimit-remaining") == "0":
            reset = response.headers.get("x-ratelimit-reset")
            try:
                return max(0.0, float(reset or 0) - self._clock()) + 1.0
            except ValueError:
                return 60.0
        if status == 429 or "secondary rate limit" in response.text.lower():
            return 60.0  # GitHub: "wait at least one minute" when no header says how long
        return None

    def _backoff(self, attempt: int) -> float:
        return float(self.backoff_s * (2**attempt) * (0.5 + self._jitter()))

    def _wait(
        self,
        seconds: float,
        endpoint: str,
        why: str,
        deadline: Deadline | None = None,
        operation: str = "",
        url: str = "",
    ) -> None:
        if deadline is not None and seconds >= deadline.left(self._monotonic()):
            raise deadline.error(
                operation, url, f"{why}: a wait of {seconds:g} s is longer than what is left"
            )
        log.info("GitHub API %s: %s; retrying in %.1fs", endpoint, why, seconds)
        self._sleep(seconds)

    def _error(self, endpoint: str, response: requests.Response, permission: str | None) -> GitHubError:
        return http_error(endpoint, response, permission, token=self.__token, max_retries=self.max_retries)


def _json(response: requests.Response, where: str) -> Any:
    """The decoded JSON body; an answer that is not JSON (a proxy's or an outage's HTML page) is no usable
    answer: GitHubUnavailableError naming the endpoint and the status."""
    try:
        return response.json()
    except ValueError as exc:
        kind = (response.headers.get("Content-Type") or "no content type").split(";")[0]
        raise GitHubUnavailableError(
            f"GitHub API {where} answered HTTP {response.status_code} with a body that is not JSON ({kind}); "
            "a proxy or an outage page may stand in front of GitHub: re-run the job",
            status=response.status_code,
            endpoint=where,
        ) from exc
