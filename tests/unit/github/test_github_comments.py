"""The sticky PR comment: ours by marker and author, one under races, writes never blindly re-sent."""

from __future__ import annotations

import threading
import time

import pytest
import requests

from agent_evals.errors import GitHubError, GitHubUnavailableError, UsageError
from agent_evals.github.client import GitHubClient
from agent_evals.github.comments import BOT_LOGIN, comment_author, marker, upsert_comment
from agent_evals.github.deadline import GitHubDeadlineError
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
    assert len(github.state.comments[5]) == 5101 and github.state.api_requests("POST", "/comments") == []


def test_upsert_comment__comment_pages_without_end__unavailable_and_nothing_posted(
    github: GitHubServer, client: GitHubClient
) -> None:
    # a proxy (or a broken GitHub Enterprise) that links every page to a next one: the marker may be on
    # a page never read, so posting would make a second comment
    again = f'<{github.api_url}/repos/{REPO}/issues/5/comments?per_page=100&page=2>; rel="next"'
    github.state.faults.append(Fault("GET", "/issues/5/comments$", 200, [], {"Link": again}, times=1000))
    with pytest.raises(GitHubUnavailableError, match=f"GET /repos/{REPO}/issues/5/comments: page 2 links"):
        upsert_comment(client, REPO, 5, "g", "body")
    assert github.state.api_requests("POST", "/comments") == []


def test_upsert_comment__slow_pages__the_whole_update_ends_within_the_clients_deadline(
    github: GitHubServer,
) -> None:
    # each page answers well within the deadline of one call; thirty of them do not fit in the whole one
    for i in range(3000):
        github.state.comments.setdefault(5, []).append(
            {"id": i + 1, "body": "chatter", "user": {"login": "x"}}
        )
    github.state.delays.append(Delay("GET", r"/issues/5/comments$", 0.3))
    started = time.monotonic()
    with requests.Session() as session:
        client = GitHubClient(session, api_url=github.api_url, token=TOKEN, deadline_s=1.5)
        with pytest.raises(GitHubDeadlineError, match="the comment update did not finish in time"):
            upsert_comment(client, REPO, 5, "g", "body")
    assert time.monotonic() - started < 5
    assert github.state.api_requests("POST", "/comments") == []


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


# The identities a workflow gives the gate: (GET /user login, app of an installation token, our author)
TOKEN_KINDS = {
    "actions-GITHUB_TOKEN": (None, "github-actions", "github-actions[bot]"),
    "app-installation-token": (None, "octo-gate", "octo-gate[bot]"),
    "personal-access-token": ("octo-ci-user", "github-actions", "octo-ci-user"),
}


def _as(github: GitHubServer, kind: str) -> str:
    login, slug, author = TOKEN_KINDS[kind]
    github.state.login, github.state.app_slug = login, slug
    return author


@pytest.mark.parametrize("kind", list(TOKEN_KINDS))
def test_comment_author__each_token_kind__the_login_its_comments_carry(
    github: GitHubServer, client: GitHubClient, kind: str
) -> None:
    author = _as(github, kind)
    assert comment_author(client) == author == github.state.author
    [user] = github.state.api_requests("GET", "/user")
    assert user.status == (200 if TOKEN_KINDS[kind][0] else 403)
    assert len(github.state.api_requests("POST", "/graphql")) == (0 if TOKEN_KINDS[kind][0] else 1)


@pytest.mark.parametrize("kind", list(TOKEN_KINDS))
def test_upsert_comment__two_runs_each_token_kind__one_comment_updated_in_place(
    github: GitHubServer, client: GitHubClient, kind: str
) -> None:
    author = _as(github, kind)
    first = upsert_comment(client, REPO, 5, "g", "run 1")
    second = upsert_comment(client, REPO, 5, "g", "run 2")
    assert (first.action, second.action, second.comment_id) == ("created", "updated", first.comment_id)
    [only] = github.state.comments[5]
    assert (only["body"], only["user"]["login"]) == (f"{marker('g')}\nrun 2", author)
    assert len(github.state.api_requests("POST", "/comments")) == 1
    assert github.state.api_requests("DELETE") == []


# Comments that carry our marker on their first line but that we did not write, per token kind: a
# person (the pull request's author can write any text), another app's bot, and the bot of the token
# kind we are not (the Actions bot when we are an app, an app's bot when we are the Actions token).
NOT_OURS = [
    ("octocat", "User"),
    ("renovate[bot]", "Bot"),
    ("github-actions[bot]", "Bot"),
    ("octo-gate[bot]", "Bot"),
    ("octo-ci-user-impostor", "User"),
]


@pytest.mark.parametrize("kind", list(TOKEN_KINDS))
def test_upsert_comment__marker_quoted_by_a_person_or_another_bot__left_alone_each_token_kind(
    github: GitHubServer, client: GitHubClient, kind: str
) -> None:
    author = _as(github, kind)
    theirs = [
        github.state.add_comment(5, f"{marker('g')}\nby {login}", login=login)
        for login, _ in NOT_OURS
        if login != author
    ]
    assert [c["user"]["type"] for c in theirs] == [t for login, t in NOT_OURS if login != author]
    assert all(bool(c["performed_via_github_app"]) == (c["user"]["type"] == "Bot") for c in theirs)
    upsert_comment(client, REPO, 5, "g", "run 1")
    upsert_comment(client, REPO, 5, "g", "run 2")
    ours = [c for c in github.state.comments[5] if c["user"]["login"] == author]
    assert [c["body"] for c in ours] == [f"{marker('g')}\nrun 2"]
    assert [c["body"] for c in github.state.comments[5] if c not in ours] == [
        f"{marker('g')}\nby {c['user']['login']}" for c in theirs
    ]
    assert [s.path for s in github.state.api_requests("PATCH")] == [
        f"/repos/{REPO}/issues/comments/{ours[0]['id']}"
    ]


@pytest.mark.parametrize("graphql", [Fault("POST", r"^/graphql$", 502), Fault("POST", r"^/graphql$", 401)])
def test_upsert_comment__app_token_and_no_viewer__no_other_bot_edited_and_one_comment_stays(
    github: GitHubServer, client: GitHubClient, graphql: Fault
) -> None:
    """Unless GitHub says who the token is, nothing is edited before posting (the Actions bot's comment
    with our marker, from before the switch to an app token, is not ours); the post's author says it,
    and the copy folds into the app's older comment."""
    _as(github, "app-installation-token")
    older = upsert_comment(client, REPO, 5, "g", "run 1")
    github.state.add_comment(5, f"{marker('g')}\nActions bot", login=BOT_LOGIN)
    github.state.faults.append(graphql)
    again = upsert_comment(client, REPO, 5, "g", "run 2")
    assert (again.action, again.comment_id, again.removed) == ("updated", older.comment_id, 1)
    assert _bodies(github) == [f"{marker('g')}\nrun 2", f"{marker('g')}\nActions bot"]
    assert [s.path.rsplit("/", 1)[-1] for s in github.state.api_requests("PATCH")] == [str(older.comment_id)]


def test_upsert_comment__no_viewer_and_nothing_to_create__skipped_with_a_notice(
    github: GitHubServer, client: GitHubClient
) -> None:
    _as(github, "app-installation-token")
    github.state.add_comment(5, f"{marker('g')}\nActions bot", login=BOT_LOGIN)
    github.state.faults.append(Fault("POST", r"^/graphql$", 401))
    result = upsert_comment(client, REPO, 5, "g", "passed", create=False)
    assert result.action == "skipped" and "who the token is" in str(result.notice)
    assert github.state.api_requests("PATCH") == [] and github.state.api_requests("DELETE") == []


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
    assert len(github.state.api_requests("POST", "/comments")) == 5  # the race really happened
    [body] = _bodies(github)
    assert body.startswith(f"{marker('g')}\nrun ")


def test_upsert_comment__create_lands_then_502__not_posted_again(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.faults.append(Fault("POST", "/comments$", 502, land=True))
    result = upsert_comment(client, REPO, 5, "g", "body")
    assert len(github.state.api_requests("POST", "/comments")) == 1
    assert result.action == "updated" and result.comment_id == github.state.comments[5][0]["id"]
    assert _bodies(github) == [f"{marker('g')}\nbody"]


def test_upsert_comment__create_fails_without_landing__error_after_rereading_not_retried(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.faults.append(Fault("POST", "/comments$", 503, times=5))
    with pytest.raises(GitHubError, match="was not created"):
        upsert_comment(client, REPO, 5, "g", "body")
    assert len(github.state.api_requests("POST", "/comments")) == 1
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
    assert github.state.api_requests("POST", "/comments") == []


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
