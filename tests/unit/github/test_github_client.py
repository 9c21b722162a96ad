"""The REST client against the loopback GitHub server: retries, rate limits, pagination, redirects."""

from __future__ import annotations

import itertools
import socket
import threading
import time

import pytest
import requests

from agent_evals.errors import GitHubError, GitHubPermissionError, GitHubUnavailableError
from agent_evals.github.client import GitHubClient
from servers.github_server import TOKEN, Fault, GitHubServer, record_zip

REPO = "octo/demo"


def _add_comments(github: GitHubServer, n: int) -> None:
    github.state.comments[7] = [{"id": i, "body": f"c{i}"} for i in range(n)]


def test_paginate__follows_link_headers__yields_every_item(
    github: GitHubServer, client: GitHubClient
) -> None:
    _add_comments(github, 250)
    items = list(client.paginate(f"/repos/{REPO}/issues/7/comments"))
    assert [c["id"] for c in items] == list(range(250))
    pages = github.state.api_requests("GET", "/comments")
    assert len(pages) == 3
    assert pages[2].query["page"] == ["3"]


@pytest.mark.parametrize(
    ("comments", "max_pages", "read"),
    [(10_000, None, 10_000), (10_001, None, None), (10_001, 2, 200)],
    ids=["exactly-the-page-limit", "one-item-past-it", "max-pages-stops-quietly"],
)
def test_paginate__past_the_page_limit__unavailable_naming_the_endpoint_never_cut_short(
    github: GitHubServer, client: GitHubClient, comments: int, max_pages: int | None, read: int | None
) -> None:
    _add_comments(github, comments)
    pages = client.paginate(f"/repos/{REPO}/issues/7/comments", max_pages=max_pages)
    if read is not None:
        assert len(list(pages)) == read
        return
    with pytest.raises(GitHubUnavailableError) as info:
        list(pages)
    assert info.value.endpoint == f"GET /repos/{REPO}/issues/7/comments"
    assert f"GitHub API GET /repos/{REPO}/issues/7/comments goes on past 100 pages" in str(info.value)
    assert len(github.state.api_requests("GET", "/comments")) == 100


def test_paginate__next_link_back_to_a_page_already_read__unavailable_at_once(
    github: GitHubServer, client: GitHubClient
) -> None:
    again = f'<{github.api_url}/repos/{REPO}/issues/7/comments?per_page=100&page=2>; rel="next"'
    github.state.faults.append(Fault("GET", "/issues/7/comments$", 200, [], {"Link": again}, times=1000))
    with pytest.raises(GitHubUnavailableError) as info:
        list(client.paginate(f"/repos/{REPO}/issues/7/comments"))
    assert str(info.value).startswith(
        f"GitHub API GET /repos/{REPO}/issues/7/comments: page 2 links as next to a page already read "
        f"(/repos/{REPO}/issues/7/comments?per_page=100&page=2)"
    )
    assert len(github.state.api_requests("GET", "/comments")) == 2


def test_request__transient_502__retries_with_backoff_then_succeeds(
    github: GitHubServer, client: GitHubClient, sleeps: list[float]
) -> None:
    github.state.faults.append(Fault("GET", "/repos/octo/demo$", 502, times=2))
    assert client.get_json(f"/repos/{REPO}")["default_branch"] == "main"
    assert sleeps == [1.0, 2.0]  # base 1s doubled, jitter factor 1.0


def test_request__persistent_503__gives_up_after_three_retries_naming_endpoint(
    github: GitHubServer, client: GitHubClient, sleeps: list[float]
) -> None:
    github.state.faults.append(Fault("GET", "/repos/octo/demo$", 503, times=10))
    with pytest.raises(GitHubError) as info:
        client.get_json(f"/repos/{REPO}")
    assert len(sleeps) == 3
    assert info.value.status == 503
    assert "GET /repos/octo/demo" in str(info.value) and "re-run" in str(info.value)


def test_request__secondary_rate_limit__honours_retry_after(
    github: GitHubServer, client: GitHubClient, sleeps: list[float]
) -> None:
    github.state.faults.append(
        Fault(
            "GET",
            "/repos/octo/demo$",
            403,
            {"message": "You have exceeded a secondary rate limit."},
            {"retry-after": "7"},
        )
    )
    assert client.get_json(f"/repos/{REPO}")["full_name"] == REPO
    assert sleeps == [7.0]


def test_request__primary_rate_limit_exhausted__waits_until_reset(
    github: GitHubServer, sleeps: list[float]
) -> None:
    github.state.faults.append(
        Fault(
            "GET",
            "/repos/octo/demo$",
            403,
            {"message": "API rate limit exceeded"},
            {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1000"},
        )
    )
    with requests.Session() as session:
        client = GitHubClient(
            session, api_url=github.api_url, token=TOKEN, sleep=sleeps.append, clock=lambda: 990.0
        )
        client.get_json(f"/repos/{REPO}")
    assert sleeps == [11.0]


def test_request__forbidden_without_rate_limit__names_missing_permission(
    github: GitHubServer, client: GitHubClient, sleeps: list[float]
) -> None:
    github.state.faults.append(
        Fault("GET", "/runs$", 403, {"message": "Resource not accessible by integration"})
    )
    with pytest.raises(GitHubPermissionError) as info:
        client.get_json(f"/repos/{REPO}/actions/workflows/b.yml/runs", permission="actions: read")
    message = str(info.value)
    assert "`actions: read`" in message and "HTTP 403" in message
    assert TOKEN not in message
    assert sleeps == []


def test_request__bad_token__401_says_how_to_pass_one(github: GitHubServer, sleeps: list[float]) -> None:
    with requests.Session() as session:
        client = GitHubClient(session, api_url=github.api_url, token="wrong", sleep=sleeps.append)
        with pytest.raises(GitHubError, match="--github-token"):
            client.get_json(f"/repos/{REPO}")


def test_request__unreachable_host__retries_then_reports_network_error(sleeps: list[float]) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with requests.Session() as session:
        client = GitHubClient(
            session, api_url=f"http://127.0.0.1:{port}", token=TOKEN, timeout=1, sleep=sleeps.append
        )
        with pytest.raises(GitHubError, match="network error after 4 attempts"):
            client.get_json("/repos/octo/demo")
    assert len(sleeps) == 3


def _unusable_answers(github: GitHubServer) -> dict[str, tuple[Fault, str]]:
    """Answers ``requests`` cannot use, as a proxy or a broken host in front of GitHub gives them."""
    here = f"{github.api_url}/repos/{REPO}/pulls/5"
    return {
        "redirect-loop": (
            Fault("GET", "/pulls/5$", 302, headers={"Location": here}, times=1000),
            "was redirected too many times (a redirect loop) (TooManyRedirects); check GITHUB_API_URL",
        ),
        "location-unparsable": (
            Fault("GET", "/pulls/5$", 302, headers={"Location": "http://[::1/pulls/5"}),
            "could not be read (ValueError); re-run the job",
        ),
        "gzip-body-not-gzip": (
            Fault("GET", "/pulls/5$", 200, {"number": 5}, {"Content-Encoding": "gzip"}),
            "could not be read (ContentDecodingError); re-run the job",
        ),
    }


@pytest.mark.parametrize("kind", ["redirect-loop", "location-unparsable", "gzip-body-not-gzip"])
def test_request__answer_requests_cannot_use__unavailable_naming_the_endpoint_not_retried(
    github: GitHubServer, client: GitHubClient, sleeps: list[float], kind: str
) -> None:
    fault, words = _unusable_answers(github)[kind]
    github.state.faults.append(fault)
    with pytest.raises(GitHubUnavailableError) as info:
        client.get_json(f"/repos/{REPO}/pulls/5")
    assert info.value.endpoint == f"GET /repos/{REPO}/pulls/5"
    assert str(info.value).startswith(f"GitHub API GET /repos/{REPO}/pulls/5 ") and words in str(info.value)
    assert sleeps == []  # the same request would fail the same way: never retried
    calls = len(github.state.api_requests("GET", "/pulls/5"))
    assert calls == (31 if kind == "redirect-loop" else 1)  # requests follows 30 redirects, then stops


def test_download__redirect_to_storage_host__drops_authorization(
    github: GitHubServer, client: GitHubClient
) -> None:
    data = record_zip()
    run_id = github.state.add_run(head_sha="a" * 40, created_at="2026-01-01T00:00:00Z", artifact=data)
    artifact_id = github.state.artifacts[run_id][0]["id"]
    got = client.download(f"/repos/{REPO}/actions/artifacts/{artifact_id}/zip", max_bytes=10**6)
    assert got == data
    api_call = github.state.api_requests("GET", "/zip")[0]
    assert api_call.authorization == f"Bearer {TOKEN}"
    assert [s.authorization for s in github.state.zip_seen] == [None]
    assert github.state.zip_seen[0].host != api_call.host


def test_download__larger_than_cap__refused(github: GitHubServer, client: GitHubClient) -> None:
    run_id = github.state.add_run(head_sha="a" * 40, created_at="2026-01-01T00:00:00Z", artifact=b"x" * 5000)
    artifact_id = github.state.artifacts[run_id][0]["id"]
    with pytest.raises(GitHubError, match="exceeds 1000 bytes"):
        client.download(f"/repos/{REPO}/actions/artifacts/{artifact_id}/zip", max_bytes=1000)


def test_request__absolute_url_on_other_host__refused_before_sending_token(client: GitHubClient) -> None:
    with pytest.raises(GitHubError, match="refusing to send the token"):
        client.request("GET", "http://evil.example/repos/x")


def test_repr__never_shows_token(client: GitHubClient) -> None:
    assert TOKEN not in repr(client)
    assert "token=set" in repr(client)


def test_request__slow_answer__times_out_and_retries(github: GitHubServer, sleeps: list[float]) -> None:
    github.state.faults.append(Fault("GET", "/repos/octo/demo$", 200, {"full_name": "slow"}, delay_s=1.0))
    with requests.Session() as session:
        client = GitHubClient(session, api_url=github.api_url, token=TOKEN, timeout=0.2, sleep=sleeps.append)
        assert client.get_json(f"/repos/{REPO}")["full_name"] == REPO
    assert len(sleeps) == 1


def test_request__concurrent_writes__serialized(github: GitHubServer, client: GitHubClient) -> None:
    github.state.faults.extend(Fault("POST", "/comments$", 201, {"id": i}, delay_s=0.2) for i in range(4))
    spans: list[tuple[float, float]] = []

    def post() -> None:
        start = time.monotonic()
        client.request("POST", f"/repos/{REPO}/issues/1/comments", json_body={"body": "x"})
        spans.append((start, time.monotonic()))

    threads = [threading.Thread(target=post) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ends = sorted(end for _, end in spans)
    assert all(b - a >= 0.18 for a, b in itertools.pairwise(ends))  # one at a time, 0.2 s each


def test_download__storage_url_expired_403__asks_the_api_for_a_fresh_url(
    github: GitHubServer, client: GitHubClient
) -> None:
    run_id = github.state.add_run(head_sha="a" * 40, created_at="2026-01-01T00:00:00Z", artifact=record_zip())
    artifact_id = github.state.artifacts[run_id][0]["id"]
    github.state.expire_storage_urls = 2
    data = client.download(f"/repos/{REPO}/actions/artifacts/{artifact_id}/zip", max_bytes=10**6)
    assert data == github.state.blobs[artifact_id]
    assert [s.status for s in github.state.zip_seen] == [403, 403, 200]
    assert len({s.query["sig"][0] for s in github.state.zip_seen}) == 3  # a fresh signed URL each time
    assert len(github.state.api_requests("GET", "/zip")) == 3


def test_download__storage_keeps_refusing__error_names_the_storage_host_not_a_permission(
    github: GitHubServer, client: GitHubClient
) -> None:
    run_id = github.state.add_run(head_sha="a" * 40, created_at="2026-01-01T00:00:00Z", artifact=record_zip())
    artifact_id = github.state.artifacts[run_id][0]["id"]
    github.state.expire_storage_urls = 10
    with pytest.raises(GitHubError, match="artifact storage host") as info:
        client.download(f"/repos/{REPO}/actions/artifacts/{artifact_id}/zip", max_bytes=10**6)
    assert info.value.status == 403 and len(github.state.zip_seen) == 3


def test_download__slower_than_the_overall_deadline__error(github: GitHubServer) -> None:
    run_id = github.state.add_run(head_sha="a" * 40, created_at="2026-01-01T00:00:00Z", artifact=record_zip())
    artifact_id = github.state.artifacts[run_id][0]["id"]
    github.state.storage_delay_s = 0.5
    with requests.Session() as session:
        slow = GitHubClient(session, api_url=github.api_url, token=TOKEN, sleep=lambda s: None)
        with pytest.raises(GitHubError, match="did not finish in time"):
            slow.download(
                f"/repos/{REPO}/actions/artifacts/{artifact_id}/zip", max_bytes=10**6, deadline_s=0.2
            )


@pytest.mark.parametrize(
    ("api_url", "graphql_url", "outside"),
    [
        ("https://api.github.com", "https://api.github.com/graphql", "https://evil.example/graphql"),
        (
            "https://api.octo.ghe.com/",
            "https://api.octo.ghe.com/graphql",
            "https://api.octo.ghe.com.evil/graphql",
        ),
        # Enterprise Server: GraphQL is beside the REST root /api/v3, and only it is let out of the root
        ("https://ghes.example/api/v3", "https://ghes.example/api/graphql", "https://ghes.example/api/other"),
    ],
)
def test_graphql_url__beside_the_rest_root__the_token_goes_there_and_nowhere_else(
    api_url: str, graphql_url: str, outside: str
) -> None:
    with requests.Session() as session:
        client = GitHubClient(session, api_url=api_url, token=TOKEN)
        assert client.graphql_url == graphql_url
        with pytest.raises(GitHubError, match="refusing to send the token"):
            client.request("POST", outside, json_body={"query": "query { viewer { login } }"})
