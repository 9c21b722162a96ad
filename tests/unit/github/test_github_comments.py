"""The sticky PR comment: ours by marker and author, one under races, writes never blindly re-sent."""

from __future__ import annotations

import threading

import pytest
import requests

from agent_evals.errors import GitHubError, UsageError
from agent_evals.github.client import GitHubClient
from agent_evals.github.comments import BOT_LOGIN, comment_author, marker, upsert_comment
from servers.github_server import TOKEN, Delay, Fault, GitHubServer

REPO = "octo/demo"


def _bodies(github: GitHubServer, pr: int = 5) -> list[str]:
    return [c["body"] for c in github.state.comments.get(pr, [])]


def test_upsert_comment__twice__creates_then_updates_the_same_comment(
    github: GitHubServer, client: GitHubClient
) -> None:
    first = upsert_comment(client, REPO, 5, "gate-a", f"{marker('gate-a')}\nfirst")
    second = upsert_comment(client, REPO, 5, "gate-a", f"{marker('gate-a')}\nsecond")
    assert (first.action, second.action) == ("created", "updated")
    assert first.comment_id == second.comment_id and second.url
    assert [b.splitlines()[-1] for b in _bodies(github)] == ["second"]


def test_upsert_comment__two_gates__keep_two_comments(github: GitHubServer, client: GitHubClient) -> None:
    upsert_comment(client, REPO, 5, "gate-a", "a")
    upsert_comment(client, REPO, 5, "gate-b", "b")
    upsert_comment(client, REPO, 5, "gate-a", "a2")
    assert _bodies(github) == [f"{marker('gate-a')}\na2", f"{marker('gate-b')}\nb"]


def test_upsert_comment__marker_past_fifty_pages__found_not_duplicated(
    github: GitHubServer, client: GitHubClient
) -> None:
    for i in range(5100):  # 51 pages of 100
        github.state.comments.setdefault(5, []).append(
            {"id": i + 1, "body": "chatter", "user": {"login": "x"}}
        )
    ours = github.state.add_comment(5, f"{marker('g')}\nold", login=BOT_LOGIN)
    result = upsert_comment(client, REPO, 5, "g", "new")
    assert result.action == "updated" and result.comment_id == ours["id"]
    assert len(github.state.comments[5]) == 5101 and github.state.api_requests("POST") == []


@pytest.mark.parametrize(
    ("body", "login"),
    [
        ("{tag}\nI quote the bot's comment here", "octocat"),  # a person's comment carrying the marker
        ("{tag}\nanother bot", "renovate[bot]"),
        ("> {tag}\nquoted, not first line", BOT_LOGIN),  # ours by author, but the marker is not line 1
    ],
    ids=["person-with-marker", "other-bot-with-marker", "marker-not-first-line"],
)
def test_upsert_comment__marker_in_a_comment_not_ours__left_untouched_and_ours_created(
    github: GitHubServer, client: GitHubClient, body: str, login: str
) -> None:
    theirs = github.state.add_comment(5, body.format(tag=marker("g")), login=login)
    before = theirs["body"]
    result = upsert_comment(client, REPO, 5, "g", "verdict")
    assert result.action == "created" and result.comment_id != theirs["id"]
    assert theirs["body"] == before
    assert github.state.api_requests("PATCH") == [] and github.state.api_requests("DELETE") == []


def test_comment_author__user_endpoint_answers__its_login_is_the_author(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.login = "octo-deploy-bot"
    assert comment_author(client) == "octo-deploy-bot"
    bot = github.state.add_comment(5, f"{marker('g')}\nby the actions bot", login=BOT_LOGIN)
    result = upsert_comment(client, REPO, 5, "g", "by the token's user")
    assert result.action == "created" and bot["body"].endswith("by the actions bot")
    assert github.state.comments[5][-1]["user"]["login"] == "octo-deploy-bot"


def test_comment_author__installation_token_403_on_user__github_actions_bot(
    github: GitHubServer, client: GitHubClient
) -> None:
    assert comment_author(client) == BOT_LOGIN
    [call] = github.state.api_requests("GET", "/user")
    assert call.status == 403


def test_upsert_comment__duplicates_of_ours__oldest_kept_others_deleted(
    github: GitHubServer, client: GitHubClient
) -> None:
    first = github.state.add_comment(5, f"{marker('g')}\none", login=BOT_LOGIN)
    github.state.add_comment(5, f"{marker('g')}\ntwo", login=BOT_LOGIN)
    github.state.add_comment(5, f"{marker('g')}\nthree", login=BOT_LOGIN)
    result = upsert_comment(client, REPO, 5, "g", "fresh")
    assert (result.action, result.comment_id, result.removed) == ("updated", first["id"], 2)
    assert _bodies(github) == [f"{marker('g')}\nfresh"]


def test_upsert_comment__five_concurrent_runs__leave_exactly_one_comment(github: GitHubServer) -> None:
    # every run lists before any of them creates: the window in which each would post its own
    github.state.delays.append(Delay("GET", r"/issues/5/comments$", 0.3))
    barrier = threading.Barrier(5)
    errors: list[BaseException] = []

    def one_run(n: int) -> None:
        with requests.Session() as session:
            client = GitHubClient(session, api_url=github.api_url, token=TOKEN, sleep=lambda s: None)
            barrier.wait()
            try:
                upsert_comment(client, REPO, 5, "g", f"run {n}")
            except BaseException as exc:
                errors.append(exc)

    threads = [threading.Thread(target=one_run, args=(n,)) for n in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert len(github.state.api_requests("POST")) == 5  # the race really happened
    [body] = _bodies(github)
    assert body.startswith(f"{marker('g')}\nrun ")


def test_upsert_comment__create_lands_then_502__not_posted_again(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.faults.append(Fault("POST", "/comments$", 502, land=True))
    result = upsert_comment(client, REPO, 5, "g", "body")
    assert len(github.state.api_requests("POST")) == 1
    assert result.action == "updated" and result.comment_id == github.state.comments[5][0]["id"]
    assert _bodies(github) == [f"{marker('g')}\nbody"]


def test_upsert_comment__create_fails_without_landing__error_after_rereading_not_retried(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.faults.append(Fault("POST", "/comments$", 503, times=5))
    with pytest.raises(GitHubError, match="was not created"):
        upsert_comment(client, REPO, 5, "g", "body")
    assert len(github.state.api_requests("POST")) == 1
    assert github.state.comments.get(5, []) == []


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_upsert_comment__redirect_on_post__not_followed_error_names_it(
    github: GitHubServer, client: GitHubClient, status: int
) -> None:
    elsewhere = f"{github.zip_url}/elsewhere"
    github.state.faults.append(Fault("POST", "/comments$", status, headers={"Location": elsewhere}))
    with pytest.raises(GitHubError, match=f"HTTP {status}, a redirect") as info:
        upsert_comment(client, REPO, 5, "g", "body")
    assert info.value.status == status
    assert github.state.zip_seen == []  # the body never went to the other host


def test_upsert_comment__create_false_and_no_comment__skipped(
    github: GitHubServer, client: GitHubClient
) -> None:
    assert upsert_comment(client, REPO, 5, "g", "body", create=False).action == "skipped"
    assert github.state.api_requests("POST") == []


def test_upsert_comment__read_only_token__forbidden_notice_names_the_permission(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.read_only = True
    result = upsert_comment(client, REPO, 5, "g", "body")
    assert result.action == "forbidden"
    assert result.notice and "`pull-requests: write`" in result.notice and "workflow_run" in result.notice


@pytest.mark.parametrize("bad", ["", "a b", "x" * 65, "g-->", "../g"])
def test_marker__unsafe_gate_id__usage_error(bad: str) -> None:
    with pytest.raises(UsageError, match="gate id"):
        marker(bad)
