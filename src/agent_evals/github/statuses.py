"""The gate's commit status (``POST /repos/{owner}/{repo}/statuses/{sha}``): the check branch protection requires.

https://docs.github.com/rest/commits/statuses#create-a-commit-status - ``state`` is one of error,
failure, pending or success; ``description`` is short (GitHub refuses more than 140 characters);
``context`` names the check (``agent-evals/<gate-id>``), and the newest status of a context on a commit
is the one branch protection and rulesets read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from agent_evals.errors import GitHubError

if TYPE_CHECKING:
    from agent_evals.github.client import GitHubClient

StatusState = Literal["success", "failure", "error"]

PERMISSION = "statuses: write"
MAX_DESCRIPTION = 139
"""GitHub refuses descriptions over 140 characters; one is kept for the ellipsis's sake."""
_SHA = re.compile(r"^[0-9a-f]{40}$")
_SAFE_URL = re.compile(r"^https?://[^\s<>\"'()\[\]`]+$")


@dataclass(frozen=True)
class CommitStatus:
    """One status to set: what the publisher concluded, said in a line."""

    state: StatusState
    """success (passed, or failed and accepted), failure (gate failed), error (no verdict)."""
    description: str
    """Plain text; shortened to fit GitHub's limit."""


def status_context(gate_id: str) -> str:
    """The status context of a gate: ``agent-evals/<gate-id>`` (the name to require in branch protection)."""
    return f"agent-evals/{gate_id}"


def fit_description(text: str) -> str:
    """``text`` on one line, without control characters, at most :data:`MAX_DESCRIPTION` characters."""
    flat = " ".join(re.sub(r"[\x00-\x1f\x7f]", " ", text).split())
    return flat if len(flat) <= MAX_DESCRIPTION else flat[: MAX_DESCRIPTION - 1].rstrip() + "…"


def set_status(
    client: GitHubClient,
    repo: str,
    sha: str,
    status: CommitStatus,
    *,
    context: str,
    target_url: str | None,
) -> None:
    """Set ``status`` on commit ``sha`` of ``repo`` under ``context``; raise GitHubError when GitHub refuses.

    ``target_url`` is sent only when it is a plain http(s) URL (the gate run's page).
    """
    if not _SHA.match(sha):
        raise ValueError(f"not a commit SHA: {sha!r}")
    body: dict[str, str] = {
        "state": status.state,
        "context": context,
        "description": fit_description(status.description),
    }
    if target_url and _SAFE_URL.match(target_url):
        body["target_url"] = target_url
    for attempt in (1, 2):
        try:
            client.request("POST", f"/repos/{repo}/statuses/{sha}", json_body=body, permission=PERMISSION)
            return
        except GitHubError as exc:
            # a POST is not retried by the client (it may have landed); setting the same status twice
            # is harmless (the newest of a context counts), so one more try after a 5xx or network error
            if attempt == 2 or (exc.status is not None and exc.status < 500):
                raise
