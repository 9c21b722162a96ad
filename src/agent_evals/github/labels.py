"""The accept label, read live from the pull request when the gate decides (never from the event payload)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_evals.errors import GitHubError
from agent_evals.github.deadline import DEFAULT_DEADLINE_S

if TYPE_CHECKING:
    from agent_evals.github.client import GitHubClient


@dataclass(frozen=True)
class Acceptance:
    """Whether the accept label is on the pull request now, and a notice when that could not be read."""

    accepted: bool
    """True only when the live labels carry the accept label."""
    notice: str | None = None
    """Why the labels could not be read (the regression is then not accepted)."""


def live_labels(client: GitHubClient, repo: str, pr: int) -> tuple[str, ...]:
    """The names of the labels on ``pr`` now (``GET /repos/{repo}/issues/{pr}/labels``, every page up to
    the client's page limit), all read within the client's deadline (else ``DEFAULT_DEADLINE_S``)."""
    with client.within(client.deadline_s or DEFAULT_DEADLINE_S, "the label read"):
        return tuple(
            str(item["name"])
            for item in client.paginate(f"/repos/{repo}/issues/{pr}/labels", permission="pull-requests: read")
            if isinstance(item.get("name"), str)
        )


def read_acceptance(client: GitHubClient | None, repo: str | None, pr: int | None, label: str) -> Acceptance:
    """Is ``label`` on the pull request right now? Any doubt answers no, with a notice saying why.

    The event payload is not consulted: a re-run replays the payload of the original event, so a label
    added or removed since would be missed.
    """
    if client is None or repo is None or pr is None:
        return Acceptance(False)
    try:
        labels = live_labels(client, repo, pr)
    except GitHubError as exc:
        return Acceptance(
            False,
            f"Could not read the labels of pull request #{pr}, so a {label!r} label cannot accept a failed "
            f"gate: {exc}",
        )
    return Acceptance(label in labels)
