"""The `agent-evals ci` flow: run, fetch the baseline, compare, decide the outcome, then publish it."""

# run_ci reads each fact once (how the run ended, the baseline, the policy, the comparison, the accept
# label), hands them to the pure ci/outcome.decide, and only then publishes (ci/publishing.py).

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agent_evals.ci.baseline import compare_with_baseline, lookup_baseline
from agent_evals.ci.child_run import ChildRun, died_markdown, make_dirs, writing
from agent_evals.ci.comment import link_artifacts
from agent_evals.ci.options import CIOptions
from agent_evals.ci.outcome import Facts, Outcome, decide
from agent_evals.ci.outputs import step_outputs
from agent_evals.ci.plan import CIPlan, default_gate_id, make_plan
from agent_evals.ci.publishing import (
    publish,
    say_in_log,
    store_on_branch,
    turned_late,
    write_reports,
    written_lines,
)
from agent_evals.ci.reuse import Reuse, plan_reuse_for
from agent_evals.errors import EXIT_USAGE, AgentEvalsError, GitHubError, UsageError
from agent_evals.github.comments import check_gate_id
from agent_evals.github.settings import ActionsSettings

if TYPE_CHECKING:
    import requests

    from agent_evals.ci.policy import GatePolicy
    from agent_evals.ci.record import CIRecord
    from agent_evals.gate.model import Comparison
    from agent_evals.gate.policy import Policy
    from agent_evals.github.baseline import BaselineResult
    from agent_evals.github.client import GitHubClient
    from agent_evals.github.comments import CommentResult
    from agent_evals.record.model import RunRecord
    from agent_evals.record.read import Document
    from agent_evals.record.summary import RunSummary

log = logging.getLogger(__name__)

__all__ = ["CIOptions", "CIResult", "run_ci"]

Emit = Callable[[str], None]


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


@dataclass(frozen=True)
class _Job:
    """What every step of one `ci` run reads: its options, environment, GitHub and where things go."""

    options: CIOptions
    env: Mapping[str, str]
    cwd: Path
    emit: Emit
    relay: Emit
    """Where the child run's lines go."""
    settings: ActionsSettings
    secret_env: Mapping[str, str]
    """The environment with the token: what reports mask."""
    run_env: Mapping[str, str]
    """The child run's environment: the job's credentials held back."""
    scrub: Callable[[str], str]
    gate_id: str
    client: GitHubClient | None
    baseline_record: CIRecord | None
    out_dir: Path
    record_path: Path
    config: Path | None
    command: list[str]
    """The child `agent-evals run` command line."""
    gate: GatePolicy | None = None
    """The policies settled for the pull request (their price tables), once known."""

    def run(self, args: Sequence[str], output: Path) -> ChildRun:
        """Run a child `agent-evals run` with ``args``, relaying its output (masked)."""
        from agent_evals.ci.child_run import run_child

        return run_child(
            args,
            output,
            env=self.run_env,
            cwd=self.cwd,
            # In Actions one stream keeps the child's lines inside the stop-commands block, in order;
            # locally they go to stderr, and stdout stays the report.
            emit=self.relay,
            emit_err=self.relay,
            in_actions=self.settings.in_actions,
            scrub=self.scrub,
        )

    def compare(
        self, plan: CIPlan, record: Document | RunSummary, policy: Policy, found: BaselineResult | None
    ) -> Comparison:
        """The gate's comparison of ``record`` under ``policy`` (ci/baseline.py), its costs worked out
        with that policy's price table (the base side's under the floored policy of a pull request)."""
        prices = self.gate.prices(policy) if self.gate is not None else None
        return compare_with_baseline(
            plan, self.options, self.settings, self.client, record, self.baseline_record, policy,
            self.gate_id, found=found, prices=prices,
        )  # fmt: skip


@dataclass
class _Judged:
    """The comparison and what was read about it: the facts that follow the run."""

    comparison: Comparison
    unavailable: str | None = None
    accepted: bool = False
    label_notices: list[str] = field(default_factory=list)


def run_ci(
    options: CIOptions,
    *,
    env: Mapping[str, str],
    cwd: Path,
    emit: Emit,
    session: requests.Session | None = None,
    sleep: Callable[[float], None] | None = None,
    emit_err: Emit | None = None,
) -> CIResult:
    """Run the whole flow for the Actions event in ``env`` (or locally); ``emit`` prints one stdout line
    (``emit_err`` one stderr line of the child run; default ``emit``)."""
    job, plan = _start(options, env, cwd, emit, emit_err, session, sleep)
    reuse = plan_reuse_for(
        options, plan, job.settings, job.client, job.gate_id, job.baseline_record, cwd, env, job.command, job.config
    )  # fmt: skip
    if options.shards is not None:  # a matrix ran the suites: merge its shard records instead
        commit = job.settings.sha or _head(env, cwd)
        child = _merged_shards(options.shards, job.record_path, emit, commit=commit)
    else:
        skips = [arg for path in reuse.skip_files for arg in ("--skip-file", str(path))]
        child = job.run([*job.command, *skips], job.record_path)
    if child.record is None and child.code == EXIT_USAGE and child.interrupted is None:
        raise UsageError("the suites could not run: `agent-evals run` stopped on the error above (exit 2)")
    if child.record is None:
        return _lost_run(child, job, plan)
    # The record is read once (child_run): its document is what is written back, its summary what
    # the comparison and every report read.
    record = child.record
    if child.died or child.interrupted or not record.complete:
        # whatever it wrote, a run that did not end on its own is partial: never a complete baseline
        # (on disk at once, whatever happens next)
        record.mark_incomplete()
        writing("the run record", job.record_path, lambda: record.write(job.record_path))
        plan = dataclasses.replace(plan, upload_baseline=False)
    if child.interrupted is not None:  # cancelled: report what ran, quickly, without the network
        plan = dataclasses.replace(plan, compare=False, comment=False)
    if reuse.apply(record, env):
        writing("the run record", job.record_path, lambda: record.write(job.record_path))
    judged = _judge(job, plan, record, reuse)
    comparison = judged.comparison
    unreadable = comparison.baseline.unreadable and plan.compare
    facts = Facts(
        interrupted=child.interrupted,
        died=died_markdown(child) if child.died else None,
        setup_failures=tuple(record.setup_failures()),
        unavailable=judged.unavailable,
        accepted=judged.accepted,
        accept_label=options.accept_label,
        gate_exit=comparison.exit_code,
        verdict=comparison.verdict,
        incomplete=comparison.outcome == "incomplete",
        baseline_unreadable=(
            next(r.message for r in comparison.reasons if r.kind == "baseline-unreadable")
            if unreadable
            else None
        ),
        baseline_missing=comparison.baseline.reason_missing if plan.compare else None,
        label_notices=tuple(judged.label_notices),
        comment=plan.comment and options.comment != "never",
    )
    comment_md, summary_md = _render_report(job, comparison, accepted=judged.accepted)
    outcome = decide(facts, comment_md=comment_md, summary_md=summary_md)
    return _publish(job, plan, outcome, comparison)


def _start(
    options: CIOptions,
    env: Mapping[str, str],
    cwd: Path,
    emit: Emit,
    emit_err: Emit | None,
    session: requests.Session | None,
    sleep: Callable[[float], None] | None,
) -> tuple[_Job, CIPlan]:
    """Read the event, reach GitHub, plan the flow, and make the run record's folder."""
    from agent_evals.ci.child_env import child_env, redaction_names
    from agent_evals.ci.child_run import run_command
    from agent_evals.ci.record import CIRecord
    from agent_evals.core.redact import Redactor
    from agent_evals.gate.policy import discover_repo_config

    settings = ActionsSettings.from_env(env, token=options.github_token)
    secret_env = {**env, "AGENT_EVALS_GITHUB_TOKEN": settings.token_value() or ""}
    # the PR's code runs without the job's credentials (ci/child_env.py); whatever of them it shows
    # anyway (read from a parent process) is masked in its relayed output and its record
    run_env = child_env(env, options.hold_env)
    scrub = Redactor.from_env(secret_env, redaction_names(secret_env, options.hold_env))
    gate_id = (
        check_gate_id(options.gate_id) if options.gate_id else default_gate_id(settings, options.paths, env)
    )
    client = _client(settings, session, sleep, options.github_deadline_s)
    plan = make_plan(
        settings,
        default_branch=_default_branch(settings, client),
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
    job = _Job(
        options=options, env=env, cwd=cwd, emit=emit,
        relay=emit if settings.in_actions or emit_err is None else emit_err,
        settings=settings, secret_env=secret_env, run_env=run_env, scrub=scrub, gate_id=gate_id,
        client=client, baseline_record=baseline_record, out_dir=out_dir, record_path=record_path,
        config=config, command=command,
    )  # fmt: skip
    return job, plan


def _judge(job: _Job, plan: CIPlan, record: CIRecord, reuse: Reuse) -> _Judged:
    """Find the baseline, settle the policy, compare (and confirm), and read the accept label."""
    from agent_evals.ci.policy import gate_policy
    from agent_evals.gate.policy import resolve_policy

    options, settings = job.options, job.settings
    found = reuse.found
    if found is None and plan.compare and options.baseline is None:
        found = lookup_baseline(plan, options, settings, job.client, job.gate_id)
    # GitHub gave no usable answer (5xx, network, rate limit): the baseline is unknown, not missing, so
    # on_missing_baseline does not apply and there is no verdict (exit 3), whatever the comparison says
    unavailable = found.unavailable if found is not None and options.baseline is None else None
    own_policy = resolve_policy(
        repo_config=job.config,
        suite_blocks={s.header["id"]: s.header.get("gate") for s in record.summary.suites},
        overrides=dict(options.overrides),
    )
    gate = gate_policy(
        own_policy, record, job.record_path, options, plan, settings, job.client, found,
        job.baseline_record, job.cwd, job.env, job.out_dir, unavailable,
    )  # fmt: skip
    job = replace(job, gate=gate)  # its comparisons price with the floored policy's table
    judged = _Judged(job.compare(plan, record.summary, gate.policy, found), unavailable or gate.unavailable)
    judged.comparison.reuse_notes = reuse.notes
    if options.confirm_trials and judged.comparison.mode == "compare":
        judged.comparison = _confirm(job, plan, record, judged.comparison, gate.policy, found)
        judged.comparison.reuse_notes = reuse.notes
    # each loosened knob: one line in every report
    judged.comparison.notes[:0] = gate.lines(options.accept_label)
    # the label accepts a failed verdict (exit 1), never an incomplete run (exit 3)
    if judged.comparison.exit_code == 1 and plan.comment and not judged.unavailable:
        from agent_evals.github.labels import read_acceptance

        acceptance = gate.acceptance or read_acceptance(
            job.client, settings.repository, settings.pr_number, options.accept_label
        )
        judged.accepted = acceptance.accepted
        judged.label_notices += [acceptance.notice] if acceptance.notice else []
    elif gate.label_applies:  # the pull request's looser policy applied: accepted if the base's fails
        judged.accepted = job.compare(plan, record.summary, gate.floored, found).exit_code == 1
    elif gate.acceptance is not None and gate.acceptance.notice:
        judged.label_notices.append(gate.acceptance.notice)
    return judged


def _confirm(
    job: _Job,
    plan: CIPlan,
    record: CIRecord,
    comparison: Comparison,
    policy: Policy,
    found: BaselineResult | None,
) -> Comparison:
    """Re-run the flipped cases ``--confirm-trials`` more times, and compare again."""
    from agent_evals.ci.child_run import run_command
    from agent_evals.gate.confirm import confirm
    from agent_evals.record.read import parse_record, record_to_document

    options = job.options

    def rerun(_suite: str, case_id: str, trials: int) -> RunRecord:
        # the same child `agent-evals run`, on the cases matching this id only
        path = job.out_dir / "confirm.json"
        args = run_command(
            options.paths, path, agent=options.agent, trials=trials, concurrency=options.concurrency,
            extra=options.run_flags,
        )  # fmt: skip
        again = job.run([*args, "--filter", case_id], path)
        if again.record is None or not again.record.complete:
            raise AgentEvalsError(
                f"the confirm run of case {case_id} did not finish: it {again.how()} (exit 3)"
            )
        return parse_record(again.record.document, source=str(path))

    # confirming merges trials into a copy of the record: the one place ci needs the record model
    return confirm(
        comparison, parse_record(record.document, source=str(job.record_path)), policy,
        trials=options.confirm_trials, rerun=rerun,
        compare=lambda cand, pol: job.compare(plan, record_to_document(cand), pol, found),
    )  # fmt: skip


def _render_report(job: _Job, comparison: Comparison, *, accepted: bool) -> tuple[str, str]:
    """The report as the sticky comment (linking the artifacts) and as the job summary."""
    from agent_evals.report.markdown import render_markdown

    def sized(budget: Literal["comment", "summary"]) -> str:
        # The acknowledgement is part of the rendering, so the size budget covers it.
        return render_markdown(
            comparison,
            budget=budget,
            gate_id=job.gate_id,
            full_report_url=f"{job.settings.run_url}#artifacts" if job.settings.run_url else None,
            env=job.secret_env,
            accepted_label=job.options.accept_label if accepted else None,
        )

    return link_artifacts(sized("comment"), job.settings.run_url, job.gate_id), sized("summary")


def _publish(job: _Job, plan: CIPlan, outcome: Outcome, comparison: Comparison) -> CIResult:
    """Publish the decided outcome: the baseline on the data branch (a passing run), the reports, the log,
    then the step outputs, the job summary and the comment; a failure there only turns the exit to 3."""
    options = job.options
    if plan.upload_baseline and options.baseline_store == "branch" and outcome.exit_code == 0:
        why = store_on_branch(options, job.settings, job.client, job.gate_id, job.record_path, job.emit)
        if why:  # exit 3, and every report (written below) says so
            outcome = turned_late(outcome, why, "this job could not store the baseline")
    report_path = job.out_dir / "report.md"
    outputs = step_outputs(
        comparison, job.record_path, report_path, None, job.gate_id, plan,
        status=outcome.status, accepted=outcome.accepted,
    )  # fmt: skip
    outputs["baseline-store"] = options.baseline_store
    reports, report_failure = write_reports(
        job.out_dir, comparison, outcome.comment_md, job.secret_env, exit_code=outcome.exit_code,
        status=outcome.status,
    )  # fmt: skip
    outputs.update(reports)
    say_in_log(
        outcome, comparison, job.settings, cwd=job.cwd, env=job.env, secret_env=job.secret_env, emit=job.emit,
        written=written_lines(job.record_path, reports),
    )  # fmt: skip
    verdict = Path(reports["verdict-json"]) if "verdict-json" in reports else None
    exit_code, comment_result = publish(
        outcome, outputs, options, job.settings, job.client, job.gate_id, job.emit,
        failed=[report_failure] if report_failure else [], verdict=verdict,
    )  # fmt: skip
    return CIResult(exit_code, outputs, outcome.comment_md, plan, comment_result)


def _lost_run(child: ChildRun, job: _Job, plan: CIPlan) -> CIResult:
    """The child left no usable record: exit 3 (130/143 when cancelled), with what it saw, in every output.

    The sticky comment says so too, so an earlier green report never stands beside a red check
    (a cancelled run leaves it alone: the cancellation must finish fast, without the network)."""
    from agent_evals.ci.child_run import report_lost_run

    outputs, markdown = report_lost_run(child, job.settings, job.out_dir, job.gate_id, job.emit)
    facts = Facts(
        recorded=False,
        interrupted=child.interrupted,
        comment=plan.comment and job.options.comment != "never",
    )
    outcome = decide(facts, comment_md=markdown, summary_md=markdown)
    outputs["status"] = outcome.status
    code, comment = publish(outcome, outputs, job.options, job.settings, job.client, job.gate_id, job.emit)
    return CIResult(code, outputs, markdown, dataclasses.replace(plan, upload_baseline=False), comment)


def _client(
    settings: ActionsSettings,
    session: requests.Session | None,
    sleep: Callable[[float], None] | None,
    deadline_s: float | None = None,
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
        deadline_s=deadline_s,
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
    from agent_evals.run.facts import git_info

    return git_info(env, cwd).get("sha")


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
