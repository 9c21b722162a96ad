"""The sticky pull request comment: find it by its hidden marker, update it in place or create it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from agent_evals.errors import GitHubError, GitHubPermissionError

if TYPE_CHECKING:
    from agent_evals.github.client import GitHubClient

CommentAction = Literal["created", "updated", "skipped", "forbidden"]
FORBIDDEN_HINT = "Resource not accessible by integration"


def marker(gate_id: str) -> str:
    """The hidden HTML comment that identifies one gate's comment on a pull request."""
    return f"<!-- agent-evals:gate:{gate_id} -->"


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


def find_comment(client: GitHubClient, repo: str, pr: int, gate_id: str) -> dict[str, Any] | None:
    """The first issue comment of ``pr`` that carries this gate's marker (every page is searched)."""
    tag = marker(gate_id)
    for comment in client.paginate(f"/repos/{repo}/issues/{pr}/comments", permission="pull-requests: read"):
        body = comment.get("body")
        if isinstance(body, str) and tag in body:
            return comment
    return None


def upsert_comment(
    client: GitHubClient, repo: str, pr: int, gate_id: str, body: str, *, create: bool = True
) -> CommentResult:
    """Update this gate's comment in place, or post it when none exists and ``create`` is true.

    A read-only token (a pull request from a fork) is not an error: the result is ``forbidden``
    with a notice, and the caller keeps the gate's exit code.
    """
    tag = marker(gate_id)
    if tag not in body:
        body = f"{tag}\n{body}"
    try:
        existing = find_comment(client, repo, pr, gate_id)
        if existing is not None:
            response = client.request(
                "PATCH",
                f"/repos/{repo}/issues/comments/{int(existing['id'])}",
                json_body={"body": body},
                permission="pull-requests: write",
            )
            return _result("updated", response.json())
        if not create:
            return CommentResult(action="skipped")
        response = client.request(
            "POST",
            f"/repos/{repo}/issues/{pr}/comments",
            json_body={"body": body},
            permission="pull-requests: write",
        )
        return _result("created", response.json())
    except GitHubPermissionError as exc:
        return CommentResult(action="forbidden", notice=_forbidden_notice(pr, exc))
    except GitHubError as exc:
        if exc.status == 404 and FORBIDDEN_HINT.lower() in str(exc).lower():
            return CommentResult(action="forbidden", notice=_forbidden_notice(pr, exc))
        raise


def _result(action: CommentAction, payload: Any) -> CommentResult:
    data = payload if isinstance(payload, dict) else {}
    cid = data.get("id")
    url = data.get("html_url")
    return CommentResult(
        action=action,
        url=url if isinstance(url, str) else None,
        comment_id=cid if isinstance(cid, int) else None,
    )


def _forbidden_notice(pr: int, exc: GitHubError) -> str:
    return (
        f"Could not comment on pull request #{pr}: the token is read-only (HTTP {exc.status}; typical for "
        "pull requests from forks). The report is in the job summary; to comment on fork pull requests, "
        "use the workflow_run publisher recipe (agent-evals publish)."
    )
