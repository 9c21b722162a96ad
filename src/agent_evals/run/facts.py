"""The record's run block: when the run ran, on which commit, in which CI run, and its budget and shard.

All of it is plain data as the record holds it: the fields known, in the order of the record's models
(``RunInfo``, ``GitInfo``, ``CIInfo``, ``BudgetInfo``), the unknown ones left out as their dump leaves
out None; so a run writes its record without loading pydantic (tests/unit/run/test_run_block.py).
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_evals.clock import iso_utc
from agent_evals.evals.suite_ids import ID_BASE
from agent_evals.version import __version__

if TYPE_CHECKING:
    from agent_evals.cost.budget import Budget
    from agent_evals.run.shard import Slicer


def utc_now() -> str:
    """The current UTC time as ISO 8601 with a ``Z`` suffix."""
    return iso_utc()


def run_block(
    *,
    started_at: str,
    complete: bool,
    git: Mapping[str, str],
    env: Mapping[str, str],
    finished: bool = False,
    budget: Budget | None = None,
    shard: Slicer | None = None,
) -> dict[str, Any]:
    """The run block: ``finished`` adds the end time and the budget's account (a spent budget makes the
    run incomplete); ``git`` is :func:`git_info`'s answer and ``env`` gives :func:`ci_info`."""
    block: dict[str, Any] = {"tool_version": __version__, "started_at": started_at}
    if finished:
        block["finished_at"] = utc_now()
    block["complete"] = complete
    if finished and budget is not None:
        if budget.exhausted:
            block["complete"] = False
            block["incomplete_reason"] = "budget"
        block["budget"] = {
            "limit_usd": budget.limit_usd,
            "spent_usd": round(budget.spent_usd, 6),
            "skipped_trials": budget.skipped,
            "uncounted_trials": budget.uncounted_trials,
        }
        if budget.names:
            block["budget"]["uncounted"] = list(budget.names)
    block["suite_ids"] = ID_BASE
    block["git"] = dict(git)
    block["ci"] = ci_info(env)
    if shard is not None:  # sharded runs load the record models (merge reads them too)
        from agent_evals.record.model import ShardInfo

        info = ShardInfo(index=shard.shard.index, count=shard.shard.count, suites=shard.suites())
        block["shard"] = info.model_dump(mode="json", exclude_none=True)
    return block


def git_info(env: Mapping[str, str], cwd: Path) -> dict[str, str]:
    """Commit SHA and ref from ``GITHUB_SHA``/``GITHUB_REF``, else from ``git`` (best effort)."""
    sha = env.get("GITHUB_SHA")
    ref = env.get("GITHUB_HEAD_REF") or env.get("GITHUB_REF")
    if not (sha and ref):
        # one process for both: `rev-parse HEAD --abbrev-ref HEAD` prints the SHA, then the branch
        lines = (_git(["rev-parse", "HEAD", "--abbrev-ref", "HEAD"], cwd) or "").splitlines()
        if len(lines) == 2:
            sha = sha or lines[0]
            ref = ref or (lines[1] if lines[1] != "HEAD" else None)
    return _known(sha=sha, ref=ref)


def _known(**fields: Any) -> dict[str, Any]:
    """The fields that have a value, in the order given."""
    return {name: value for name, value in fields.items() if value is not None}


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    out = done.stdout.strip()
    return out if done.returncode == 0 and out else None


def ci_info(env: Mapping[str, str]) -> dict[str, Any]:
    """CI provider, run id and pull request number from the GitHub Actions environment."""
    if env.get("GITHUB_ACTIONS") != "true":
        return {}
    match = re.match(r"refs/pull/(\d+)/", env.get("GITHUB_REF", ""))
    return _known(
        provider="github",
        run_id=env.get("GITHUB_RUN_ID"),
        pr=int(match.group(1)) if match else None,
        head_sha=_pull_request_head(env.get("GITHUB_EVENT_PATH")) if match else None,
    )


def _pull_request_head(event_path: str | None) -> str | None:
    """``pull_request.head.sha`` of the Actions event payload, None when it cannot be read."""
    if not event_path:
        return None
    try:
        event = json.loads(Path(event_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    pull = event.get("pull_request") if isinstance(event, dict) else None
    head = pull.get("head") if isinstance(pull, dict) else None
    sha = head.get("sha") if isinstance(head, dict) else None
    return sha if isinstance(sha, str) and sha else None
