"""A loopback GitHub REST server (Actions runs/artifacts, compare, comments, labels, pulls, commit
statuses) with a zip host.

It answers as GitHub's OpenAPI description says (statuses, required fields and headers vendored in
github_api_facts.json): ``Link`` pagination, ``x-ratelimit-*`` headers, artifact zips as a 302 to a
second host:port, 410 for expired artifacts, 403 "Resource not accessible by integration" for
read-only tokens and for ``GET /user`` with an installation token (the Actions token or a GitHub App's),
whose comments carry the app's bot user, which GraphQL's ``viewer`` names. It records every request header
and every answer, and scripts faults: any status (with ``land=True`` the write happens first, as a
5xx after a landed write does), 307 redirects, storage URLs that expire (403 from the zip host),
delays that widen race windows, comments by other authors, and slow hosts (``Slow``: a body that
trickles after its headers, or a connection accepted and never answered) on the API or the zip host.
"""

from __future__ import annotations

import base64
import io
import json
import re
import threading
import time
import zipfile
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

from servers import github_objects as objects

TOKEN = "ghs_loopbackTOKEN0123456789abcdef"


def record_document(outcomes: tuple[bool, ...] = (True, True, False)) -> dict[str, Any]:
    """A small valid run record: one benchmark suite whose cases pass or fail as given."""
    return {
        "schema": "agent-evals/run@1",
        "run": {"tool_version": "0.1.0", "started_at": "2026-01-01T00:00:00Z"},
        "suites": [
            {
                "id": "demo",
                "kind": "benchmark",
                "source": "demo.yaml",
                "cases": [
                    {"id": f"cap/c{i}", "group": "cap", "trials": [{"passed": passed}]}
                    for i, passed in enumerate(outcomes)
                ],
            }
        ],
    }


def make_zip(files: dict[str, bytes | str], *, symlinks: tuple[str, ...] = ()) -> bytes:
    """A zip archive holding ``files``; names in ``symlinks`` are stored as Unix symbolic links."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, content in files.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if name in symlinks:
                info.create_system = 3
                info.external_attr = (0o120777 << 16) & 0xFFFF0000
            zf.writestr(info, content)
    return buf.getvalue()


def record_zip(doc: dict[str, Any] | None = None, name: str = "run.json") -> bytes:
    """A baseline artifact zip holding one run record."""
    return make_zip({name: json.dumps(doc or record_document())})


@dataclass
class Fault:
    """A scripted answer for requests matching ``method`` and the ``path`` regex (``times`` uses).

    With ``land`` the request is first handled as usual (a write lands) and the fault answers after,
    as a 5xx or a dropped connection after a committed write does on GitHub.
    """

    method: str
    path: str
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    times: int = 1
    delay_s: float = 0.0
    """Wait this long before answering (to exercise client timeouts)."""
    land: bool = False
    """Perform the real request first, then answer with the fault."""


@dataclass
class Delay:
    """Hold requests matching ``method`` and ``path`` for ``seconds`` before handling (widens races)."""

    method: str
    path: str
    seconds: float


@dataclass
class Slow:
    """Answer requests to ``host`` (``api`` or ``zip``) matching ``method`` and the ``path`` regex slowly,
    as a real slow server does (``times`` uses).

    ``stall``: the connection is accepted and the request read, then nothing is ever sent (until the
    server shuts down). Otherwise the status and headers (with the true ``Content-Length``) go at once
    and the body trickles ``chunk`` bytes every ``every_s`` seconds.
    """

    path: str
    host: str = "api"
    method: str = "GET"
    stall: bool = False
    chunk: int = 1
    every_s: float = 2.0
    times: int = 1


@dataclass
class Seen:
    """One request the server received, with every header, and the answer it got."""

    host: str
    method: str
    path: str
    query: dict[str, list[str]]
    authorization: str | None
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    """Every request header, names lower-cased."""
    status: int | None = None
    """The status answered."""
    response_headers: dict[str, str] = field(default_factory=dict)
    """The headers answered."""
    response: Any = None
    """The JSON body answered."""
    scripted: bool = False
    """True when a Fault produced the answer."""


@dataclass
class GitHubState:
    """Everything the server knows; tests script it directly."""

    repo: str = "octo/demo"
    token: str | None = TOKEN
    login: str | None = None
    """A person's token (a PAT): ``GET /user`` answers 200 with this login and the token's comments
    carry it. None: an installation token, for which ``GET /user`` answers 403 "Resource not accessible
    by integration" and comments carry the app's bot user (``app_slug``)."""
    app_slug: str = "github-actions"
    """The app of an installation token (``login`` None): ``github-actions`` is the Actions
    ``GITHUB_TOKEN``; another slug is a GitHub App's installation token. Its comments are written by
    ``<slug>[bot]`` (a ``Bot`` user) and name the app in ``performed_via_github_app``; GraphQL's
    ``viewer`` is that bot user."""
    default_branch: str = "main"
    read_only: bool = False
    runs: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    artifacts: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    blobs: dict[int, bytes] = field(default_factory=dict)
    merge_bases: dict[str, tuple[str, str]] = field(default_factory=dict)
    pulls: dict[int, dict[str, Any]] = field(default_factory=dict)
    labels: dict[int, list[str]] = field(default_factory=dict)
    """Live labels per issue/pull request number (``GET .../issues/{n}/labels``)."""
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    statuses: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Commit statuses per commit SHA, oldest first (``POST .../statuses/{sha}``)."""
    faults: list[Fault] = field(default_factory=list)
    delays: list[Delay] = field(default_factory=list)
    slow: list[Slow] = field(default_factory=list)
    """Slow answers (trickling bodies, stalls) of either host."""
    stopping: threading.Event = field(default_factory=threading.Event)
    """Set when the server shuts down: ends every stall and trickle."""
    expire_storage_urls: int = 0
    """The zip host answers this many downloads with 403 (the signed URL expired) before serving."""
    storage_delay_s: float = 0.0
    branches: dict[str, dict[str, bytes]] = field(default_factory=dict)
    """Files per ref, for the contents API: a branch name (a data branch) or a commit sha (``?ref=`` takes either)."""
    ignore_run_filters: bool = False
    """The workflow-runs listing ignores its branch/event/status query (a client must re-check)."""
    """The zip host waits this long before each answer."""
    seen: list[Seen] = field(default_factory=list)
    zip_seen: list[Seen] = field(default_factory=list)
    next_id: int = 1000
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def author(self) -> str:
        """The login comments written with the token carry."""
        return self.login or f"{self.app_slug}[bot]"

    def new_id(self) -> int:
        """A fresh id for runs, artifacts and comments."""
        with self.lock:
            self.next_id += 1
            return self.next_id

    def add_run(
        self,
        *,
        workflow: str = "baseline.yml",
        head_sha: str,
        created_at: str,
        branch: str = "main",
        event: str = "push",
        conclusion: str = "success",
        artifact: bytes | None = None,
        artifact_name: str = "agent-evals-baseline",
        expired: bool = False,
        head_repo: str | None = None,
    ) -> int:
        """Add a completed workflow run, with an artifact zip when given; returns the run id."""
        run_id = self.new_id()
        self.runs.setdefault(workflow, []).append(
            objects.workflow_run(
                self.repo,
                run_id,
                workflow=workflow,
                head_sha=head_sha,
                created_at=created_at,
                branch=branch,
                event=event,
                conclusion=conclusion,
                head_repo=head_repo or self.repo,
            )
        )
        if artifact is not None:
            self.add_artifact(run_id, artifact, name=artifact_name, expired=expired)
        return run_id

    def add_artifact(self, run_id: int, data: bytes, *, name: str, expired: bool = False) -> int:
        """Attach an artifact zip to a run; returns the artifact id."""
        artifact_id = self.new_id()
        self.artifacts.setdefault(run_id, []).append(
            objects.artifact(self.repo, artifact_id, run_id, name=name, size=len(data), expired=expired)
        )
        self.blobs[artifact_id] = data
        return artifact_id

    def add_pull(
        self, number: int, *, head_sha: str, head_repo: str | None = None, labels: tuple[str, ...] = ()
    ) -> None:
        """Register a pull request (for ``GET /pulls/{n}``) and its live labels."""
        self.pulls[number] = objects.conform(
            {
                "number": number,
                "state": "open",
                "head": {"sha": head_sha, "ref": "feature", "repo": {"full_name": head_repo or self.repo}},
                "base": {"ref": self.default_branch, "repo": {"full_name": self.repo}},
            },
            "GET /repos/{owner}/{repo}/pulls/{pull_number}",
        )
        self.labels[number] = list(labels)

    def add_comment(self, number: int, body: str, *, login: str = "octocat") -> dict[str, Any]:
        """A comment written by someone else (a person quoting the marker, another bot)."""
        comment = objects.comment(self.repo, number, self.new_id(), body, login)
        with self.lock:
            self.comments.setdefault(number, []).append(comment)
        return comment

    def latest_status(self, sha: str, context: str) -> dict[str, Any] | None:
        """The newest status of ``context`` on ``sha`` (what branch protection reads), None when none."""
        found = [s for s in self.statuses.get(sha, []) if s["context"].lower() == context.lower()]
        return found[-1] if found else None

    def api_requests(self, method: str | None = None, contains: str = "") -> list[Seen]:
        """Recorded API requests, filtered by method and a path substring."""
        return [s for s in self.seen if (method is None or s.method == method) and contains in s.path]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def _dispatch(self, method: str) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        state = self.server.state
        seen = Seen(
            host=f"{self.server.server_address[0]}:{self.server.server_address[1]}",
            method=method,
            path=unquote(parts.path),
            query=parse_qs(parts.query),
            authorization=self.headers.get("Authorization"),
            body=body,
            headers={k.lower(): v for k, v in self.headers.items()},
        )
        with state.lock:
            (state.zip_seen if self.server.is_zip_host else state.seen).append(seen)
            slow = next(
                (
                    s
                    for s in state.slow
                    if s.host == ("zip" if self.server.is_zip_host else "api")
                    and s.method == method
                    and re.search(s.path, seen.path)
                    and s.times > 0
                ),
                None,
            )
            if slow is not None:
                slow.times -= 1
        self._slow = slow
        if slow is not None and slow.stall:
            seen.scripted = True
            state.stopping.wait(600)  # accepted, never answered
            self.close_connection = True
            return
        if self.server.is_zip_host:
            self._zip(seen)
            return
        for delay in state.delays:
            if delay.method == method and re.search(delay.path, seen.path):
                time.sleep(delay.seconds)
        with state.lock:
            fault = next(
                (
                    f
                    for f in state.faults
                    if f.method == method and re.search(f.path, seen.path) and f.times > 0
                ),
                None,
            )
            if fault is not None:
                fault.times -= 1
        if fault is not None and fault.land:
            self._answer(seen)  # the write happens; its answer is replaced by the fault
        if fault is not None:
            time.sleep(fault.delay_s)
            seen.scripted = True
            self._send(
                seen,
                fault.status,
                fault.body if fault.body is not None else {"message": "fault"},
                fault.headers,
            )
            return
        self._send(seen, *self._answer(seen))

    def _answer(self, seen: Seen) -> tuple[int, Any, dict[str, str]]:
        state = self.server.state
        if state.token is not None and seen.authorization != f"Bearer {state.token}":
            return 401, {"message": "Bad credentials"}, {}
        try:
            return self.server.api.route(seen.method, seen)
        except _NotFound:
            return 404, {"message": "Not Found"}, {}

    def _zip(self, seen: Seen) -> None:
        state = self.server.state
        time.sleep(state.storage_delay_s)
        match = re.fullmatch(r"/blob/(\d+)", seen.path)
        data = state.blobs.get(int(match.group(1))) if match else None
        with state.lock:
            expired = state.expire_storage_urls > 0
            state.expire_storage_urls -= 1 if expired else 0
        if data is None or not seen.query.get("sig", [""])[0].startswith("signed-") or expired:
            seen.status = 403
            body = b"<Error><Code>AuthenticationFailed</Code><Message>Signed expiry time has passed</Message></Error>"
            self.send_response(403)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        seen.status = 200
        self.send_response(200)
        self.send_header("Content-Type", "application/zip")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self._write_body(data)

    def _send(self, seen: Seen, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = (
            b"" if payload is None else payload if isinstance(payload, _Raw) else json.dumps(payload).encode()
        )
        merged: dict[str, str] = {
            "Content-Type": "application/json; charset=utf-8",
            "x-github-api-version-selected": "2022-11-28",
            "x-ratelimit-limit": "5000",
            "x-ratelimit-remaining": "4999",
            "x-ratelimit-reset": str(int(time.time()) + 3600),
            "x-ratelimit-used": "1",
            "x-ratelimit-resource": "core",
        }
        merged.update(headers or {})
        seen.status, seen.response_headers, seen.response = status, merged, payload
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        for name, value in merged.items():
            self.send_header(name, value)
        self.end_headers()
        self._write_body(data)

    def _write_body(self, data: bytes) -> None:
        """Send ``data``: at once, or trickled as this request's ``Slow`` says."""
        slow: Slow | None = getattr(self, "_slow", None)
        if slow is None or slow.stall:
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up before the answer
                self.close_connection = True
            return
        self.wfile.flush()
        stopping = self.server.state.stopping
        try:
            for start in range(0, len(data), max(1, slow.chunk)):
                if stopping.wait(slow.every_s):
                    break
                self.wfile.write(data[start : start + max(1, slow.chunk)])
                self.wfile.flush()
        except OSError:  # the client gave up and closed the connection
            pass
        self.close_connection = True


class _NotFound(Exception):
    pass


Route = tuple[int, Any, dict[str, str]]


class _Api:
    """The GitHub REST routes."""

    def __init__(self, server: GitHubServer) -> None:
        self.outer = server

    @property
    def state(self) -> GitHubState:
        return self.outer.state

    def route(self, method: str, seen: Seen) -> Route:
        repo = re.escape(self.state.repo)
        path = seen.path
        table: list[tuple[str, str, Any]] = [
            ("GET", r"/user", self._user),
            ("POST", r"/graphql", self._graphql),
            ("GET", rf"/repos/{repo}", self._repo),
            ("GET", rf"/repos/{repo}/actions/workflows/([^/]+)/runs", self._runs),
            ("GET", rf"/repos/{repo}/actions/runs/(\d+)", self._run),
            ("GET", rf"/repos/{repo}/actions/runs/(\d+)/artifacts", self._artifacts),
            ("GET", rf"/repos/{repo}/actions/artifacts/(\d+)/zip", self._artifact_zip),
            ("GET", rf"/repos/{repo}/compare/(.+)", self._compare),
            ("GET", rf"/repos/{repo}/pulls/(\d+)", self._pull),
            ("GET", rf"/repos/{repo}/commits/([^/]+)/pulls", self._commit_pulls),
            ("GET", rf"/repos/{repo}/issues/(\d+)/labels", self._labels),
            ("GET", rf"/repos/{repo}/issues/(\d+)/comments", self._list_comments),
            ("POST", rf"/repos/{repo}/issues/(\d+)/comments", self._create_comment),
            ("PATCH", rf"/repos/{repo}/issues/comments/(\d+)", self._update_comment),
            ("DELETE", rf"/repos/{repo}/issues/comments/(\d+)", self._delete_comment),
            ("POST", rf"/repos/{repo}/statuses/([^/]+)", self._create_status),
            ("GET", rf"/repos/{repo}/contents/(.+)", self._get_content),
            ("PUT", rf"/repos/{repo}/contents/(.+)", self._put_content),
            ("DELETE", rf"/repos/{repo}/contents/(.+)", self._delete_content),
        ]
        for verb, pattern, handler in table:
            match = re.fullmatch(pattern, path)
            if verb == method and match:
                result: Route = handler(seen, *match.groups())
                return result
        raise _NotFound

    def _page(self, seen: Seen, items: list[Any]) -> tuple[list[Any], dict[str, str]]:
        per_page = min(int(seen.query.get("per_page", ["30"])[0]), 100)
        page = int(seen.query.get("page", ["1"])[0])
        chunk = items[(page - 1) * per_page : page * per_page]
        last = max(1, -(-len(items) // per_page))
        links = []

        def link(n: int, rel: str) -> str:
            query = {k: v[0] for k, v in seen.query.items()}
            query["page"] = str(n)
            return f'<{self.outer.api_url}{seen.path}?{urlencode(query)}>; rel="{rel}"'

        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        if page > 1:
            links += [link(1, "first"), link(page - 1, "prev")]
        return chunk, ({"Link": ", ".join(links)} if links else {})

    def _forbidden(self, doc: str) -> Route:
        return (
            403,
            {"message": "Resource not accessible by integration", "documentation_url": doc, "status": "403"},
            {},
        )

    def _user(self, seen: Seen) -> Route:
        if self.state.login is None:
            return self._forbidden("https://docs.github.com/rest/users/users#get-the-authenticated-user")
        return 200, objects.conform(objects.user(self.state.login), "GET /user"), {}

    def _graphql(self, seen: Seen) -> Route:
        # https://docs.github.com/graphql/guides/forming-calls-with-graphql: POST {"query": ...}; the
        # answer is 200 with `data` (and `errors` for a query it cannot resolve). Only `viewer` is served.
        query = seen.body.get("query") if isinstance(seen.body, dict) else None
        if not isinstance(query, str) or not re.fullmatch(
            r"\s*(query\s*)?\{\s*viewer\s*\{\s*login\s*\}\s*\}\s*", query
        ):
            return 200, {"errors": [{"message": f"loopback serves only viewer {{ login }}: {query!r}"}]}, {}
        return 200, {"data": {"viewer": {"login": self.state.author}}}, {}

    def _repo(self, seen: Seen) -> Route:
        body = {"full_name": self.state.repo, "default_branch": self.state.default_branch}
        return 200, objects.conform(body, "GET /repos/{owner}/{repo}"), {}

    def _runs(self, seen: Seen, workflow: str) -> Route:
        if workflow not in self.state.runs:
            raise _NotFound
        q = {k: v[0] for k, v in seen.query.items() if not self.state.ignore_run_filters}
        runs = [
            r
            for r in self.state.runs[workflow]
            if ("branch" not in q or r["head_branch"] == q["branch"])
            and ("event" not in q or r["event"] == q["event"])
            and ("status" not in q or r["conclusion"] == q["status"] or r["status"] == q["status"])
        ]
        runs.sort(key=lambda r: r["created_at"], reverse=True)
        chunk, headers = self._page(seen, runs)
        return 200, {"total_count": len(runs), "workflow_runs": chunk}, headers

    def _run(self, seen: Seen, run_id: str) -> Route:
        for runs in self.state.runs.values():
            for run in runs:
                if run["id"] == int(run_id):
                    return 200, run, {}
        raise _NotFound

    def _artifacts(self, seen: Seen, run_id: str) -> Route:
        items = self.state.artifacts.get(int(run_id), [])
        name = seen.query.get("name", [None])[0]
        if name is not None:
            items = [a for a in items if a["name"] == name]
        chunk, headers = self._page(seen, items)
        return 200, {"total_count": len(items), "artifacts": chunk}, headers

    def _artifact_zip(self, seen: Seen, artifact_id: str) -> Route:
        for items in self.state.artifacts.values():
            for artifact in items:
                if artifact["id"] == int(artifact_id):
                    if artifact["expired"]:
                        return 410, {"message": "Artifact has expired"}, {}
                    sig = f"signed-{self.state.new_id()}"
                    location = f"{self.outer.zip_url}/blob/{artifact_id}?sig={sig}"
                    return 302, None, {"Location": location}
        raise _NotFound

    def _compare(self, seen: Seen, basehead: str) -> Route:
        if basehead not in self.state.merge_bases:
            raise _NotFound
        sha, date = self.state.merge_bases[basehead]
        body = {"status": "ahead", "merge_base_commit": {"sha": sha, "commit": {"committer": {"date": date}}}}
        return 200, objects.conform(body, "GET /repos/{owner}/{repo}/compare/{basehead}"), {}

    def _pull(self, seen: Seen, number: str) -> Route:
        if int(number) not in self.state.pulls:
            raise _NotFound
        pull = dict(self.state.pulls[int(number)])
        pull["labels"] = [objects.label(n, i) for i, n in enumerate(self.state.labels.get(int(number), []))]
        return 200, pull, {}

    def _commit_pulls(self, seen: Seen, sha: str) -> Route:
        # https://docs.github.com/rest/commits/commits#list-pull-requests-associated-with-a-commit: the
        # open and merged pull requests associated with the commit (here: those whose head it is), as a
        # paged list of pull-request-simple objects; a closed, unmerged one is not listed
        items = [
            objects.conform(dict(pull), "GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls")
            for _, pull in sorted(self.state.pulls.items())
            if pull["head"]["sha"] == sha and (pull["state"] == "open" or pull.get("merged_at"))
        ]
        chunk, headers = self._page(seen, items)
        return 200, chunk, headers

    def _labels(self, seen: Seen, number: str) -> Route:
        if int(number) not in self.state.labels:
            raise _NotFound
        names = self.state.labels[int(number)]
        chunk, headers = self._page(seen, [objects.label(n, i + 1) for i, n in enumerate(names)])
        return 200, chunk, headers

    def _list_comments(self, seen: Seen, number: str) -> Route:
        with self.state.lock:
            items = list(self.state.comments.get(int(number), []))
        chunk, headers = self._page(seen, items)
        return 200, chunk, headers

    def _create_comment(self, seen: Seen, number: str) -> Route:
        if self.state.read_only:
            return self._forbidden("https://docs.github.com/rest/issues/comments#create-an-issue-comment")
        comment = objects.comment(
            self.state.repo, int(number), self.state.new_id(), seen.body["body"], self.state.author
        )
        with self.state.lock:
            self.state.comments.setdefault(int(number), []).append(comment)
        return 201, comment, {"Location": comment["url"]}

    def _find_comment(self, comment_id: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        for items in self.state.comments.values():
            for comment in items:
                if comment["id"] == int(comment_id):
                    return items, comment
        raise _NotFound

    def _update_comment(self, seen: Seen, comment_id: str) -> Route:
        if self.state.read_only:
            return self._forbidden("https://docs.github.com/rest/issues/comments#update-an-issue-comment")
        with self.state.lock:
            _, comment = self._find_comment(comment_id)
            comment["body"] = seen.body["body"]
        return 200, comment, {}

    def _delete_comment(self, seen: Seen, comment_id: str) -> Route:
        if self.state.read_only:
            return self._forbidden("https://docs.github.com/rest/issues/comments#delete-an-issue-comment")
        with self.state.lock:
            items, comment = self._find_comment(comment_id)
            items.remove(comment)
        return 204, None, {}

    def _create_status(self, seen: Seen, sha: str) -> Route:
        # https://docs.github.com/rest/commits/statuses#create-a-commit-status: `state` is required and
        # one of error, failure, pending, success; GitHub answers 422 "Validation Failed" otherwise, for
        # a description over 140 characters, and for a SHA it has no commit for
        if self.state.read_only:
            return self._forbidden("https://docs.github.com/rest/commits/statuses#create-a-commit-status")
        body = seen.body if isinstance(seen.body, dict) else {}
        errors = []
        if body.get("state") not in ("error", "failure", "pending", "success"):
            errors.append({"resource": "Status", "field": "state", "code": "custom",
                           "message": "state is not included in the list"})  # fmt: skip
        description = body.get("description")
        if description is not None and (not isinstance(description, str) or len(description) > 140):
            errors.append({"resource": "Status", "field": "description", "code": "custom",
                           "message": "description is too long (maximum is 140 characters)"})  # fmt: skip
        for name in ("target_url", "context"):
            if body.get(name) is not None and not isinstance(body.get(name), str):
                errors.append({"resource": "Status", "field": name, "code": "invalid"})
        if not re.fullmatch(r"[0-9a-f]{40}", sha):
            return 422, {"message": f"No commit found for SHA: {sha}"}, {}
        if errors:
            return 422, {"message": "Validation Failed", "errors": errors}, {}
        status = objects.status(self.state.repo, sha, self.state.new_id(), body, self.state.author)
        with self.state.lock:
            self.state.statuses.setdefault(sha, []).append(status)
        return 201, status, {"Location": status["url"]}

    def _branch(self, name: str | None) -> dict[str, bytes]:
        branch = self.state.branches.get(name or self.state.default_branch)
        if branch is None:
            raise _NotFound
        return branch

    def _get_content(self, seen: Seen, path: str) -> Route:
        files = self._branch(seen.query.get("ref", [None])[0])
        if path not in files:
            raise _NotFound
        data = files[path]
        if seen.headers.get("accept") == "application/vnd.github.raw+json":
            return 200, _Raw(data), {}
        return 200, objects.content_file(self.state.repo, path, data), {}

    def _put_content(self, seen: Seen, path: str) -> Route:
        body = seen.body or {}
        with self.state.lock:
            files = self.state.branches.get(body.get("branch") or self.state.default_branch)
            if files is None:
                return 404, {"message": f"Branch {body.get('branch')} not found"}, {}
            if path in files and not body.get("sha"):
                return 422, {"message": 'Invalid request.\n\n"sha" wasn\'t supplied.'}, {}
            if path in files and body["sha"] != objects.blob_sha(files[path]):
                return 409, {"message": f"{path} does not match {body['sha']}"}, {}
            status = 200 if path in files else 201
            files[path] = base64.b64decode(body["content"])
        return status, objects.file_commit(self.state.repo, path, files[path]), {}

    def _delete_content(self, seen: Seen, path: str) -> Route:
        body = seen.body or {}
        with self.state.lock:
            files = self.state.branches.get(body.get("branch") or self.state.default_branch)
            if files is None or path not in files:
                raise _NotFound
            if body.get("sha") != objects.blob_sha(files[path]):
                return 409, {"message": f"{path} does not match {body.get('sha')}"}, {}
            del files[path]
        return 200, objects.file_commit(self.state.repo, path, None), {}


class _Raw(bytes):
    """A body sent as is (``application/vnd.github.raw+json``), not as JSON."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, outer: GitHubServer, *, is_zip_host: bool) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = outer.state
        self.api = outer.api
        self.is_zip_host = is_zip_host


class GitHubServer:
    """Two loopback servers: the REST API and the artifact storage host. Use as a context manager."""

    def __init__(self, state: GitHubState | None = None) -> None:
        self.state = state or GitHubState()
        self.api = _Api(self)
        self._api_server = _Server(self, is_zip_host=False)
        self._zip_server = _Server(self, is_zip_host=True)
        self._threads = [
            threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
            for s in (self._api_server, self._zip_server)
        ]

    @property
    def api_url(self) -> str:
        """Root URL of the REST API."""
        host, port = self._api_server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def zip_url(self) -> str:
        """Root URL of the storage host (a different port)."""
        host, port = self._zip_server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> GitHubServer:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.state.stopping.set()
        for server in (self._api_server, self._zip_server):
            server.shutdown()
            server.server_close()
