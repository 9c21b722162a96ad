"""The sticky PR comment: found by marker across pages, updated in place, degraded on read-only tokens."""

from __future__ import annotations

from agent_evals.github.client import GitHubClient
from agent_evals.github.comments import marker, upsert_comment
from servers.github_server import GitHubServer

REPO = "octo/demo"


def test_upsert_comment__twice__creates_then_updates_the_same_comment(
    github: GitHubServer, client: GitHubClient
) -> None:
    first = upsert_comment(client, REPO, 5, "gate-a", f"{marker('gate-a')}\nfirst")
    second = upsert_comment(client, REPO, 5, "gate-a", f"{marker('gate-a')}\nsecond")
    assert (first.action, second.action) == ("created", "updated")
    assert first.comment_id == second.comment_id and second.url
    assert [c["body"].splitlines()[-1] for c in github.state.comments[5]] == ["second"]


def test_upsert_comment__two_gates__keep_two_comments(github: GitHubServer, client: GitHubClient) -> None:
    upsert_comment(client, REPO, 5, "gate-a", "a")
    upsert_comment(client, REPO, 5, "gate-b", "b")
    upsert_comment(client, REPO, 5, "gate-a", "a2")
    bodies = [c["body"] for c in github.state.comments[5]]
    assert bodies == [f"{marker('gate-a')}\na2", f"{marker('gate-b')}\nb"]


def test_upsert_comment__marker_on_a_later_page__found_not_duplicated(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.comments[5] = [{"id": i, "body": "chatter"} for i in range(1, 131)]
    github.state.comments[5].append({"id": 999, "body": f"{marker('g')}\nold", "html_url": "u"})
    result = upsert_comment(client, REPO, 5, "g", "new")
    assert result.action == "updated" and result.comment_id == 999
    assert len(github.state.comments[5]) == 131


def test_upsert_comment__create_false_and_no_comment__skipped(
    github: GitHubServer, client: GitHubClient
) -> None:
    assert upsert_comment(client, REPO, 5, "g", "body", create=False).action == "skipped"
    assert github.state.api_requests("POST") == []


def test_upsert_comment__read_only_token__forbidden_with_notice(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.read_only = True
    result = upsert_comment(client, REPO, 5, "g", "body")
    assert result.action == "forbidden"
    assert result.notice and "job summary" in result.notice and "workflow_run" in result.notice
