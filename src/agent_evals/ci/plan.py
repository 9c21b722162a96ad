"""What `agent-evals ci` will do for an Actions event, decided as data before anything runs."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agent_evals.github.comments import check_gate_id
from agent_evals.github.settings import ActionsSettings

__all__ = ["CIPlan", "check_gate_id", "default_gate_id", "make_plan", "slug"]

FlowKind = Literal["pull_request", "merge_group", "baseline", "run", "branch", "local"]
PR_EVENTS = frozenset({"pull_request", "pull_request_target"})


@dataclass(frozen=True)
class CIPlan:
    """The side effects one `agent-evals ci` invocation is allowed to have."""

    kind: FlowKind
    """pull_request, merge_group, baseline (push to the default branch), run (dispatch/schedule),
    branch (push elsewhere), or local (outside Actions)."""
    compare: bool
    """Fetch a baseline and compare (otherwise the run is reported alone)."""
    comment: bool
    """Upsert the sticky pull request comment."""
    upload_baseline: bool
    """Tell the action to upload the run record as the baseline artifact."""
    base_branch: str | None = None
    """The branch whose baseline is looked up."""


def make_plan(
    settings: ActionsSettings,
    *,
    default_branch: str | None,
    update_baseline: bool = False,
    baseline_file: bool = False,
) -> CIPlan:
    """Decide the flow from the event: PRs compare and comment, merge queues compare, pushes and manual
    dispatches on the default branch record the baseline, other dispatches and schedules run alone,
    local runs compare with a file."""
    event = settings.event_name
    if not settings.in_actions:
        return CIPlan("local", compare=baseline_file, comment=False, upload_baseline=False)
    if event in PR_EVENTS:
        base = settings.event.base_ref or settings.base_ref or default_branch
        return CIPlan("pull_request", compare=True, comment=True, upload_baseline=False, base_branch=base)
    if event == "merge_group":
        base = settings.event.base_ref or default_branch
        return CIPlan("merge_group", compare=True, comment=False, upload_baseline=False, base_branch=base)
    on_default = bool(settings.branch and settings.branch == default_branch)
    if event in ("push", "workflow_dispatch") and (update_baseline or on_default):
        return CIPlan("baseline", compare=baseline_file, comment=False, upload_baseline=True)
    if event == "push":
        return CIPlan(
            "branch", compare=True, comment=False, upload_baseline=False, base_branch=default_branch
        )
    return CIPlan("run", compare=baseline_file, comment=False, upload_baseline=update_baseline)


def default_gate_id(settings: ActionsSettings, paths: Sequence[str], env: Mapping[str, str]) -> str:
    """A stable id per workflow, job and suite paths, so two gates on one PR keep two comments."""
    stem = Path(settings.workflow_file).stem if settings.workflow_file else "local"
    key = "\n".join([env.get("GITHUB_JOB", ""), *sorted(p.rstrip("/") for p in paths)])
    digest = hashlib.sha256(key.encode()).hexdigest()[:8]
    return f"{slug(stem)[:55]}-{digest}"


def slug(text: str) -> str:
    """Lower-case letters, digits, ``.``, ``_`` and ``-`` only (safe in markers and artifact names)."""
    cleaned = re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9._-]+", "-", text.lower())).strip("-._")
    return cleaned or "gate"
