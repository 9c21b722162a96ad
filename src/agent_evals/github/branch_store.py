"""Baselines kept on a data branch of the repository (opt-in): they never expire as artifacts do.

Layout on the branch: ``<gate-id>/index.json`` lists the kept baselines newest first (commit, date,
workflow run, file) and ``<gate-id>/<commit>.json`` holds each run record. Writing uses the contents
API (``contents: write``, only on the default branch's runs); reading needs ``contents: read``.
"""

from __future__ import annotations

import base64
import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from agent_evals.errors import (
    AgentEvalsError,
    GitHubError,
    GitHubPermissionError,
    GitHubUnavailableError,
    RunRecordError,
)

if TYPE_CHECKING:
    from agent_evals.github.baseline import BaselineResult
    from agent_evals.github.client import GitHubClient
    from agent_evals.record.model import RunRecord

log = logging.getLogger(__name__)

DEFAULT_BRANCH = "agent-evals-data"
DEFAULT_KEEP = 10
RAW = "application/vnd.github.raw+json"
MAX_RECORD_BYTES = 200 * 1024 * 1024


@dataclass(frozen=True)
class Stored:
    """What writing a baseline to the data branch did."""

    path: str
    """The record's path on the branch."""
    removed: tuple[str, ...]
    """Older records dropped to keep the last N."""


def _contents(repo: str, path: str) -> str:
    return f"/repos/{repo}/contents/{quote(path)}"


def _read_index(
    client: GitHubClient, repo: str, branch: str, gate_id: str
) -> tuple[list[dict[str, Any]], str | None]:
    """The index entries and the index file's blob sha (None when there is no index yet)."""
    try:
        body = client.get_json(
            _contents(repo, f"{gate_id}/index.json"), params={"ref": branch}, permission="contents: read"
        )
    except GitHubError as exc:
        if exc.status == 404:
            return [], None
        raise
    if not isinstance(body, dict) or body.get("encoding") != "base64":
        raise GitHubError(
            f"{gate_id}/index.json on branch {branch!r} is not a file the contents API can read"
        )
    try:
        entries = json.loads(base64.b64decode(str(body.get("content") or "")))
    except ValueError as exc:
        raise GitHubError(
            f"{gate_id}/index.json on branch {branch!r} is not valid JSON; delete it to start over"
        ) from exc
    kept = (
        [e for e in entries if isinstance(e, dict) and isinstance(e.get("sha"), str)]
        if isinstance(entries, list)
        else []
    )
    return kept, str(body.get("sha") or "") or None


def _put(
    client: GitHubClient, repo: str, branch: str, path: str, data: bytes, message: str, sha: str | None
) -> None:
    body: dict[str, Any] = {"message": message, "content": base64.b64encode(data).decode(), "branch": branch}
    if sha:
        body["sha"] = sha
    client.request("PUT", _contents(repo, path), json_body=body, permission="contents: write")


def store_baseline(
    client: GitHubClient,
    repo: str,
    *,
    branch: str,
    gate_id: str,
    record: bytes,
    sha: str,
    date: str,
    run_id: str | None,
    keep: int = DEFAULT_KEEP,
) -> Stored:
    """Write the run record for commit ``sha`` and keep the newest ``keep`` baselines of the gate."""
    if keep < 1:
        raise ValueError("keep must be at least 1")
    try:
        entries, index_sha = _read_index(client, repo, branch, gate_id)
        path = f"{gate_id}/{sha}.json"
        existing = next((e for e in entries if e.get("sha") == sha), None)
        file_sha = _blob_sha(client, repo, branch, path) if existing else None
        _put(client, repo, branch, path, record, f"agent-evals baseline {gate_id} at {sha[:12]}", file_sha)
        entry = {"sha": sha, "date": date, "run_id": run_id, "file": path}
        entries = [entry, *(e for e in entries if e.get("sha") != sha)]
        entries.sort(key=lambda e: str(e.get("date") or ""), reverse=True)
        kept, dropped = entries[:keep], entries[keep:]
        index = json.dumps(kept, indent=1).encode()
        _put(client, repo, branch, f"{gate_id}/index.json", index, f"agent-evals index {gate_id}", index_sha)
        removed = []
        for old in dropped:
            old_path = str(old.get("file") or "")
            blob = _blob_sha(client, repo, branch, old_path) if old_path else None
            if blob:
                client.request(
                    "DELETE",
                    _contents(repo, old_path),
                    json_body={
                        "message": f"agent-evals: drop old baseline {old_path}",
                        "sha": blob,
                        "branch": branch,
                    },
                    permission="contents: write",
                )
                removed.append(old_path)
    except GitHubPermissionError as exc:
        raise GitHubError(
            f"cannot write the baseline to branch {branch!r}: the token lacks `contents: write` "
            f"(give it to the default branch's baseline job only): {exc}",
            status=exc.status,
            endpoint=exc.endpoint,
        ) from exc
    except GitHubError as exc:
        if exc.status in (404, 422):
            raise GitHubError(
                f"cannot write the baseline to branch {branch!r} (HTTP {exc.status}); create the data branch "
                f"once: `git switch --orphan {branch} && git commit --allow-empty -m 'agent-evals data' "
                f"&& git push origin {branch}`: {exc}",
                status=exc.status,
                endpoint=exc.endpoint,
            ) from exc
        raise
    return Stored(path=path, removed=tuple(removed))


def _blob_sha(client: GitHubClient, repo: str, branch: str, path: str) -> str | None:
    try:
        body = client.get_json(_contents(repo, path), params={"ref": branch}, permission="contents: read")
    except GitHubError as exc:
        if exc.status == 404:
            return None
        raise
    sha = body.get("sha") if isinstance(body, dict) else None
    return sha if isinstance(sha, str) else None


def find_branch_baseline(
    client: GitHubClient,
    repo: str,
    *,
    branch: str,
    gate_id: str,
    base_sha: str | None,
    head_sha: str | None,
    server_url: str = "https://github.com",
    history_limit: int = 0,
    deadline_s: float | None = None,
) -> BaselineResult:
    """The gate's baseline from the data branch: at the merge base, else the newest older, else the newest;
    all within ``deadline_s`` (``github.baseline.within_deadline``).

    With ``history_limit`` > 0, up to that many kept baselines older than the chosen one are read
    too, for the gate's history; one that cannot be read is left out, never an error."""
    from agent_evals.github.baseline import within_deadline

    return within_deadline(
        client,
        deadline_s,
        lambda: _find_branch_baseline(
            client, repo, branch=branch, gate_id=gate_id, base_sha=base_sha, head_sha=head_sha,
            server_url=server_url, history_limit=history_limit,
        ),
    )  # fmt: skip


def _find_branch_baseline(
    client: GitHubClient,
    repo: str,
    *,
    branch: str,
    gate_id: str,
    base_sha: str | None,
    head_sha: str | None,
    server_url: str,
    history_limit: int,
) -> BaselineResult:
    from agent_evals.github.baseline import (
        BaselineResult,
        choose_run,
        find_merge_base,
        missing,
        says_not_there,
        unavailable,
        unreadable,
    )

    merge_sha, merge_date = (
        find_merge_base(client, repo, base_sha, head_sha) if base_sha and head_sha else (None, None)
    )
    try:
        entries, _ = _read_index(client, repo, branch, gate_id)
    except GitHubUnavailableError as exc:
        return unavailable(exc)
    except GitHubPermissionError as exc:
        return missing(f"the token cannot read branch {branch!r} (add `permissions: contents: read`): {exc}")
    except GitHubError as exc:
        if exc.status is not None:  # a refused token, another 4xx: nothing is known about the branch
            return unavailable(exc)
        return missing(f"could not read the baselines on branch {branch!r}: {exc}")  # its index is bad
    if not entries:
        return missing(
            f"no baseline of gate {gate_id!r} on branch {branch!r} yet (or no such branch); the default "
            "branch's next run with baseline-store: branch records one"
        )
    runs = [{"head_sha": e["sha"], "created_at": e.get("date"), "entry": e} for e in entries]
    chosen, how = choose_run(runs, merge_sha, merge_date)
    assert chosen is not None  # entries is not empty
    entry = chosen["entry"]
    run_id = entry.get("run_id")
    provenance: dict[str, Any] = {
        "run_id": int(run_id) if isinstance(run_id, (int, str)) and str(run_id).isdigit() else None,
        "sha": entry["sha"],
        "date": entry.get("date"),
        "url": f"{server_url}/{repo}/actions/runs/{run_id}" if run_id else None,
        "ref": branch,
    }
    path = _entry_path(entry, gate_id)
    try:
        record = _read_record(client, repo, branch, path)
    except ValueError as exc:
        return unreadable(f"{path} on branch {branch!r} is not JSON: {exc}", **provenance)
    except GitHubUnavailableError as exc:
        return unavailable(exc, **provenance)
    except GitHubError as exc:
        if not says_not_there(exc):
            return unavailable(exc, **provenance)
        return BaselineResult(
            record=None,
            source="none",
            reason_missing=f"could not read {path} on branch {branch!r}: {exc}",
            **provenance,
        )
    except AgentEvalsError as exc:
        return unreadable(f"rejected the baseline {path}: {exc}", **provenance)
    when = str(entry.get("date") or "")
    history: list[RunRecord] = []
    older = [e for e in entries if e is not entry and str(e.get("date") or "") <= when]
    for earlier in sorted(older, key=lambda e: str(e.get("date") or ""), reverse=True)[
        : max(0, history_limit)
    ]:
        try:
            history.append(_read_record(client, repo, branch, _entry_path(earlier, gate_id)))
        except GitHubError as exc:  # a lost earlier baseline changes how flips weigh
            if not says_not_there(exc):
                return unavailable(exc, **provenance)
            log.info("earlier baseline %s left out of the history: %s", earlier.get("sha"), exc)
        except (ValueError, AgentEvalsError) as exc:  # extra evidence: an unreadable one is left out
            log.info("earlier baseline %s left out of the history: %s", earlier.get("sha"), exc)
    note = f"{how}, kept on branch {branch!r}"
    if history:
        note += f"; {len(history)} earlier baseline(s) read as the gate's history"
    return BaselineResult(record=record, source="artifact", note=note, history=tuple(history), **provenance)


def _entry_path(entry: dict[str, Any], gate_id: str) -> str:
    return str(entry.get("file") or f"{gate_id}/{entry['sha']}.json")


def _read_record(client: GitHubClient, repo: str, branch: str, path: str) -> RunRecord:
    """One kept run record, read raw and checked (ValueError for bad JSON, AgentEvalsError otherwise)."""
    from agent_evals.record.read import parse_record

    response = client.request(
        "GET", _contents(repo, path), params={"ref": branch}, permission="contents: read", accept=RAW
    )
    if len(response.content) > MAX_RECORD_BYTES:
        raise RunRecordError(f"{path} is over {MAX_RECORD_BYTES} bytes")
    return parse_record(json.loads(response.content), source=f"{path} on branch {branch!r}")
