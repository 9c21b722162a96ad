"""The privileged half of the fork-safe recipe: check a report's pull request, then post it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_evals.errors import GitHubError, UsageError
from agent_evals.github.comments import GATE_ID_PATTERN

if TYPE_CHECKING:
    from agent_evals.github.client import GitHubClient
    from agent_evals.github.comments import CommentResult

MARKER_RE = re.compile(rf"<!-- agent-evals:gate:({GATE_ID_PATTERN}) -->")
MAX_COMMENT_CHARS = 65_536


@dataclass(frozen=True)
class Publication:
    """A report ready to post: its body, gate id and the pull request it names."""

    body: str
    """The Markdown comment (starts with the hidden marker)."""
    gate_id: str
    """The gate id read from the marker."""
    pr: int | None
    """The pull request number from the run record, when it has one."""


def load_publication(path: Path) -> Publication:
    """Read a report (``report.md``), a run folder (``report.md`` + ``run.json``) or a run record's folder."""
    if path.is_dir():
        report = path / "report.md"
        record = path / "run.json"
    elif path.suffix == ".json":
        report, record = path.with_name("report.md"), path
    else:
        report, record = path, path.with_name("run.json")
    try:
        body = report.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(
            f"cannot read the report {report}: {exc.strerror}; pass the report.md `ci` wrote"
        ) from exc
    if len(body) > MAX_COMMENT_CHARS:
        raise UsageError(
            f"{report}: {len(body)} characters, over GitHub's comment limit of {MAX_COMMENT_CHARS}"
        )
    match = MARKER_RE.match(body)
    if match is None:
        raise UsageError(
            f"{report}: does not start with the agent-evals gate marker; is it a report `ci` wrote?"
        )
    return Publication(body=body, gate_id=match.group(1), pr=_pr_from_record(record))


def _pr_from_record(record: Path) -> int | None:
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    pr = data.get("run", {}).get("ci", {}).get("pr") if isinstance(data, dict) else None
    return pr if isinstance(pr, int) and not isinstance(pr, bool) and pr > 0 else None


def check_pull_request(client: GitHubClient, repo: str, pr: int, head_sha: str) -> None:
    """Raise UsageError unless ``pr`` is a pull request into ``repo`` whose head is ``head_sha``."""
    try:
        data = client.get_json(f"/repos/{repo}/pulls/{pr}", permission="pull-requests: read")
    except GitHubError as exc:
        if exc.status == 404:
            raise UsageError(f"#{pr} is not a pull request of {repo}; refusing to publish") from exc
        raise
    head = data.get("head") if isinstance(data, dict) else None
    base = data.get("base") if isinstance(data, dict) else None
    actual = head.get("sha") if isinstance(head, dict) else None
    base_repo = (base.get("repo") or {}).get("full_name") if isinstance(base, dict) else None
    if base_repo is not None and base_repo != repo:
        raise UsageError(f"pull request #{pr} targets {base_repo}, not {repo}; refusing to publish")
    if actual != head_sha:
        raise UsageError(
            f"pull request #{pr} is at {str(actual)[:12]}, but the report was made for {head_sha[:12]}; "
            "refusing to publish a report for another commit"
        )


def publish(
    client: GitHubClient, repo: str, publication: Publication, *, pr: int, head_sha: str
) -> CommentResult:
    """Validate the pull request, then create or update the gate's sticky comment."""
    from agent_evals.github.comments import upsert_comment

    check_pull_request(client, repo, pr, head_sha)
    return upsert_comment(client, repo, pr, publication.gate_id, publication.body)
