"""Which baseline `agent-evals ci` compares with: a file, the artifact store or the data branch."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from agent_evals.errors import RunRecordError
from agent_evals.github.baseline import BaselineResult, missing

if TYPE_CHECKING:
    from agent_evals.ci.options import CIOptions
    from agent_evals.ci.plan import CIPlan
    from agent_evals.ci.record import CIRecord
    from agent_evals.cost.prices import PriceTable
    from agent_evals.gate.model import Comparison
    from agent_evals.gate.policy import Policy
    from agent_evals.github.client import GitHubClient
    from agent_evals.github.settings import ActionsSettings
    from agent_evals.record.read import Document
    from agent_evals.record.summary import RunSummary


def compare_with_baseline(
    plan: CIPlan,
    options: CIOptions,
    settings: ActionsSettings,
    client: GitHubClient | None,
    record: Document | RunSummary,
    baseline_record: CIRecord | None,
    policy: Policy,
    gate_id: str,
    found: BaselineResult | None = None,
    prices: PriceTable | None = None,
) -> Comparison:
    """The gate's comparison for this event: one run alone, against --baseline FILE, or against the
    baseline found in the store (with its earlier baselines as history); ``found``: the store's
    baseline when it was already looked up (``--reuse-unchanged`` reads it before the run).
    ``record``: the candidate's summary (``CIRecord.summary``), or its document. ``prices``: the
    table costs are worked out with (None: the working directory's)."""
    from agent_evals.gate.compare import compare_documents, single_run
    from agent_evals.gate.model import BaselineInfo
    from agent_evals.record.read import record_to_document

    if not plan.compare:
        return single_run(record, policy)
    if options.baseline is not None:
        info = BaselineInfo(source="file", path=str(options.baseline))
        base = baseline_record.summary if baseline_record is not None else None
        return compare_documents(base, record, policy, baseline_info=info, prices=prices)
    found = found or lookup_baseline(plan, options, settings, client, gate_id)
    from agent_evals.gate.history import fit_history, history_note

    history, left_out = fit_history(record, found.history)
    if left_out:  # the store's own records: one that does not fit is skipped with a note, not an error
        found = replace(found, note=history_note(found.note, len(found.history), left_out))
    try:
        return compare_documents(
            record_to_document(found.record) if found.record is not None else None,
            record,
            policy,
            baseline_info=found.to_info(),
            history=[record_to_document(h) for h in history],
            prices=prices,
        )
    except RunRecordError as exc:  # a record the reader refuses; one that shares no case fails instead
        why = f"the baseline is not comparable: {exc}"
        info = replace(found, record=None, source="none", reason_missing=why, unreadable=why).to_info()
        return compare_documents(None, record, policy, baseline_info=info, prices=prices)


def lookup_baseline(
    plan: CIPlan, options: CIOptions, settings: ActionsSettings, client: GitHubClient | None, gate_id: str
) -> BaselineResult:
    """The baseline from the configured store, or exactly why there is none (never an exception)."""
    from agent_evals.github.baseline import find_baseline
    from agent_evals.github.branch_store import find_branch_baseline

    workflow = options.baseline_workflow or settings.workflow_file
    if client is None or not settings.repository:
        return missing("not running in GitHub Actions and no --baseline FILE given")
    if not settings.token:
        return missing(
            "no GitHub token (pass --github-token or set GITHUB_TOKEN) to read the baseline artifact"
        )
    if options.baseline_store == "branch":
        return find_branch_baseline(
            client,
            settings.repository,
            branch=options.baseline_branch,
            gate_id=gate_id,
            base_sha=settings.event.base_sha,
            head_sha=settings.event.head_sha,
            server_url=settings.server_url,
            history_limit=options.keep_baselines - 1,
            deadline_s=options.github_deadline_s,
        )
    if not workflow:
        return missing(
            "the baseline workflow is unknown (GITHUB_WORKFLOW_REF unset); pass --baseline-workflow"
        )
    if not plan.base_branch:
        return missing("the base branch is unknown; cannot look up its baseline")
    return find_baseline(
        client,
        repo=settings.repository,
        workflow=workflow,
        branch=plan.base_branch,
        artifact_name=options.baseline_artifact,
        base_sha=settings.event.base_sha,
        head_sha=settings.event.head_sha,
        server_url=settings.server_url,
        gate_id=gate_id,
        history_limit=options.keep_baselines - 1,
        deadline_s=options.github_deadline_s,
    )
