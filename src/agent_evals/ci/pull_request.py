"""Which pull request the publisher judges a gate run for: GitHub's answer, never the run record's claim."""

# The run record is the pull request's own claim, so it cannot pick the pull request (and with it the
# base branch, the baseline and the accept label). GitHub tells us: the workflow_run event lists the
# repository's own pull requests at the gate's commit; a fork's list is empty, so we ask GitHub for the
# open pull requests whose head is that commit, from the repository the gate ran on.

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_evals.errors import GitHubError, UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_evals.github.client import GitHubClient

MAX_PAGES = 10
"""Pages of a commit's pull requests read (100 each); no commit has more open pull requests than that."""


class NotThisPullRequest(UsageError):
    """The pull request is not the gate run's: not of this repository, from another head repository,
    at another commit, or closed (exit 2). Nothing is posted, not even a status."""


class PullRequestMoved(NotThisPullRequest):
    """No open pull request has the gate run's commit as its head any more (a newer push superseded
    it, or it was closed; exit 2)."""


class SeveralPullRequests(UsageError):
    """More than one open pull request has the gate run's commit as its head (exit 2, status error): the
    one status on that commit would stand for all of them, judged against one base only."""


class RecordOfAnotherPullRequest(UsageError):
    """The run record names a pull request other than the one GitHub ties to the gate run (exit 2)."""

    def __init__(self, message: str, *, pr: int) -> None:
        self.pr = pr
        super().__init__(message)


def check_pull_request(
    client: GitHubClient, repo: str, pr: int, head_sha: str, head_repo: str | None = None
) -> dict[str, Any]:
    """The pull request ``pr`` of ``repo``, refusing (UsageError) unless it is open, its head is
    ``head_sha`` and (when given) comes from ``head_repo``."""
    try:
        data = client.get_json(f"/repos/{repo}/pulls/{pr}", permission="pull-requests: read")
    except GitHubError as exc:
        if exc.status == 404:
            raise NotThisPullRequest(f"#{pr} is not a pull request of {repo}; refusing to publish") from exc
        raise
    data = data if isinstance(data, dict) else {}
    head, base = _obj(data.get("head")), _obj(data.get("base"))
    actual = head.get("sha")
    base_repo = _obj(base.get("repo")).get("full_name")
    actual_head_repo = _obj(head.get("repo")).get("full_name")
    if base_repo is not None and base_repo != repo:
        raise NotThisPullRequest(f"pull request #{pr} targets {base_repo}, not {repo}; refusing to publish")
    if actual != head_sha:
        raise PullRequestMoved(
            f"pull request #{pr} is at {str(actual)[:12]}, but the report was made for {head_sha[:12]}; "
            "refusing to publish a report for another commit"
        )
    if head_repo is not None and actual_head_repo != head_repo:
        raise NotThisPullRequest(
            f"pull request #{pr} comes from {actual_head_repo}, but the gate ran on {head_repo}; "
            "refusing to publish"
        )
    if data.get("state") != "open":
        state = data.get("state") if isinstance(data.get("state"), str) else "not open"
        raise NotThisPullRequest(
            f"pull request #{pr} is {state}; refusing to publish for a closed pull request"
        )
    return data


def open_pulls_at(client: GitHubClient, repo: str, head_sha: str, head_repo: str | None) -> tuple[int, ...]:
    """The open pull requests of ``repo`` whose head is ``head_sha`` (from ``head_repo`` when given), as
    GitHub lists the pull requests of that commit (``GET /repos/{owner}/{repo}/commits/{sha}/pulls``:
    open and merged ones that contain it)."""
    numbers: set[int] = set()
    pages = client.paginate(
        f"/repos/{repo}/commits/{head_sha}/pulls", permission="pull-requests: read", max_pages=MAX_PAGES
    )
    for pull in pages:
        head = _obj(pull.get("head"))
        number = pull.get("number")
        if (
            isinstance(number, int)
            and number > 0
            and pull.get("state") == "open"
            and head.get("sha") == head_sha
            and (head_repo is None or _obj(head.get("repo")).get("full_name") == head_repo)
        ):
            numbers.add(number)
    return tuple(sorted(numbers))


def choose_pull_request(
    client: GitHubClient,
    repo: str,
    *,
    head_sha: str,
    head_repo: str | None,
    listed: Sequence[int],
    explicit: int | None,
) -> tuple[int, dict[str, Any]]:
    """The one open pull request the gate run is published for, and its data: ``explicit`` (the
    publisher's ``--pr``), else the event's ``listed`` ones, else the open pull requests GitHub has at
    ``head_sha``; each checked with :func:`check_pull_request`.

    None open is :class:`PullRequestMoved`; more than one is :class:`SeveralPullRequests`.
    """
    if explicit is not None:
        numbers: Sequence[int] = (explicit,)
    else:
        numbers = listed or open_pulls_at(client, repo, head_sha, head_repo)
    if not numbers:
        source = f" from {head_repo}" if head_repo else ""
        raise PullRequestMoved(
            f"no open pull request of {repo} has {head_sha[:12]}{source} as its head (it was closed, or a "
            "newer push moved it on); nothing to publish"
        )
    found: dict[int, dict[str, Any]] = {}
    refused: list[NotThisPullRequest] = []
    for number in dict.fromkeys(numbers):
        try:
            found[number] = check_pull_request(client, repo, number, head_sha, head_repo)
        except NotThisPullRequest as exc:
            refused.append(exc)
    if not found:
        raise refused[0]
    if len(found) > 1:
        named = ", ".join(f"#{n} into {_obj(p.get('base')).get('ref')}" for n, p in found.items())
        raise SeveralPullRequests(
            f"open pull requests {named} all have {head_sha[:12]} as their head, and one commit status "
            "cannot stand for each; close all but one (or push a commit of its own to each) and re-run the gate"
        )
    [(number, pull)] = found.items()
    return number, pull


def check_record_pr(claimed: int | None, pr: int) -> None:
    """Refuse (:class:`RecordOfAnotherPullRequest`) a run record that names a pull request other than
    ``pr``; a record that names none (made outside a pull request's run) passes."""
    if claimed is not None and claimed != pr:
        raise RecordOfAnotherPullRequest(
            f"the run record names pull request #{claimed}, but the gate run's commit is the head of #{pr}: "
            "refusing to judge a record made for another pull request; re-run the gate",
            pr=pr,
        )


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
