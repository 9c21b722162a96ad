"""`ci --reuse-unchanged`: the suites whose inputs are unchanged since the baseline, and their copied results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_evals.ci.options import CIOptions
    from agent_evals.ci.plan import CIPlan
    from agent_evals.ci.record import CIRecord
    from agent_evals.github.baseline import BaselineResult
    from agent_evals.github.client import GitHubClient
    from agent_evals.github.settings import ActionsSettings
    from agent_evals.record.read import Document

# `agent-evals run` options of the child that do not change what a suite does (where the record goes,
# how much it prints, which suites are left out) and are left out of the digest's command line.
_NOT_INPUTS = {"--output": 1, "--skip-file": 1, "--quiet": 0, "--record-inputs": 0}


def invocation(
    command: Sequence[str], overrides: Mapping[str, Any], config: Path | None, root: Path
) -> dict[str, Any]:
    """How `ci` runs the suites, as the digest sees it: the child's command line (without the Python
    path and the options in ``_NOT_INPUTS``), the policy flags set, and the policy file's hash."""
    from agent_evals.run.inputs import file_hash

    args: list[str] = []
    rest = list(command[1:])
    while rest:
        arg = rest.pop(0)
        if arg in _NOT_INPUTS:
            del rest[: _NOT_INPUTS[arg]]
            continue
        args.append(arg)
    policy = {k: v for k, v in sorted(overrides.items()) if v is not None}
    config_part = None
    if config is not None:
        resolved = config.resolve()
        try:
            shown = resolved.relative_to(root.resolve()).as_posix()
        except ValueError:
            shown = resolved.as_posix()
        config_part = {"path": shown, "hash": file_hash(resolved)}
    return {"command": args, "policy": _plain(policy), "config": config_part}


def _plain(value: Any) -> Any:
    """JSON-ready: the digest hashes JSON."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def stamp_inputs(record: CIRecord, env: Mapping[str, str], how: Mapping[str, Any]) -> bool:
    """Complete the run side of each suite's inputs (recorded by the child) with the environment and
    the invocation, and its digest; True when any suite changed."""
    from agent_evals.run.inputs import complete_inputs

    changed = False
    for index, suite in enumerate(record.suites):
        inputs = suite.get("inputs")
        if inputs and "digest" not in inputs and not suite.get("reused"):
            record.set_suite_field(index, "inputs", complete_inputs(inputs, env, how))
            changed = True
    return changed


@dataclass
class ReusePlan:
    """Which baseline suites are reused, which files the child leaves out, and why each suite ran."""

    reused: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    """Baseline suites (as in its document) to copy, with the reason."""
    skip_files: list[Path] = field(default_factory=list)
    """Their files (resolved), for ``run --skip-file``."""
    notes: list[str] = field(default_factory=list)
    """Why the other baseline suites run again."""


def plan_reuse(
    baseline: Document, *, root: Path, cwd: Path, env: Mapping[str, str], how: Mapping[str, Any]
) -> ReusePlan:
    """The baseline suites whose input digest is the same now (same files, folders, packages, Python,
    agent-evals, environment and invocation): reused; every other suite runs, and a note says why."""
    from agent_evals.run.inputs import changes, current_inputs

    plan = ReusePlan()
    where = _run_name(baseline)
    run = baseline["run"]
    if run.get("complete", True) is False or run.get("shard") is not None:
        plan.notes.append(f"Nothing reused: the baseline {where} is not a complete run.")
        return plan
    for suite in baseline.get("suites", ()):
        recorded = suite.get("inputs") or {}
        source = (cwd / suite["source"]).resolve()
        sid = suite["id"]
        if not recorded.get("digest"):
            plan.notes.append(f"Suite {sid} ran: the baseline {where} recorded no input digest for it.")
            continue
        try:
            relative = source.relative_to(root.resolve()).as_posix()
        except ValueError:
            relative = None
        if suite.get("reused") or relative is None or relative not in (recorded.get("files") or {}):
            plan.notes.append(f"Suite {sid} ran: its file is not among its recorded inputs.")
            continue
        now = current_inputs(recorded, root, env, how)
        if now["digest"] != recorded["digest"]:
            plan.notes.append(f"Suite {sid} ran: {'; '.join(changes(recorded, now))}.")
            continue
        files = len(recorded.get("files") or {})
        packages = len(recorded.get("packages") or {})
        reason = (
            f"inputs unchanged since the baseline {where} (digest {str(recorded['digest'])[:12]}: "
            f"{files} project files, {packages} package versions, Python, agent-evals, environment, command)"
        )
        plan.reused.append((suite, reason))
        plan.skip_files.append(source)
    return plan


def splice_reused(record: CIRecord, baseline: Document, plan: ReusePlan) -> list[str]:
    """Copy the reused baseline suites into ``record``, marked ``reused``; notes for any left out."""
    notes = []
    ran = {s["id"] for s in record.suites}
    copies = []
    run = baseline["run"]
    for suite, reason in plan.reused:
        if suite["id"] in ran:  # the child ran it after all (another path listed the same file)
            notes.append(f"Suite {suite['id']} ran although it was to be reused: its run counts.")
            continue
        mark = {
            "run_id": (run.get("ci") or {}).get("run_id"),
            "sha": (run.get("git") or {}).get("sha"),
            "digest": (suite.get("inputs") or {}).get("digest"),
            "reason": reason,
        }
        copies.append({**suite, "reused": mark})  # nothing edits a copied suite's cases
    record.add_suites(copies, "the baseline's reused suites")
    return notes


def _run_name(record: Document) -> str:
    run = record["run"]
    run_id, sha = (run.get("ci") or {}).get("run_id"), (run.get("git") or {}).get("sha")
    parts = []
    if run_id:
        parts.append(f"run {run_id}")
    if sha:
        parts.append(f"commit {sha[:12]}")
    return f"({', '.join(parts)})" if parts else "(a record without run or commit)"


@dataclass
class Reuse:
    """What `ci` decided about reuse before the run, and what it applies to the record after it."""

    how: dict[str, Any]
    """The invocation part of every suite's inputs."""
    skip_files: list[Path] = field(default_factory=list)
    """Files the child leaves out."""
    notes: list[str] = field(default_factory=list)
    """For the report: why suites ran, or why nothing was reused."""
    found: BaselineResult | None = None
    """The store's baseline, when it was looked up before the run (the comparison uses it too)."""
    baseline: Document | None = None
    """The baseline the plan compared digests with."""
    plan: ReusePlan | None = None

    def apply(self, record: CIRecord, env: Mapping[str, str]) -> bool:
        """Complete the inputs of the suites that ran and copy in the reused ones; True when the record changed."""
        changed = stamp_inputs(record, env, self.how)
        if self.plan is not None and self.baseline is not None and self.plan.reused:
            self.notes += splice_reused(record, self.baseline, self.plan)
            changed = True
        return changed


def plan_reuse_for(
    options: CIOptions,
    plan: CIPlan,
    settings: ActionsSettings,
    client: GitHubClient | None,
    gate_id: str,
    baseline_record: CIRecord | None,
    cwd: Path,
    env: Mapping[str, str],
    command: Sequence[str],
    config: Path | None,
) -> Reuse:
    """Decide reuse for this `ci` run: only with ``--reuse-unchanged``, never with ``--force``, never when
    building a baseline (or merging shards); the baseline is read before the run to compare digests."""
    from agent_evals.ci.baseline import lookup_baseline
    from agent_evals.run.inputs import project_root

    root = project_root(cwd)
    reuse = Reuse(how=invocation(command, options.overrides, config, root))
    if not options.reuse_unchanged:
        return reuse
    if options.force:
        reuse.notes.append("--force: every suite ran (reuse of unchanged suites is off for this run).")
        return reuse
    if options.shards is not None:
        reuse.notes.append(
            "Nothing reused: the shard jobs ran every suite (reuse does not apply to --shards)."
        )
        return reuse
    if plan.upload_baseline or not plan.compare:
        reuse.notes.append(
            "Nothing reused: this run builds a baseline or has none to compare with, so every suite ran."
        )
        return reuse
    if options.baseline is not None:
        baseline = baseline_record.document if baseline_record is not None else None
    else:
        from agent_evals.record.read import record_to_document

        reuse.found = lookup_baseline(plan, options, settings, client, gate_id)
        found = reuse.found.record
        baseline = record_to_document(found) if found is not None else None
    if baseline is None:
        why = reuse.found.reason_missing if reuse.found is not None else None
        reuse.notes.append(f"Nothing reused: no baseline{f' ({why})' if why else ''}.")
        return reuse
    reuse.baseline = baseline
    reuse.plan = plan_reuse(baseline, root=root, cwd=cwd, env=env, how=reuse.how)
    reuse.skip_files = reuse.plan.skip_files
    reuse.notes += reuse.plan.notes
    return reuse
