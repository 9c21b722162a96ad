"""Find the base branch's baseline run record among the artifacts of successful workflow runs."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote

from agent_evals.errors import AgentEvalsError, GitHubError, GitHubPermissionError, GitHubUnavailableError
from agent_evals.github.deadline import DEFAULT_DEADLINE_S, BodyTooLargeError

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_evals.gate.model import BaselineInfo
    from agent_evals.github.client import GitHubClient
    from agent_evals.record.model import RunRecord

log = logging.getLogger(__name__)

MAX_ARTIFACT_BYTES = 200 * 1024 * 1024
MAX_RUN_PAGES = 5
BASELINE_EVENTS = frozenset({"push", "workflow_dispatch"})
"""The events whose runs on the default branch record a baseline."""


@dataclass(frozen=True)
class BaselineResult:
    """The baseline found (record plus provenance), or exactly why there is none."""

    record: RunRecord | None
    """The baseline run record, None when missing."""
    source: Literal["artifact", "file", "none"]
    """``artifact``, ``file`` or ``none``."""
    run_id: int | None = None
    """The workflow run the artifact came from."""
    sha: str | None = None
    """The commit that run was made on."""
    date: str | None = None
    """When that run was created (ISO 8601)."""
    url: str | None = None
    """Web link to that run."""
    ref: str | None = None
    """The branch the baseline was made on."""
    path: str | None = None
    """Local file path, for ``file`` baselines."""
    reason_missing: str | None = None
    """Why no baseline is available, in words a user can act on."""
    note: str | None = None
    """How the run was chosen (merge base, or the newest older run)."""
    history: tuple[RunRecord, ...] = ()
    """Earlier baselines of the gate (older than the chosen one, newest first), for the gate's history."""
    unreadable: str | None = None
    """Why the baseline that was found could not be used (set with ``reason_missing``)."""
    unavailable: str | None = None
    """Why GitHub gave no usable answer (5xx, network, rate limit, a refused token, a garbled body; set
    with ``reason_missing``): whether a baseline exists, and what it says, is unknown, so there is no
    verdict (exit 3), never a pass."""

    def to_info(self) -> BaselineInfo:
        """The gate's provenance model for reports."""
        from agent_evals.gate.model import BaselineInfo

        return BaselineInfo(
            source=self.source,
            run_id=str(self.run_id) if self.run_id is not None else None,
            sha=self.sha,
            ref=self.ref,
            date=self.date,
            url=self.url,
            path=self.path,
            reason_missing=self.reason_missing,
            unreadable=self.unreadable,
            selection=self.note,
        )


def missing(reason: str) -> BaselineResult:
    """A result that says why no baseline is available."""
    return BaselineResult(record=None, source="none", reason_missing=reason)


def unreadable(reason: str, **provenance: Any) -> BaselineResult:
    """A baseline was found but cannot be used: missing for the gate (``on_missing_baseline``), and
    marked so that every report says so instead of reading like a first run."""
    return BaselineResult(record=None, source="none", reason_missing=reason, unreadable=reason, **provenance)


def unavailable(exc: GitHubError, **provenance: Any) -> BaselineResult:
    """GitHub gave no usable answer while the baseline was looked up: unknown, not missing."""
    why = f"GitHub could not be asked for the baseline: {exc}"
    return BaselineResult(record=None, source="none", reason_missing=why, unavailable=why, **provenance)


def within_deadline(
    client: GitHubClient, deadline_s: float | None, lookup: Callable[[], BaselineResult]
) -> BaselineResult:
    """Run a baseline ``lookup`` under one overall deadline: ``deadline_s``, else the client's own, else
    ``DEFAULT_DEADLINE_S``. Every call and download of it counts against that bound; when it passes the
    baseline is unknown (``unavailable``: no verdict, exit 3), never missing. A lookup returns ``missing``
    itself for GitHub's positive answers; any GitHubError it lets out is unknown too."""
    seconds = deadline_s if deadline_s is not None else client.deadline_s or DEFAULT_DEADLINE_S
    try:
        with client.within(seconds, "the baseline lookup"):
            return lookup()
    except GitHubError as exc:  # one raised where no provenance was known yet
        return unavailable(exc)


def says_not_there(exc: GitHubError) -> bool:
    """True for GitHub's positive answers that a thing cannot be had: 404 (not there, or not visible to
    the token), 410 (expired or deleted), a permission the token lacks (403), a body over its cap.
    Anything else (a 401, another 4xx, a 5xx, a garbled body) says nothing about what is there."""
    return isinstance(exc, (GitHubPermissionError, BodyTooLargeError)) or exc.status in (404, 410)


def find_merge_base(client: GitHubClient, repo: str, base: str, head: str) -> tuple[str | None, str | None]:
    """``(sha, date)`` of the merge base of ``base...head`` via the compare API, or ``(None, None)`` when
    GitHub says there is none to see (404: unknown commits or no common ancestor; 403: the token lacks
    ``contents: read``). Any other failure, or an answer without the merge base, raises GitHubError:
    the baseline it would pick is unknown."""
    endpoint = f"/repos/{repo}/compare/{quote(base, safe='')}...{quote(head, safe='')}"
    try:
        body = client.get_json(endpoint, permission="contents: read")
    except GitHubError as exc:
        if isinstance(exc, GitHubPermissionError) or exc.status == 404:
            log.warning("cannot find the merge base (%s); using the newest older baseline run", exc)
            return None, None
        raise
    commit = body.get("merge_base_commit") if isinstance(body, dict) else None
    if not isinstance(commit, dict) or not isinstance(commit.get("sha"), str):
        raise GitHubUnavailableError(
            f"GitHub API GET {endpoint} answered without a merge base commit; re-run the job",
            endpoint=f"GET {endpoint}",
        )
    inner = commit.get("commit") or {}
    date = ((inner.get("committer") or {}).get("date")) if isinstance(inner, dict) else None
    return commit["sha"], date if isinstance(date, str) else None


def choose_run(
    runs: list[dict[str, Any]], merge_base_sha: str | None, merge_base_date: str | None
) -> tuple[dict[str, Any] | None, str]:
    """Pick the run at the merge base, else the newest run not newer than the merge base, else the newest."""
    if not runs:
        return None, ""
    ordered = sorted(runs, key=lambda r: str(r.get("created_at") or ""), reverse=True)
    if merge_base_sha:
        for run in ordered:
            if run.get("head_sha") == merge_base_sha:
                return run, f"the run at the merge base {merge_base_sha[:7]}"
    if merge_base_date:
        older = [r for r in ordered if str(r.get("created_at") or "") <= merge_base_date]
        if older:
            at = f" {merge_base_sha[:7]}" if merge_base_sha else ""
            return older[0], (
                f"the newest successful run older than the merge base{at}, since no run exists at the merge base"
            )
    if merge_base_sha:
        return ordered[0], (
            f"the newest successful run of the base branch, since none exists at or before the merge base "
            f"{merge_base_sha[:7]}"
        )
    return ordered[0], "the newest successful run of the base branch (the merge base is unknown)"


def find_baseline(
    client: GitHubClient,
    *,
    repo: str,
    workflow: str,
    branch: str,
    artifact_name: str,
    base_sha: str | None = None,
    head_sha: str | None = None,
    server_url: str = "https://github.com",
    gate_id: str | None = None,
    history_limit: int = 0,
    deadline_s: float | None = None,
) -> BaselineResult:
    """Look the baseline up within ``deadline_s`` (``within_deadline``); every failure to find one becomes ``reason_missing``, never an exception
    (when GitHub gave no usable answer, ``unavailable`` too: the baseline is unknown, not missing).

    With ``history_limit`` > 0, up to that many earlier baselines (runs older than the chosen one)
    are read too, for the gate's history; one that cannot be read is left out, never an error.

    Candidate runs are successful ``push`` or ``workflow_dispatch`` runs of ``workflow`` on ``branch``
    in ``repo`` itself; each run is re-checked here rather than trusting the server's filters (a
    fork's pull request from its own ``main`` must never count). The artifact is
    ``<artifact_name>-<gate_id>``, else the bare ``artifact_name`` of older uploads (the note says so).

    Endpoints: workflow runs (``actions: read``), compare (``contents: read``), run artifacts and the
    artifact zip (``actions: read``); the zip is a redirect that is followed without the token.
    """
    return within_deadline(
        client,
        deadline_s,
        lambda: _find_baseline(
            client, repo=repo, workflow=workflow, branch=branch, artifact_name=artifact_name,
            base_sha=base_sha, head_sha=head_sha, server_url=server_url, gate_id=gate_id,
            history_limit=history_limit,
        ),
    )  # fmt: skip


def _find_baseline(
    client: GitHubClient,
    *,
    repo: str,
    workflow: str,
    branch: str,
    artifact_name: str,
    base_sha: str | None,
    head_sha: str | None,
    server_url: str,
    gate_id: str | None,
    history_limit: int,
) -> BaselineResult:
    from agent_evals.github.archive import read_run_record

    where = f"workflow {workflow!r} on branch {branch!r}"
    merge_sha, merge_date = (None, None)
    if base_sha and head_sha:
        merge_sha, merge_date = find_merge_base(client, repo, base_sha, head_sha)
    provenance: dict[str, Any] = {}
    try:
        runs: list[dict[str, Any]] = []
        older = -1  # baseline runs listed after the one at the merge base (-1: not seen yet)
        for run in client.paginate(
            f"/repos/{repo}/actions/workflows/{quote(workflow, safe='')}/runs",
            params={"branch": branch, "status": "success"},
            item_key="workflow_runs",
            permission="actions: read",
            max_pages=MAX_RUN_PAGES,
        ):
            if not is_baseline_run(run, repo=repo, branch=branch):
                continue
            runs.append(run)
            if older >= 0:
                older += 1
            elif merge_sha and run.get("head_sha") == merge_sha:
                older = 0
            if older >= history_limit:
                break  # the merge base's run and enough older ones for the history are listed
        chosen, how = choose_run(runs, merge_sha, merge_date)
        if chosen is None:
            return missing(
                f"no successful push or workflow_dispatch run of {where} yet; the first merge to {branch} "
                "creates the baseline"
            )
        run_id = int(chosen["id"])
        provenance = {
            "run_id": run_id,
            "sha": chosen.get("head_sha"),
            "date": chosen.get("created_at"),
            "url": chosen.get("html_url") or f"{server_url}/{repo}/actions/runs/{run_id}",
            "ref": branch,
        }
        names = [f"{artifact_name}-{gate_id}", artifact_name] if gate_id else [artifact_name]
        artifact = _find_artifact(client, repo, run_id, names)
        if artifact is None:
            wanted = " or ".join(repr(n) for n in names)
            return _missing_with(provenance, f"run {run_id} of {where} has no artifact named {wanted}")
        if gate_id and artifact.get("name") == artifact_name:
            how += (
                f"; its artifact is the bare {artifact_name!r} of an older upload "
                f"(new uploads are named {names[0]!r})"
            )
        artifact_name = str(artifact.get("name"))
        if artifact.get("expired"):
            return _missing_with(
                provenance,
                f"artifact {artifact_name!r} of run {run_id} has expired; "
                "re-run the baseline workflow on the base branch or raise its retention-days",
            )
        data = _artifact_zip(client, repo, artifact)
    except GitHubPermissionError as exc:
        return missing(f"the token cannot read workflow artifacts (add `permissions: actions: read`): {exc}")
    except BodyTooLargeError as exc:
        return unreadable(f"rejected the baseline artifact: {exc}", **provenance)
    except GitHubError as exc:  # only GitHub's positive answers mean missing; anything else is unknown
        if exc.status == 410:
            return missing(f"artifact {artifact_name!r} has expired (HTTP 410); re-run the baseline workflow")
        if exc.status == 404 and "/workflows/" in (exc.endpoint or ""):
            return missing(f"workflow {workflow!r} was not found in {repo}; set --baseline-workflow")
        return unavailable(exc, **provenance)
    try:
        record = read_run_record(data, source=f"artifact {artifact_name!r} of run {run_id}")
    except AgentEvalsError as exc:
        return unreadable(f"rejected the baseline artifact: {exc}", **provenance)
    try:
        history = _earlier_baselines(client, repo, runs, chosen, names, history_limit)
    except GitHubError as exc:  # a lost earlier baseline changes how flips weigh
        return unavailable(exc, **provenance)
    if history:
        how += f"; {len(history)} earlier baseline(s) read as the gate's history"
    return BaselineResult(record=record, source="artifact", note=how, history=history, **provenance)


def _artifact_zip(client: GitHubClient, repo: str, artifact: dict[str, Any]) -> bytes:
    """An artifact's zip (a redirect to the storage host, followed without the token), size-capped."""
    return client.download(
        f"/repos/{repo}/actions/artifacts/{int(artifact['id'])}/zip",
        permission="actions: read",
        max_bytes=MAX_ARTIFACT_BYTES,
        what="the baseline artifact download",
    )


def _earlier_baselines(
    client: GitHubClient,
    repo: str,
    runs: list[dict[str, Any]],
    chosen: dict[str, Any],
    names: list[str],
    limit: int,
) -> tuple[RunRecord, ...]:
    """Run records of up to ``limit`` listed runs older than ``chosen``, newest first; unreadable, expired or
    missing ones skipped (``says_not_there``); GitHubError when GitHub gave no usable answer."""
    from agent_evals.github.archive import read_run_record

    when = str(chosen.get("created_at") or "")
    older = sorted(
        (r for r in runs if r is not chosen and str(r.get("created_at") or "") <= when),
        key=lambda r: str(r.get("created_at") or ""),
        reverse=True,
    )
    found: list[RunRecord] = []
    for run in older[: max(0, limit)]:
        run_id = int(run["id"])
        try:
            artifact = _find_artifact(client, repo, run_id, names)
            if artifact is None or artifact.get("expired"):
                continue
            data = _artifact_zip(client, repo, artifact)
            found.append(read_run_record(data, source=f"artifact of run {run_id}"))
        except GitHubError as exc:
            if not says_not_there(exc):
                raise
            log.info("earlier baseline of run %s left out of the history: %s", run_id, exc)
        except AgentEvalsError as exc:  # history is extra evidence: an unreadable one is left out
            log.info("earlier baseline of run %s left out of the history: %s", run_id, exc)
    return tuple(found)


def _missing_with(provenance: dict[str, Any], reason: str) -> BaselineResult:
    return BaselineResult(record=None, source="none", reason_missing=reason, **provenance)


def is_baseline_run(run: dict[str, Any], *, repo: str, branch: str) -> bool:
    """A successful push or workflow_dispatch run on ``branch`` of ``repo`` itself (not a fork)."""
    head_repo = run.get("head_repository")
    head_name = head_repo.get("full_name") if isinstance(head_repo, dict) else None
    return (
        run.get("event") in BASELINE_EVENTS
        and run.get("head_branch") == branch
        and run.get("conclusion") == "success"
        and head_name == repo
    )


def _find_artifact(client: GitHubClient, repo: str, run_id: int, names: list[str]) -> dict[str, Any] | None:
    """The first of ``names`` the run has (every page read), preferring a live copy of a name."""
    found: dict[str, dict[str, Any]] = {}
    for artifact in client.paginate(
        f"/repos/{repo}/actions/runs/{run_id}/artifacts", item_key="artifacts", permission="actions: read"
    ):
        name = artifact.get("name")
        if name not in names:
            continue
        # Prefer a live copy when a re-run uploaded the same name twice.
        current = found.get(str(name))
        if current is None or (current.get("expired") and not artifact.get("expired")):
            found[str(name)] = artifact
    return next((found[n] for n in names if n in found), None)
