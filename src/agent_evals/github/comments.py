"""The sticky pull request comment: ours by marker and author, updated in place, one under races."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from agent_evals.core.gate_id import GATE_ID_PATTERN, check_gate_id, gate_marker
from agent_evals.errors import GitHubError, GitHubPermissionError
from agent_evals.github.deadline import DEFAULT_DEADLINE_S

__all__ = ["GATE_ID_PATTERN", "check_gate_id", "marker", "upsert_comment"]

if TYPE_CHECKING:
    from agent_evals.github.client import GitHubClient

log = logging.getLogger(__name__)

CommentAction = Literal["created", "updated", "skipped", "forbidden"]
FORBIDDEN_HINT = "Resource not accessible by integration"
BOT_LOGIN = "github-actions[bot]"
"""The author of comments written with an Actions ``GITHUB_TOKEN`` (``GET /user`` answers 403 for it)."""
WRITE_PERMISSION = "pull-requests: write"
VIEWER_QUERY = "query { viewer { login } }"
UNKNOWN_AUTHOR = (
    "GitHub did not say who the token is (GET /user and GraphQL's viewer both refused), so the gate "
    "cannot tell its comment from others': the comment is left as it is. The report is in the job summary."
)


def marker(gate_id: str) -> str:
    """The hidden HTML comment, first line of the body, that identifies one gate's comment."""
    return gate_marker(gate_id)


@dataclass(frozen=True)
class CommentResult:
    """What happened to the sticky comment."""

    action: CommentAction
    """created, updated, skipped (nothing to do) or forbidden (read-only token)."""
    url: str | None = None
    """``html_url`` of the comment, when one exists."""
    comment_id: int | None = None
    """Its id."""
    notice: str | None = None
    """A message for the job log when the comment could not be written."""
    removed: int = 0
    """Duplicate comments of ours deleted (left by concurrent runs)."""


def comment_author(client: GitHubClient) -> str | None:
    """The login the token's comments carry, as GitHub tells it; None when it does not.

    ``GET /user`` answers for a person's token (a PAT, an OAuth or GitHub App user token): its login.
    An installation token, the Actions ``GITHUB_TOKEN`` included, gets 403 there; GraphQL's ``viewer``
    then names the app's bot user, ``<app-slug>[bot]`` (``github-actions[bot]`` for the Actions token).
    """
    try:
        body = client.get_json("/user")
    except GitHubError as exc:
        if exc.status not in (401, 403, 404):
            raise
        body = None
    login = body.get("login") if isinstance(body, dict) else None
    return login if isinstance(login, str) and login else _viewer_login(client)


def _viewer_login(client: GitHubClient) -> str | None:
    try:
        viewer = client.graphql(VIEWER_QUERY).get("viewer")
    except GitHubError as exc:
        log.warning("GitHub did not say who the token is (%s); the comment's author will", exc)
        return None
    login = viewer.get("login") if isinstance(viewer, dict) else None
    return login if isinstance(login, str) and login else None


def is_ours(comment: dict[str, Any], tag: str, author: str) -> bool:
    """True when the comment's first line is ``tag`` and ``author`` wrote it.

    The author is the login (``user.login``) and its kind: a bot login (``<slug>[bot]``, which no person
    can hold) must be a ``Bot`` user whose comment, when it names the app it was made through
    (``performed_via_github_app``), names that same app; a person's login must not be a bot's.
    """
    body = comment.get("body")
    user = comment.get("user")
    if not isinstance(body, str) or body.split("\n", 1)[0].rstrip("\r") != tag or not isinstance(user, dict):
        return False
    bot = author.endswith("[bot]")
    if user.get("login") != author or (user.get("type") == "Bot") != bot:
        return False
    app = comment.get("performed_via_github_app")
    slug = app.get("slug") if isinstance(app, dict) else None
    return not bot or slug is None or slug == author.removesuffix("[bot]")


def our_comments(client: GitHubClient, repo: str, pr: int, tag: str, author: str) -> list[dict[str, Any]]:
    """Every comment of ours with ``tag``, oldest first (every page is read, up to the client's page
    limit: past it GitHubUnavailableError, since a marker missed would mean a second comment)."""
    found = [
        c
        for c in client.paginate(f"/repos/{repo}/issues/{pr}/comments", permission="pull-requests: read")
        if is_ours(c, tag, author)
    ]
    return sorted(found, key=lambda c: (str(c.get("created_at") or ""), int(c.get("id") or 0)))


def find_comment(
    client: GitHubClient, repo: str, pr: int, gate_id: str, *, author: str | None = None
) -> dict[str, Any] | None:
    """The oldest comment of ours that carries this gate's marker, or None."""
    author = author or comment_author(client)
    ours = our_comments(client, repo, pr, marker(gate_id), author) if author else []
    return ours[0] if ours else None


def upsert_comment(
    client: GitHubClient,
    repo: str,
    pr: int,
    gate_id: str,
    body: str,
    *,
    create: bool = True,
    author: str | None = None,
    deadline_s: float | None = None,
) -> CommentResult:
    """Update this gate's comment in place, or post it when none exists and ``create`` is true.

    Only comments whose first line is the marker and whose author is ours (:func:`comment_author`,
    :func:`is_ours`) count; anyone else's comment is never edited. When GitHub does not say who the
    token is, nothing is looked up before posting: the posted comment's author says it. Concurrent
    runs may each post one: after posting, the comments are read again and every copy of ours but the
    oldest is deleted (the oldest gets this body). A post that fails in a way that may have landed
    (5xx, dropped connection) is never re-sent: the comments are read again instead. A read-only
    token (a pull request from a fork) is not an error: the result is ``forbidden`` with a notice.
    The whole update (every page read, every write) ends within ``deadline_s``, else the client's own
    deadline, else ``DEFAULT_DEADLINE_S`` (GitHubDeadlineError past it).
    """
    tag = marker(gate_id)
    if body.split("\n", 1)[0] != tag:
        body = f"{tag}\n{body}"
    seconds = deadline_s if deadline_s is not None else client.deadline_s or DEFAULT_DEADLINE_S
    with client.within(seconds, "the comment update"):
        return _upsert(client, repo, pr, tag, body, create=create, author=author)


def _upsert(
    client: GitHubClient, repo: str, pr: int, tag: str, body: str, *, create: bool, author: str | None
) -> CommentResult:
    try:
        author = author or comment_author(client)
        ours = our_comments(client, repo, pr, tag, author) if author else []
        if ours:
            kept = _patch(client, repo, ours[0], body)
            removed = _delete(client, repo, ours[1:])
            return _result("updated", kept, removed)
        if not create:
            return CommentResult(action="skipped", notice=None if author else UNKNOWN_AUTHOR)
        created = _create(client, repo, pr, body, tag, author)
        author = _posted_by(created) or author  # what GitHub says we are wins over what we asked
        if author is None:
            return _result("created", created or {}, 0)
        ours = our_comments(client, repo, pr, tag, author)
        if not ours or (created is not None and ours[0].get("id") == created.get("id")):
            return _result("created", created or {}, _delete(client, repo, ours[1:]))
        # another run's comment is older: it stays, with this body; ours and any others go
        kept = _patch(client, repo, ours[0], body)
        return _result("updated", kept, _delete(client, repo, ours[1:]))
    except GitHubPermissionError as exc:
        return CommentResult(action="forbidden", notice=_forbidden_notice(pr, exc))
    except GitHubError as exc:
        if exc.status == 404 and FORBIDDEN_HINT.lower() in str(exc).lower():
            return CommentResult(action="forbidden", notice=_forbidden_notice(pr, exc))
        raise


def _create(
    client: GitHubClient, repo: str, pr: int, body: str, tag: str, author: str | None
) -> dict[str, Any] | None:
    """POST the comment; None when the post failed but the comment is there (it landed)."""
    try:
        response = client.request(
            "POST",
            f"/repos/{repo}/issues/{pr}/comments",
            json_body={"body": body},
            permission=WRITE_PERMISSION,
        )
    except GitHubError as exc:
        if exc.status is not None and exc.status < 500:
            raise
        if author is None or not our_comments(client, repo, pr, tag, author):
            found = "not created (re-read after the failure)" if author else "perhaps not created"
            raise GitHubError(
                f"{exc}. The comment was {found}; re-run the job",
                status=exc.status,
                endpoint=exc.endpoint,
            ) from exc
        log.info("the comment post failed (%s) but the comment landed; not posting again", exc)
        return None
    payload = response.json()
    return payload if isinstance(payload, dict) else {}


def _posted_by(comment: dict[str, Any] | None) -> str | None:
    """The login GitHub gave the comment we just posted: certainly ours."""
    user = comment.get("user") if isinstance(comment, dict) else None
    login = user.get("login") if isinstance(user, dict) else None
    return login if isinstance(login, str) and login else None


def _patch(client: GitHubClient, repo: str, comment: dict[str, Any], body: str) -> dict[str, Any]:
    if comment.get("body") == body:
        return comment
    response = client.request(
        "PATCH",
        f"/repos/{repo}/issues/comments/{int(comment['id'])}",
        json_body={"body": body},
        permission=WRITE_PERMISSION,
    )
    payload = response.json()
    return payload if isinstance(payload, dict) else comment


def _delete(client: GitHubClient, repo: str, extra: list[dict[str, Any]]) -> int:
    removed = 0
    for comment in extra:
        try:
            client.request(
                "DELETE", f"/repos/{repo}/issues/comments/{int(comment['id'])}", permission=WRITE_PERMISSION
            )
        except GitHubError as exc:
            if exc.status != 404:  # another run deleted it first
                raise
        removed += 1
    return removed


def _result(action: CommentAction, payload: dict[str, Any], removed: int) -> CommentResult:
    cid = payload.get("id")
    url = payload.get("html_url")
    return CommentResult(
        action=action,
        url=url if isinstance(url, str) else None,
        comment_id=cid if isinstance(cid, int) else None,
        removed=removed,
    )


def _forbidden_notice(pr: int, exc: GitHubError) -> str:
    return (
        f"Could not comment on pull request #{pr}: the token lacks `{WRITE_PERMISSION}` (HTTP {exc.status}; "
        "a pull request from a fork gets a read-only token). The report is in the job summary; to "
        "comment on fork pull requests, use the workflow_run publisher recipe (agent-evals publish)."
    )
