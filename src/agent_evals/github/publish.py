"""The privileged half of the fork-safe recipe: re-judge a fork's run record ourselves, then comment.

Nothing the fork produced is posted as is: its run record is read (schema-checked), compared with the
base branch's baseline found here with the trusted token, under the policy of the checked-out
default branch, and rendered by our escaping renderer. What to post (``comment``), which baseline
and which label accepts come from the publisher's own inputs, never from the artifact.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agent_evals.errors import GitHubError, GitHubUnavailableError, RunRecordError, UsageError
from agent_evals.github.comments import check_gate_id

if TYPE_CHECKING:
    from collections.abc import Mapping

    from agent_evals.core.record import RunRecord
    from agent_evals.gate.model import Comparison
    from agent_evals.github.client import GitHubClient
    from agent_evals.github.comments import CommentResult

ARTIFACT_PREFIXES = ("agent-evals-run-", "agent-evals-report-")
_SAFE_URL = re.compile(r"^https?://[^\s<>\"'()\[\]`]+$")

CommentMode = Literal["always", "on-failure", "never"]


@dataclass(frozen=True)
class GateRun:
    """The pull request's gate run, as the trusted ``workflow_run`` event describes it."""

    run_id: int | None
    """``workflow_run.id``."""
    head_sha: str | None
    """The commit the gate ran on."""
    head_repo: str | None
    """``owner/name`` the pull request comes from."""
    conclusion: str | None
    """success, failure, ... of the gate run."""
    url: str | None
    """Web link to the gate run."""
    workflow_file: str | None
    """The gate workflow's file name (``gate.yml``)."""


@dataclass(frozen=True)
class ForkRun:
    """The fork's run record and the gate it belongs to."""

    record: RunRecord
    """The schema-checked run record (the pull request's claim about its results)."""
    gate_id: str
    """From ``--gate-id`` or the artifact folder's name."""
    pr: int | None
    """The pull request number the record names (verified before use)."""


@dataclass(frozen=True)
class PublishOptions:
    """The publisher workflow's own inputs."""

    comment: CommentMode = "always"
    """When to write the comment."""
    baseline_artifact: str = "agent-evals-baseline"
    """Name of the baseline artifact."""
    baseline_workflow: str | None = None
    """Workflow whose push runs upload the baseline (default: the gate's workflow)."""
    accept_label: str = "agent-evals:accept-regression"
    """Label that accepts a failed verdict (read live)."""
    config: Path | None = None
    """Repo policy file of the trusted checkout."""


@dataclass(frozen=True)
class Published:
    """What the publisher did."""

    comparison: Comparison
    """Our own verdict on the fork's record."""
    body: str
    """The Markdown we rendered."""
    comment: CommentResult | None
    """What happened to the comment (None when ``comment`` said not to write one)."""
    accepted: bool
    """True when the accept label is on the pull request now."""


def read_gate_run(event_path: str | None) -> GateRun:
    """The gate run from a ``workflow_run`` event payload; empty fields when there is none."""
    data: Any = {}
    if event_path:
        try:
            data = json.loads(Path(event_path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UsageError(f"cannot read the event payload {event_path}: {exc}") from exc
    run = data.get("workflow_run") if isinstance(data, dict) else None
    run = run if isinstance(run, dict) else {}
    head_repo = run.get("head_repository")
    path = run.get("path")
    return GateRun(
        run_id=run["id"] if isinstance(run.get("id"), int) else None,
        head_sha=_str(run.get("head_sha")),
        head_repo=_str(head_repo.get("full_name")) if isinstance(head_repo, dict) else None,
        conclusion=_str(run.get("conclusion")),
        url=_str(run.get("html_url")),
        workflow_file=path.rsplit("/", 1)[-1] if isinstance(path, str) and path else None,
    )


def load_fork_run(source: Path, gate_id: str | None = None) -> ForkRun:
    """Read the fork's ``run.json`` (a file, or the downloaded artifact folder holding it).

    Any ``report.md`` beside it is ignored: Markdown the fork wrote is never posted.
    """
    from agent_evals.gate.reader import read_record

    folder, record_path = (source, source / "run.json") if source.is_dir() else (source.parent, source)
    if not record_path.is_file():
        raise UsageError(f"{record_path}: no run record; pass the artifact folder that `ci` uploaded")
    try:
        record = read_record(record_path)
    except RunRecordError as exc:
        raise UsageError(f"the pull request's run record is not usable: {exc}") from exc
    if gate_id is None:
        name = folder.name
        prefix = next((p for p in ARTIFACT_PREFIXES if name.startswith(p)), None)
        if prefix is None:
            raise UsageError(
                f"cannot tell the gate id from the folder name {name!r}; pass --gate-id "
                f"(artifact folders are named {ARTIFACT_PREFIXES[0]}<gate-id>)"
            )
        gate_id = name[len(prefix) :]
    pr = record.run.ci.pr
    return ForkRun(record=record, gate_id=check_gate_id(gate_id), pr=pr if pr and pr > 0 else None)


def check_pull_request(
    client: GitHubClient, repo: str, pr: int, head_sha: str, head_repo: str | None = None
) -> dict[str, Any]:
    """The pull request ``pr`` of ``repo``, refusing (UsageError) unless its head is ``head_sha`` (and
    comes from ``head_repo`` when given)."""
    try:
        data = client.get_json(f"/repos/{repo}/pulls/{pr}", permission="pull-requests: read")
    except GitHubError as exc:
        if exc.status == 404:
            raise UsageError(f"#{pr} is not a pull request of {repo}; refusing to publish") from exc
        raise
    data = data if isinstance(data, dict) else {}
    head, base = _obj(data.get("head")), _obj(data.get("base"))
    actual = head.get("sha")
    base_repo = _obj(base.get("repo")).get("full_name")
    actual_head_repo = _obj(head.get("repo")).get("full_name")
    if base_repo is not None and base_repo != repo:
        raise UsageError(f"pull request #{pr} targets {base_repo}, not {repo}; refusing to publish")
    if actual != head_sha:
        raise UsageError(
            f"pull request #{pr} is at {str(actual)[:12]}, but the report was made for {head_sha[:12]}; "
            "refusing to publish a report for another commit"
        )
    if head_repo is not None and actual_head_repo != head_repo:
        raise UsageError(
            f"pull request #{pr} comes from {actual_head_repo}, but the gate ran on {head_repo}; "
            "refusing to publish"
        )
    return data


def publish(
    client: GitHubClient,
    repo: str,
    fork: ForkRun,
    *,
    pr: int,
    gate_run: GateRun,
    options: PublishOptions,
    cwd: Path,
    env: Mapping[str, str],
) -> Published:
    """Validate the pull request, judge the fork's record against our baseline, comment as asked."""
    from agent_evals.github.comments import upsert_comment
    from agent_evals.github.labels import read_acceptance

    if not gate_run.head_sha:
        raise UsageError("no head commit to check: pass --head-sha (or run from a workflow_run event)")
    pull = check_pull_request(client, repo, pr, gate_run.head_sha, gate_run.head_repo)
    comparison = _judge(client, repo, fork, pull, gate_run, options, cwd)
    acceptance = (
        read_acceptance(client, repo, pr, options.accept_label) if comparison.exit_code != 0 else None
    )
    accepted = bool(acceptance and acceptance.accepted)
    body = _render(comparison, fork.gate_id, gate_run, env, options.accept_label if accepted else None)
    if options.comment == "never":
        return Published(comparison, body, None, accepted)
    create = options.comment == "always" or comparison.exit_code != 0
    result = upsert_comment(client, repo, pr, fork.gate_id, body, create=create)
    return Published(comparison, body, result, accepted)


def _judge(
    client: GitHubClient,
    repo: str,
    fork: ForkRun,
    pull: dict[str, Any],
    gate_run: GateRun,
    options: PublishOptions,
    cwd: Path,
) -> Comparison:
    from agent_evals.gate.compare import compare_runs
    from agent_evals.gate.policy import discover_repo_config, resolve_policy
    from agent_evals.github.baseline import find_baseline, missing

    base = _obj(pull.get("base"))
    branch = _str(base.get("ref"))
    workflow = options.baseline_workflow or gate_run.workflow_file
    if not branch or not workflow:
        found = missing("the base branch or the baseline workflow is unknown; pass --baseline-workflow")
    else:
        found = find_baseline(
            client,
            repo=repo,
            workflow=workflow,
            branch=branch,
            artifact_name=options.baseline_artifact,
            base_sha=_str(base.get("sha")),
            head_sha=gate_run.head_sha,
            gate_id=fork.gate_id,
        )
    if found.unavailable:  # unknown, not missing: no verdict to post (exit 3), never "no baseline"
        raise GitHubUnavailableError(f"{found.unavailable}; nothing was posted, re-run the publisher")
    # the policy is the trusted one: the default branch's config and the baseline's suite blocks,
    # never the `gate:` blocks the pull request's record carries
    trusted_blocks = {s.id: s.gate for s in found.record.suites} if found.record is not None else {}
    policy = resolve_policy(
        repo_config=options.config or discover_repo_config(cwd), suite_blocks=trusted_blocks, overrides={}
    )
    try:
        return compare_runs(found.record, fork.record, policy, baseline_info=found.to_info())
    except RunRecordError as exc:  # a record the reader refuses; one that shares no case fails instead
        info = missing(f"the baseline artifact is not comparable: {exc}").to_info()
        return compare_runs(None, fork.record, policy, baseline_info=info)


def _render(
    comparison: Comparison,
    gate_id: str,
    gate_run: GateRun,
    env: Mapping[str, str],
    accepted_label: str | None,
) -> str:
    from agent_evals.report.markdown import fits, render_markdown

    url = gate_run.url if gate_run.url and _SAFE_URL.match(gate_run.url) else None
    text = render_markdown(
        comparison,
        budget="comment",
        gate_id=gate_id,
        full_report_url=url,
        env=env,
        accepted_label=accepted_label,
    )
    marker, verdict, rest = [*text.split("\n", 2), "", ""][:3]
    run = f"[{gate_run.run_id}]({url})" if url and gate_run.run_id else "of the pull request"
    conclusion = re.sub(r"[^a-z_]", "", gate_run.conclusion or "unknown")
    note = (
        "> [!NOTE]\n"
        f"> These results come from the pull request's own code (gate run {run}, concluded `{conclusion}`); "
        "agent-evals compared them with this repository's baseline and rendered this comment itself."
    )
    if conclusion not in ("success", "unknown") and comparison.exit_code == 0:
        note += (
            f"\n\n> [!WARNING]\n> The gate run concluded `{conclusion}`, but the run record it uploaded "
            "compares as passing; check the run's log before trusting this result."
        )
    combined = f"{marker}\n{verdict}\n\n{note}\n{rest}"
    return combined if fits(combined, "comment") else f"{marker}\n{verdict}\n\n{note}\n"


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
