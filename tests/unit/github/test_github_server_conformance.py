"""The loopback GitHub answers as GitHub's OpenAPI description says (facts vendored from @octokit/openapi)."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.errors import GitHubError
from agent_evals.github.baseline import find_baseline
from agent_evals.github.client import API_VERSION, GitHubClient
from agent_evals.github.comments import marker, upsert_comment
from servers.github_objects import ANY_ENDPOINT_STATUSES, endpoint_of, facts
from servers.github_server import GitHubServer, Seen, record_zip

REPO = "octo/demo"


def _exercise(github: GitHubServer, client: GitHubClient) -> None:
    """Call every route the fake serves, through the client, including error answers."""
    state = github.state
    for i in range(3):
        state.add_run(workflow="gate.yml", head_sha=f"{i}" * 40, created_at=f"2026-01-0{i + 1}T00:00:00Z")
    run_id = state.add_run(workflow="gate.yml", head_sha="d" * 40, created_at="2026-01-05T00:00:00Z")
    state.add_artifact(run_id, record_zip(), name="agent-evals-baseline")
    state.merge_bases[f"{'b' * 40}...{'e' * 40}"] = ("d" * 40, "2026-01-05T00:00:00Z")
    state.add_pull(5, head_sha="e" * 40, labels=("bug", "agent-evals:accept-regression"))
    for n in range(120):
        state.add_comment(5, f"chatter {n}")
    find_baseline(
        client, repo=REPO, workflow="gate.yml", branch="main", artifact_name="agent-evals-baseline",
        base_sha="b" * 40, head_sha="e" * 40,
    )  # fmt: skip
    client.get_json(f"/repos/{REPO}")
    client.get_json(f"/repos/{REPO}/pulls/5")
    list(client.paginate(f"/repos/{REPO}/commits/{'e' * 40}/pulls"))
    client.get_json(f"/repos/{REPO}/actions/runs/{run_id}")
    list(client.paginate(f"/repos/{REPO}/issues/5/labels", params={"per_page": 1}))
    upsert_comment(client, REPO, 5, "g", "one")
    state.add_comment(5, f"{marker('g')}\ncopy", login="github-actions[bot]")
    upsert_comment(client, REPO, 5, "g", "two")  # patches one, deletes the copy
    from agent_evals.github.branch_store import find_branch_baseline, store_baseline

    state.branches["agent-evals-data"] = {}
    for day in (1, 2):
        store_baseline(
            client, REPO, branch="agent-evals-data", gate_id="g", record=b'{"schema": "x"}',
            sha=f"{day}" * 40, date=f"2026-01-0{day}T00:00:00Z", run_id=None, keep=1,
        )  # fmt: skip
    find_branch_baseline(client, REPO, branch="agent-evals-data", gate_id="g", base_sha=None, head_sha=None)
    from agent_evals.github.statuses import CommitStatus, set_status

    set_status(
        client, REPO, "e" * 40, CommitStatus("success", "ok"), context="agent-evals/g", target_url=None
    )
    state.login = "octo-user"
    client.get_json("/user")
    for missing in (f"/repos/{REPO}/pulls/404", f"/repos/{REPO}/issues/404/labels"):
        with pytest.raises(GitHubError):
            client.get_json(missing)


@pytest.fixture
def answers(github: GitHubServer, client: GitHubClient) -> list[Seen]:
    _exercise(github, client)
    return [s for s in github.state.seen if not s.scripted and s.path != "/graphql"]  # REST only


def test_fake__graphql_viewer__answers_data_as_github_documents(
    github: GitHubServer, client: GitHubClient
) -> None:
    # https://docs.github.com/graphql/guides/forming-calls-with-graphql: 200 with `data`; a query the
    # server cannot resolve answers 200 with `errors`
    _exercise(github, client)
    viewer = [s for s in github.state.seen if s.path == "/graphql"]
    assert viewer and {s.status for s in viewer} == {200}
    assert viewer[0].response == {"data": {"viewer": {"login": "github-actions[bot]"}}}
    with pytest.raises(GitHubError, match="no data"):
        client.graphql("query { viewer { id } }")


def test_fake__every_route_answered__is_a_documented_endpoint(answers: list[Seen]) -> None:
    called = {endpoint_of(s.method, s.path) for s in answers}
    assert None not in called
    assert called == set(facts()["endpoints"])  # and every vendored endpoint is exercised


def test_fake__every_status__documented_for_its_endpoint(answers: list[Seen]) -> None:
    wrong = [
        (s.method, s.path, s.status)
        for s in answers
        if s.status not in facts()["endpoints"][str(endpoint_of(s.method, s.path))]["statuses"]
        and s.status not in ANY_ENDPOINT_STATUSES
    ]
    assert wrong == []


def _items(endpoint: str, body: Any) -> list[Any]:
    shape = facts()["endpoints"][endpoint].get("shape")
    if shape == "list":
        return list(body)
    if shape == "object":
        return [body]
    return list(body[shape])


def test_fake__success_bodies__carry_every_required_field(answers: list[Seen]) -> None:
    missing = []
    for seen in answers:
        endpoint = str(endpoint_of(seen.method, seen.path))
        spec = facts()["endpoints"][endpoint]
        raw = seen.headers.get("accept") == "application/vnd.github.raw+json"  # the file's bytes, not JSON
        if seen.status is None or not 200 <= seen.status < 300 or "required" not in spec or raw:
            continue
        for item in _items(endpoint, seen.response):
            missing += [(endpoint, name) for name in spec["required"] if name not in item]
    assert missing == []


def test_fake__documented_headers__link_on_paged_lists_location_on_create_and_redirect(
    answers: list[Seen],
) -> None:
    paged = [s for s in answers if s.path.endswith("/comments") and s.method == "GET"]
    assert any('rel="next"' in s.response_headers.get("Link", "") for s in paged)
    created = [s for s in answers if s.method == "POST"]
    assert created and all(s.response_headers.get("Location") for s in created)
    zips = [s for s in answers if s.path.endswith("/zip")]
    assert zips and all(s.status == 302 and s.response_headers.get("Location") for s in zips)
    assert all("x-ratelimit-remaining" in s.response_headers for s in answers)


def test_fake__records_every_request_header(github: GitHubServer, client: GitHubClient) -> None:
    client.get_json(f"/repos/{REPO}")
    [seen] = github.state.seen
    assert seen.headers["x-github-api-version"] == API_VERSION
    assert seen.headers["accept"] == "application/vnd.github+json"
    assert seen.headers["user-agent"] and seen.headers["authorization"].startswith("Bearer ")
