"""The `agent-evals ci` flow: run, fetch the baseline, compare, report, comment, write outputs."""

from __future__ import annotations

import dataclasses
import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agent_evals.ci.baseline import compare_with_baseline, lookup_baseline
from agent_evals.ci.child_run import ChildRun, died_markdown, make_dirs, with_died, writing
from agent_evals.ci.comment import link_artifacts, no_verdict
from agent_evals.ci.options import CIOptions
from agent_evals.ci.outcome import Outcome, publish, write_reports
from agent_evals.ci.outputs import regression_annotations, step_outputs
from agent_evals.ci.plan import CIPlan, default_gate_id, make_plan
from agent_evals.ci.reuse import plan_reuse_for
from agent_evals.errors import (
    EXIT_INTERNAL,
    EXIT_USAGE,
    AgentEvalsError,
    GitHubError,
    UsageError,
)
from agent_evals.github.actions_io import Annotation, render_annotations
from agent_evals.github.comments import check_gate_id
from agent_evals.github.settings import ActionsSettings

if TYPE_CHECKING:
    import requests

    from agent_evals.github.client import GitHubClient
    from agent_evals.github.comments import CommentResult
    from agent_evals.record.model import RunRecord

log = logging.getLogger(__name__)

__all__ = ["CIOptions", "CIResult", "run_ci"]


@dataclass
class CIResult:
    """What the flow did: exit code, outputs and the report."""

    exit_code: int
    """0 passed (or accepted), 1 gate failed, 3 a required GitHub call failed."""
    outputs: dict[str, str]
    """The step outputs written to ``GITHUB_OUTPUT``."""
    markdown: str
    """The rendered report (comment size)."""
    plan: CIPlan
    """The flow that ran."""
    comment: CommentResult | None = None
    """What happened to the comment."""


def run_ci(
    options: CIOptions,
    *,
    env: Mapping[str, str],
    cwd: Path,
    emit: Callable[[str], None],
    session: requests.Session | None = None,
    sleep: Callable[[float], None] | None = None,
    emit_err: Callable[[str], None] | None = None,
) -> CIResult:
    """Run the whole flow for the Actions event in ``env`` (or locally); ``emit`` prints one stdout line
    (``emit_err`` one stderr line of the child run; default ``emit``)."""
    from agent_evals.ci.child_env import child_env, redaction_names
    from agent_evals.ci.child_run import run_child, run_command
    from agent_evals.ci.record import CIRecord
    from agent_evals.core.redact import Redactor
    from agent_evals.gate.policy import discover_repo_config, resolve_policy

    settings = ActionsSettings.from_env(env, token=options.github_token)
    secret_env = {**env, "AGENT_EVALS_GITHUB_TOKEN": settings.token_value() or ""}
    # the PR's code runs without the job's credentials (github/child_env.py); whatever of them it shows
    # anyway (read from a parent process) is masked in its relayed output and its record
    run_env = child_env(env, options.hold_env)
    scrub = Redactor.from_env(secret_env, redaction_names(secret_env, options.hold_env))
    gate_id = (
        check_gate_id(options.gate_id) if options.gate_id else default_gate_id(settings, options.paths, env)
    )
    client = _client(settings, session, sleep)
    default_branch = _default_branch(settings, client)
    plan = make_plan(
        settings,
        default_branch=default_branch,
        update_baseline=options.update_baseline,
        baseline_file=options.baseline is not None,
    )
    baseline_record = CIRecord.read(options.baseline) if options.baseline else None

    out_dir = options.output_dir if options.output_dir.is_absolute() else cwd / options.output_dir
    output = (
        options.output if options.output is None or options.output.is_absolute() else cwd / options.output
    )
    record_path = output or out_dir / "run.json"
    make_dirs(record_path.parent, "the run record's folder")
    # The suites run in a child process (the same `agent-evals run`): an agent that calls os._exit,
    # crashes the interpreter or is killed for memory takes only the child down, and ci still reports.
    relay = emit if settings.in_actions or emit_err is None else emit_err
    config = options.config or discover_repo_config(cwd)
    command = [
        *run_command(
            options.paths,
            record_path,
            agent=options.agent,
            trials=options.trials,
            concurrency=options.concurrency,
            extra=options.run_flags,
        ),
        "--record-inputs",
    ]
    reuse = plan_reuse_for(
        options, plan, settings, client, gate_id, baseline_record, cwd, env, command, config
    )
    if options.shards is not None:  # a matrix ran the suites: merge its shard records instead
        child = _merged_shards(options.shards, record_path, emit, commit=settings.sha or _head(env, cwd))
    else:
        child = run_child(
            [*command, *(arg for path in reuse.skip_files for arg in ("--skip-file", str(path)))],
            record_path,
            env=run_env,
            cwd=cwd,
            # In Actions one stream keeps the child's lines inside the stop-commands block, in order;
            # locally they go to stderr, and stdout stays the report.
            emit=relay,
            emit_err=relay,
            in_actions=settings.in_actions,
            scrub=scrub,
        )
    if child.record is None and child.code == EXIT_USAGE and child.interrupted is None:
        raise UsageError("the suites could not run: `agent-evals run` stopped on the error above (exit 2)")
    if child.record is None:
        return _lost_run(child, options, settings, client, out_dir, gate_id, plan, emit)
    # The record is read once (child_run): its document is what is written back, its summary what
    # the comparison and every report read.
    record = child.record
    if child.died or child.interrupted or not record.complete:
        # whatever it wrote, a run that did not end on its own is partial: never a complete baseline
        # (on disk at once, whatever happens next)
        record.mark_incomplete()
        writing("the run record", record_path, lambda: record.write(record_path))
        plan = dataclasses.replace(plan, upload_baseline=False)
    if child.interrupted is not None:  # cancelled: report what ran, quickly, without the network
        plan = dataclasses.replace(plan, compare=False, comment=False)
    if reuse.apply(record, env):
        writing("the run record", record_path, lambda: record.write(record_path))

    found = reuse.found
    if found is None and plan.compare and options.baseline is None:
        found = lookup_baseline(plan, options, settings, client, gate_id)
    # GitHub gave no usable answer (5xx, network, rate limit): the baseline is unknown, not missing, so
    # on_missing_baseline does not apply and there is no verdict (exit 3), whatever the comparison says
    unavailable = found.unavailable if found is not None and options.baseline is None else None
    own_policy = resolve_policy(
        repo_config=config,
        suite_blocks={s.header["id"]: s.header.get("gate") for s in record.summary.suites},
        overrides=dict(options.overrides),
    )
    from agent_evals.ci.policy import gate_policy

    gate = gate_policy(own_policy, record, record_path, options, plan, settings, client, found, baseline_record, cwd, env, out_dir, unavailable)  # fmt: skip
    policy = gate.policy
    unavailable = unavailable or gate.unavailable
    comparison = compare_with_baseline(
        plan, options, settings, client, record.summary, baseline_record, policy, gate_id, found=found
    )  # fmt: skip
    comparison.reuse_notes = reuse.notes
    if options.confirm_trials and comparison.mode == "compare":
        from agent_evals.gate.confirm import confirm
        from agent_evals.record.read import parse_record, record_to_document

        def rerun(_suite: str, case_id: str, trials: int) -> RunRecord:
            # the same child `agent-evals run`, on the cases matching this id only
            path = out_dir / "confirm.json"
            args = run_command(
                options.paths, path, agent=options.agent, trials=trials, concurrency=options.concurrency,
                extra=options.run_flags,
            )  # fmt: skip
            again = run_child(
                [*args, "--filter", case_id], path, env=run_env, cwd=cwd, emit=relay, emit_err=relay,
                in_actions=settings.in_actions, scrub=scrub,
            )  # fmt: skip
            if again.record is None or not again.record.complete:
                raise AgentEvalsError(
                    f"the confirm run of case {case_id} did not finish: it {again.how()} (exit 3)"
                )
            return parse_record(again.record.document, source=str(path))

        # confirming merges trials into a copy of the record: the one place ci needs the record model
        comparison = confirm(
            comparison, parse_record(record.document, source=str(record_path)), policy,
            trials=options.confirm_trials, rerun=rerun,
            compare=lambda cand, pol: compare_with_baseline(plan, options, settings, client, record_to_document(cand), baseline_record, pol, gate_id, found=found),
        )  # fmt: skip
        comparison.reuse_notes = reuse.notes
    comparison.notes[:0] = gate.lines(options.accept_label)  # each loosened knob: one line in every report
    notices: list[str] = []
    accepted = False
    # the label accepts a failed verdict (exit 1), never an incomplete run (exit 3)
    if comparison.exit_code == 1 and plan.comment and not unavailable:
        from agent_evals.github.labels import read_acceptance

        acceptance = gate.acceptance or read_acceptance(
            client, settings.repository, settings.pr_number, options.accept_label
        )
        accepted = acceptance.accepted
        notices += [acceptance.notice] if acceptance.notice else []
    elif gate.label_applies:  # the pull request's looser policy applied: accepted if the base's fails
        floored = compare_with_baseline(
            plan, options, settings, client, record.summary, baseline_record, gate.floored, gate_id, found=found
        )  # fmt: skip
        accepted = floored.exit_code == 1
    elif gate.acceptance is not None and gate.acceptance.notice:
        notices.append(gate.acceptance.notice)
    exit_code = 0 if accepted else comparison.exit_code
    if child.interrupted is not None:
        exit_code = 128 + child.interrupted  # 130 (SIGINT) or 143 (SIGTERM), never "gate failed"

    from agent_evals.report.markdown import render_markdown

    def render(budget: Literal["comment", "summary"]) -> str:
        # The acknowledgement is part of the rendering, so the size budget covers it.
        return render_markdown(
            comparison,
            budget=budget,
            gate_id=gate_id,
            full_report_url=f"{settings.run_url}#artifacts" if settings.run_url else None,
            env=secret_env,
            accepted_label=options.accept_label if accepted else None,
        )

    comment_md = link_artifacts(render("comment"), settings.run_url, gate_id)
    summary_md = render("summary")
    if unavailable:
        comment_md = no_verdict(comment_md, unavailable, "comment")
        summary_md = no_verdict(summary_md, unavailable, "summary")
        exit_code = EXIT_INTERNAL
    died = died_markdown(child) if child.died else ""
    if died:  # killed mid-run: how it ended and its last lines, beside the cases it recorded
        comment_md, summary_md = with_died(comment_md, died), summary_md + "\n" + died
        exit_code = EXIT_INTERNAL  # never a pass, never "gate failed", whatever was compared
    report_path = out_dir / "report.md"

    if accepted:
        notices.append(
            f"Regression accepted with the {options.accept_label!r} label: the gate failed, and the pull "
            "request may merge because the label acknowledges it (exit code 0)."
        )
    warnings: list[str] = []  # said as ::warning:: and > [!WARNING]: what no user should miss
    if comparison.baseline.unreadable and plan.compare:
        reason = next(r for r in comparison.reasons if r.kind == "baseline-unreadable")
        warnings.append(reason.message)
    elif comparison.baseline.reason_missing and plan.compare and not unavailable:
        notices.append(f"No baseline: {comparison.baseline.reason_missing}")
    for failure in record.setup_failures():  # an agent that could not start: infra, never a verdict
        notices.append(f"Agent setup failed ({failure}); its cases are recorded as errored (exit code 3).")
        exit_code = EXIT_INTERNAL
    if plan.upload_baseline and options.baseline_store == "branch" and exit_code == 0:
        code = _store_on_branch(options, settings, client, gate_id, record_path, notices, emit)
        exit_code = code or exit_code

    # The outcome is decided: exit code, status, headline. Only now is anything published, in the
    # order reports, step outputs, job summary, comment (github/ci_outcome.py).
    outputs = step_outputs(comparison, record_path, report_path, None, gate_id, plan, accepted)
    outputs["baseline-store"] = options.baseline_store
    if unavailable:
        outputs["status"] = "error"  # no verdict: never "no-baseline", which on_missing_baseline decides
    reports, report_failure = write_reports(
        out_dir, comparison, comment_md, secret_env, exit_code=exit_code, status=outputs["status"]
    )
    outputs.update(reports)
    if settings.in_actions:
        from agent_evals.report.terminal import render_terminal

        # The log shows untrusted text (case names, outputs): pause workflow commands around it so a
        # line starting with `::` cannot act as one. https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands#stopping-and-starting-workflow-commands
        pause = f"agent-evals-{uuid.uuid4().hex}"
        emit(f"::stop-commands::{pause}")
        emit(render_terminal(comparison, env=secret_env).rstrip("\n"))
        emit(f"::{pause}::")
        if died:
            emit(Annotation("error", died.splitlines()[0]).render())
        for line in render_annotations(regression_annotations(comparison, cwd, env)):
            emit(line)
        if unavailable:
            emit(Annotation("error", unavailable).render())
        for warning in warnings:
            emit(Annotation("warning", warning).render())
        for notice in notices:
            emit(Annotation("notice", notice).render())
    else:
        emit(summary_md.rstrip("\n"))
        if died:
            emit(f"error: {died.splitlines()[0]}")
        if unavailable:
            emit(f"error: {unavailable}")
        for warning in warnings:
            emit(f"warning: {warning}")
        for notice in notices:
            emit(f"note: {notice}")

    extra = "".join(f"\n> [!WARNING]\n> {_quote(w)}\n" for w in warnings)
    extra += "".join(f"\n> [!NOTE]\n> {n}\n" for n in notices)
    outcome = Outcome(
        exit_code=exit_code,
        outputs=outputs,
        comment_md=comment_md,
        summary_md=summary_md + extra,
        gate_exit=EXIT_INTERNAL if unavailable else comparison.exit_code,
        comment=plan.comment and options.comment != "never",
    )
    verdict = Path(reports["verdict-json"]) if "verdict-json" in reports else None
    exit_code, comment_result = publish(
        outcome, options, settings, client, gate_id, emit,
        failed=[report_failure] if report_failure else [], verdict=verdict,
    )  # fmt: skip
    return CIResult(exit_code, outputs, comment_md, plan, comment_result)


def _quote(text: str) -> str:
    """Untrusted text (it may quote an artifact's member names) escaped for one Markdown quote line."""
    from agent_evals.report.escape import escape_untrusted

    return escape_untrusted(text, 1_000, line_break=" ")


def _store_on_branch(
    options: CIOptions,
    settings: ActionsSettings,
    client: GitHubClient | None,
    gate_id: str,
    record_path: Path,
    notices: list[str],
    emit: Callable[[str], None],
) -> int:
    """Write the baseline to the data branch; 3 (with the reason on stdout) when that fails."""
    from datetime import datetime, timezone

    from agent_evals.github.branch_store import store_baseline

    if client is None or not settings.repository or not settings.sha:
        emit(
            "error: --baseline-store branch needs GitHub Actions (GITHUB_REPOSITORY, GITHUB_SHA) and a token"
        )
        return EXIT_INTERNAL
    try:
        stored = store_baseline(
            client,
            settings.repository,
            branch=options.baseline_branch,
            gate_id=gate_id,
            record=record_path.read_bytes(),
            sha=settings.sha,
            date=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            run_id=settings.run_id,
            keep=options.keep_baselines,
        )
    except GitHubError as exc:
        emit(f"error: the baseline was not stored: {exc}")
        return EXIT_INTERNAL
    emit(f"baseline stored on branch {options.baseline_branch!r} as {stored.path}")
    return 0


def _lost_run(
    child: ChildRun,
    options: CIOptions,
    settings: ActionsSettings,
    client: GitHubClient | None,
    out_dir: Path,
    gate_id: str,
    plan: CIPlan,
    emit: Callable[[str], None],
) -> CIResult:
    """The child left no usable record: exit 3 (130/143 when cancelled), with what it saw, in every output.

    The sticky comment says so too, so an earlier green report never stands beside a red check
    (a cancelled run leaves it alone: the cancellation must finish fast, without the network)."""
    from agent_evals.ci.child_run import report_lost_run

    code, outputs, markdown = report_lost_run(child, settings, out_dir, gate_id, emit)
    # a cancelled run leaves the comment alone: the cancellation must finish fast, without the network
    outcome = Outcome(
        exit_code=code, outputs=outputs, comment_md=markdown, summary_md=markdown, gate_exit=EXIT_INTERNAL,
        comment=plan.comment and options.comment != "never" and child.interrupted is None, verdict=False,
    )  # fmt: skip
    code, comment = publish(outcome, options, settings, client, gate_id, emit)
    return CIResult(code, outputs, markdown, dataclasses.replace(plan, upload_baseline=False), comment)


def _client(
    settings: ActionsSettings, session: requests.Session | None, sleep: Callable[[float], None] | None
) -> GitHubClient | None:
    if not (settings.in_actions and settings.repository):
        return None
    import time

    import requests as requests_lib

    from agent_evals.github.client import GitHubClient
    from agent_evals.version import __version__

    return GitHubClient(
        session or requests_lib.Session(),
        api_url=settings.api_url,
        token=settings.token_value(),
        sleep=sleep or time.sleep,
        user_agent=f"agent-evals/{__version__}",
    )


def _default_branch(settings: ActionsSettings, client: GitHubClient | None) -> str | None:
    if settings.event.default_branch or client is None or not settings.repository:
        return settings.event.default_branch
    try:
        body = client.get_json(f"/repos/{settings.repository}", permission="contents: read")
    except GitHubError as exc:
        log.warning("cannot read the default branch: %s", exc)
        return None
    branch = body.get("default_branch") if isinstance(body, dict) else None
    return branch if isinstance(branch, str) else None


def _head(env: Mapping[str, str], cwd: Path) -> str | None:
    """The commit this job checks out (``git rev-parse HEAD``), None outside a git checkout."""
    from agent_evals.run.builder import git_info

    return git_info(env, cwd).sha


def _merged_shards(
    folder: Path, record_path: Path, emit: Callable[[str], None], *, commit: str | None
) -> ChildRun:
    """The run of a matrix: its shard records merged (a missing or interrupted shard: incomplete);
    shard records of any commit but the job's ``commit`` are refused (exit 2)."""
    from agent_evals.ci.record import CIRecord
    from agent_evals.record.merge import merge_folder
    from agent_evals.record.store import write_record

    merged = merge_folder(folder, commit=commit)
    for index in merged.missing:
        emit(f"::warning::shard {index}/{merged.count} left no record: the merged run is incomplete")
    for source in merged.incomplete:
        emit(f"::warning::shard record {source} is of an interrupted run: the merged run is incomplete")
    for lacking in merged.lacking_cases():
        emit(f"::warning::no shard record holds {lacking}: the merged run is incomplete")
    writing("the run record", record_path, lambda: write_record(record_path, merged.record))
    return ChildRun(code=0, record=CIRecord.of(merged.record, str(record_path)))
