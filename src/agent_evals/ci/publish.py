"""The privileged half of the two-workflow gate: judge a pull request's run record ourselves, comment, set the status.

The pull request's gate job runs its code with a read-only token and uploads its run record; this
``workflow_run`` side runs none of it. Nothing the pull request produced is posted as is: its run
record is read (schema-checked), compared with the base branch's baseline found here with the
trusted token, under the base policy (the baseline's
recorded policy, else the checked-out default branch's config and the baseline's blocks; what the
record claims may only tighten it), and rendered by our escaping renderer. What to post
(``comment``), which baseline and which label accepts come from the publisher's own inputs, never
from the artifact. The outcome ends in a commit status on the gate run's head commit, the check
branch protection requires.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agent_evals.ci.pull_request import check_pull_request
from agent_evals.errors import (
    AgentEvalsError,
    GitHubUnavailableError,
    RunRecordError,
    UsageError,
)
from agent_evals.github.comments import check_gate_id
from agent_evals.github.statuses import CommitStatus

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from agent_evals.gate.model import Comparison
    from agent_evals.gate.policy import Policy
    from agent_evals.github.client import GitHubClient
    from agent_evals.github.comments import CommentResult
    from agent_evals.record.model import RunRecord

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
    pull_requests: tuple[int, ...] = ()
    """``workflow_run.pull_requests[].number`` whose head is the run's commit (GitHub lists only pull
    requests from this repository; a fork's is empty)."""

    def conclusion_word(self) -> str:
        """The conclusion as a plain word (letters and ``_``), ``unknown`` when there is none."""
        return re.sub(r"[^a-z_]", "", self.conclusion or "") or "unknown"


class NoRunRecord(AgentEvalsError):
    """The gate run uploaded no run record (cancelled, timed out, or it died first): no verdict, exit 3."""


class RecordOfAnotherCommit(UsageError):
    """The run record names a pull request head other than the gate run's (exit 2)."""


@dataclass(frozen=True)
class ForkRun:
    """The fork's run record and the gate it belongs to."""

    record: RunRecord
    """The schema-checked run record (the pull request's claim about its results)."""
    gate_id: str
    """From ``--gate-id`` or the artifact folder's name."""
    pr: int | None
    """The pull request number the record names: a claim, never used to pick the pull request; a record
    naming another than GitHub's is refused (:func:`~agent_evals.ci.pull_request.check_record_pr`)."""


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
    status: CommitStatus
    """The commit status the outcome sets."""


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
        pull_requests=_pull_request_numbers(run.get("pull_requests"), _str(run.get("head_sha"))),
    )


def _pull_request_numbers(items: Any, head_sha: str | None) -> tuple[int, ...]:
    numbers = []
    for item in items if isinstance(items, list) else []:
        pull = _obj(item)
        number, head = pull.get("number"), _obj(pull.get("head")).get("sha")
        if isinstance(number, int) and number > 0 and head_sha and head == head_sha:
            numbers.append(number)
    return tuple(numbers)


def gate_id_of(source: Path, gate_id: str | None = None) -> str:
    """``gate_id``, or the one the artifact folder's name carries (``agent-evals-run-<gate-id>``)."""
    if gate_id is None:
        folder = source if source.is_dir() or source.suffix != ".json" else source.parent
        name = folder.name
        prefix = next((p for p in ARTIFACT_PREFIXES if name.startswith(p)), None)
        if prefix is None:
            raise UsageError(
                f"cannot tell the gate id from the folder name {name!r}; pass --gate-id "
                f"(artifact folders are named {ARTIFACT_PREFIXES[0]}<gate-id>)"
            )
        gate_id = name[len(prefix) :]
    return check_gate_id(gate_id)


def load_fork_run(source: Path, gate_id: str | None = None, gate_run: GateRun | None = None) -> ForkRun:
    """Read the pull request's ``run.json`` (a file, or the downloaded artifact folder holding it).

    Any ``report.md`` beside it is ignored: Markdown the pull request wrote is never posted. A folder
    that is not there is :class:`NoRunRecord` (the gate run uploaded nothing); a record whose
    ``run.ci.head_sha`` is not the gate run's head is :class:`RecordOfAnotherCommit`.
    """
    from agent_evals.record.read import read_record

    gate_id = gate_id_of(source, gate_id)
    if not source.exists():
        concluded = f" (it concluded `{gate_run.conclusion_word()}`)" if gate_run is not None else ""
        raise NoRunRecord(
            f"the gate run uploaded no run record{concluded}: cancelled, timed out or died before "
            f"writing one ({source} is not there); no verdict, re-run the gate"
        )
    record_path = source / "run.json" if source.is_dir() else source
    if not record_path.is_file():
        raise UsageError(f"{record_path}: no run record; pass the artifact folder that `ci` uploaded")
    try:
        record = read_record(record_path)
    except RunRecordError as exc:
        raise UsageError(f"the pull request's run record is not usable: {exc}") from exc
    claimed = record.run.ci.head_sha
    if gate_run is not None and gate_run.head_sha and claimed and claimed != gate_run.head_sha:
        raise RecordOfAnotherCommit(
            f"the run record is of commit {_short(claimed)}, the gate run of {gate_run.head_sha[:12]}: "
            "refusing to judge a record of another commit"
        )
    pr = record.run.ci.pr
    return ForkRun(record=record, gate_id=gate_id, pr=pr if pr and pr > 0 else None)


def publish(
    client: GitHubClient,
    repo: str,
    fork: ForkRun,
    *,
    pr: int,
    pull: dict[str, Any],
    gate_run: GateRun,
    options: PublishOptions,
    cwd: Path,
    env: Mapping[str, str],
) -> Published:
    """Judge the record of pull request ``pr`` (its data ``pull``, already checked against the gate run:
    :func:`~agent_evals.ci.pull_request.choose_pull_request`) against our baseline, comment as asked.

    The outcome (verdict, acceptance, status) is decided before anything is written; the caller sets
    the commit status after the comment (:func:`outcome_status`).
    """
    from agent_evals.github.comments import upsert_comment
    from agent_evals.github.labels import read_acceptance

    label = _Label(lambda: read_acceptance(client, repo, pr, options.accept_label).accepted)
    comparison, base_failed = _judge(client, repo, fork, pull, gate_run, options, cwd, label)
    # the label accepts a failed verdict (exit 1, never a missing one), or lets a looser policy of the
    # pull request's apply; that counts as accepted when the base policy, or the pull request's, fails it
    failed = comparison.exit_code == 1
    accepted = (base_failed or failed) if base_failed is not None else failed and label.on()
    status = outcome_status(comparison, accepted)
    body = _render(comparison, fork.gate_id, gate_run, env, options.accept_label if accepted else None)
    if options.comment == "never":
        return Published(comparison, body, None, accepted, status)
    create = options.comment == "always" or comparison.exit_code != 0
    result = upsert_comment(client, repo, pr, fork.gate_id, body, create=create)
    return Published(comparison, body, result, accepted, status)


def outcome_status(comparison: Comparison, accepted: bool) -> CommitStatus:
    """The commit status of a verdict: success (passed, or failed and accepted), failure, or error
    (an incomplete run or any other no-verdict exit); the headline, made of counts only, says why."""
    from agent_evals.report.headline import headline

    line = headline(comparison, icon=False).removeprefix("agent-evals: ")
    if accepted:
        return CommitStatus("success", f"accepted by label: {line}")
    if comparison.exit_code == 0:
        return CommitStatus("success", line)
    if comparison.exit_code == 1:
        return CommitStatus("failure", line)
    return CommitStatus("error", f"no verdict: {line}")


def comment_no_verdict(
    client: GitHubClient,
    repo: str,
    gate_id: str,
    gate_run: GateRun,
    why: str,
    comment: CommentMode,
    numbers: Sequence[int] | None = None,
) -> list[str]:
    """Replace the sticky comment of each pull request ``numbers`` (default: those the event names;
    verified: open, its head the gate run's commit) with "no verdict" and why, so an earlier "gate passed" does not stand beside an error
    status; a comment is created only with ``comment`` not ``never``. Returns what was done, per line."""
    from agent_evals.github.comments import marker, upsert_comment
    from agent_evals.report.escape import escape_untrusted

    if comment == "never" or not gate_run.head_sha:
        return []
    body = (
        f"{marker(gate_id)}\n### ⛔ agent-evals: no verdict (gate run concluded "
        f"`{gate_run.conclusion_word()}`) · status error\n\n"
        f"> [!CAUTION]\n> {escape_untrusted(why, 1_000, line_break=' ')}\n"
    )
    done = []
    for pr in gate_run.pull_requests if numbers is None else numbers:
        try:
            check_pull_request(client, repo, pr, gate_run.head_sha, gate_run.head_repo)
        except UsageError as exc:
            done.append(f"comment on #{pr} not written: {exc}")
            continue
        result = upsert_comment(client, repo, pr, gate_id, body, create=True)
        done.append(f"comment {result.action} on #{pr}: no verdict")
    return done


class _Label:
    """The accept label, read live once when first asked."""

    def __init__(self, read: Callable[[], bool]) -> None:
        self._read = read
        self._on: bool | None = None

    def on(self) -> bool:
        if self._on is None:
            self._on = self._read()
        return self._on


def _judge(
    client: GitHubClient,
    repo: str,
    fork: ForkRun,
    pull: dict[str, Any],
    gate_run: GateRun,
    options: PublishOptions,
    cwd: Path,
    label: _Label,
) -> tuple[Comparison, bool | None]:
    """Our verdict on the fork's record, and (when the accept label let its looser policy apply)
    whether the base side's policy fails it (else None)."""
    from agent_evals.cost.prices import load_table
    from agent_evals.gate.compare import compare_runs
    from agent_evals.gate.floor import loosenings
    from agent_evals.gate.policy import discover_repo_config
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
    # the base side is the floor: the policy the baseline recorded, else the default branch's config and
    # the baseline's suite blocks; what the pull request's record claims (its recorded policy, else its
    # suites' gate blocks) may only tighten it, unless the accept label lets it apply
    config = options.config or discover_repo_config(cwd)
    floored = _floored(found.record, fork.record, config)
    loosened = loosenings(floored, {s.id: [c.group for c in s.cases] for s in fork.record.suites})
    applies = bool(loosened) and label.on()

    # the trusted checkout's prices; the fork's run worked out its recorded costs with the fork's own
    prices = load_table(cwd, recorded=False)

    def judge(policy: Policy) -> Comparison:
        try:
            return compare_runs(
                found.record, fork.record, policy, baseline_info=found.to_info(), prices=prices
            )
        except RunRecordError as exc:  # a record the reader refuses; one that shares no case fails instead
            info = missing(f"the baseline artifact is not comparable: {exc}").to_info()
            return compare_runs(None, fork.record, policy, baseline_info=info, prices=prices)

    comparison = judge(floored.own() if applies else floored)
    comparison.notes[:0] = [each.line(options.accept_label, accepted=applies) for each in loosened]
    return comparison, (judge(floored).exit_code == 1 if applies else None)


def _floored(base: RunRecord | None, claim: RunRecord, config: Path | None) -> Policy:
    """The pull request's claimed policy floored by the base side's."""
    from agent_evals.ci.policy import BASE_SOURCE
    from agent_evals.gate.floor import recorded_layer, recorded_policies
    from agent_evals.gate.policy import resolve_policy

    base_suites = base.suites if base is not None else []
    files = resolve_policy(repo_config=config, suite_blocks={s.id: s.gate for s in base_suites}, overrides={})
    recorded = recorded_policies(((s.id, s.policy) for s in base_suites), source=BASE_SOURCE)
    layers = {
        s.id: recorded_layer(s.policy, s.id, source=f"pull request record (suite {s.id})", scoped=True)
        for s in claim.suites
    }
    own = resolve_policy(
        repo_config=config,
        suite_blocks={s.id: s.gate for s in claim.suites if layers[s.id] is None},
        overrides={},
    )
    own.layers += [layer for layer in layers.values() if layer is not None]
    return own.model_copy(update={"floor": files, "floor_by_suite": recorded})


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
    conclusion = gate_run.conclusion_word()
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


def _short(sha: str) -> str:
    return re.sub(r"[^0-9A-Za-z]", "?", sha[:12])


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
