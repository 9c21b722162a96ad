"""``agent-evals publish RUN_DIR``: judge a pull request's gate run, comment, and set its commit status."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from agent_evals.cli.ci import GITHUB_DEADLINE_HELP
from agent_evals.cli.numbers import FiniteRange
from agent_evals.errors import (
    EXIT_CODES_HELP,
    EXIT_INTERNAL,
    EXIT_OK,
    AgentEvalsError,
    GitHubError,
    UsageError,
)
from agent_evals.github.deadline import DEFAULT_DEADLINE_S

if TYPE_CHECKING:
    from agent_evals.ci.publish import GateRun, PublishOptions
    from agent_evals.github.client import GitHubClient
    from agent_evals.github.statuses import CommitStatus


@click.command("publish", epilog=EXIT_CODES_HELP)
@click.argument("source", type=click.Path(path_type=Path), metavar="RUN_DIR")
@click.option(
    "--pr",
    type=click.IntRange(min=1),
    envvar="AGENT_EVALS_PR",
    help="Pull request number [default: the event's pull requests, else the open ones whose head is the "
    "gate's commit; never the run record's; always verified].",
)
@click.option(
    "--head-sha",
    envvar="AGENT_EVALS_HEAD_SHA",
    help="Commit the gate ran on [default: workflow_run.head_sha of the event].",
)
@click.option(
    "--gate-id", envvar="AGENT_EVALS_GATE_ID", help="Gate id [default: from the artifact folder name]."
)
@click.option(
    "--comment",
    type=click.Choice(["always", "on-failure", "never"]),
    default="always",
    show_default=True,
    envvar="AGENT_EVALS_COMMENT",
    help="When to write the comment (this workflow's choice; the artifact has no say).",
)
@click.option(
    "--baseline-artifact",
    default="agent-evals-baseline",
    show_default=True,
    envvar="AGENT_EVALS_BASELINE_ARTIFACT",
    help="Artifact that holds the baseline run record.",
)
@click.option(
    "--baseline-workflow",
    metavar="FILE",
    envvar="AGENT_EVALS_BASELINE_WORKFLOW",
    help="Workflow whose push runs upload the baseline [default: the gate's workflow].",
)
@click.option(
    "--accept-label",
    default="agent-evals:accept-regression",
    show_default=True,
    envvar="AGENT_EVALS_ACCEPT_LABEL",
    help="Pull request label that accepts a failed verdict (read live).",
)
@click.option(
    "--config",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="AGENT_EVALS_CONFIG",
    help="Repo policy config [default: discovered in the trusted checkout].",
)
@click.option("--github-token", envvar=["AGENT_EVALS_GITHUB_TOKEN", "GITHUB_TOKEN"], help="GitHub API token.")
@click.option(
    "--github-deadline-s",
    type=FiniteRange(min=0, min_open=True),
    default=DEFAULT_DEADLINE_S,
    metavar="SECONDS",
    envvar="AGENT_EVALS_GITHUB_DEADLINE_S",
    help=GITHUB_DEADLINE_HELP,
)
def publish(
    source: Path,
    pr: int | None,
    head_sha: str | None,
    gate_id: str | None,
    comment: str,
    baseline_artifact: str,
    baseline_workflow: str | None,
    accept_label: str,
    config: Path | None,
    github_token: str | None,
    github_deadline_s: float,
) -> None:
    """Judge the run record a pull request's gate uploaded, comment, and set the commit status, from a
    workflow_run job that runs none of the pull request's code.

    RUN_DIR is the downloaded `agent-evals-run-<gate-id>` artifact folder (or its run.json). The
    publisher finds the base branch's baseline itself, compares, and renders the comment with its own
    escaping; any report.md in the artifact is ignored. The pull request is GitHub's, never the
    record's: the event's list, else the open pull requests whose head is the gate's commit. It must be
    open, belong to this repository, come from the repository the gate ran on, and have the gate's
    commit as its head; otherwise nothing is posted and the exit code is 2. Several such pull requests,
    or a record that names another one, set error (exit 2).

    The outcome is also the commit status `agent-evals/<gate-id>` on the gate run's head commit (the
    check to require in branch protection): success (passed, or failed with the accept label),
    failure (gate failed, exit 0 here: the publisher did its job), or error (no verdict). A RUN_DIR
    that is not there (the gate run uploaded no record: cancelled, timed out, died) and a record that
    cannot be read or was made for another commit set error, as does a baseline GitHub gave no usable
    answer for (exit 3) and a comment that cannot be written (exit 3).
    """
    from dataclasses import replace

    from agent_evals.ci.publish import PublishOptions, gate_id_of, read_gate_run
    from agent_evals.github.settings import ActionsSettings

    try:
        settings = ActionsSettings.from_env(os.environ, token=github_token)
        gate_run = read_gate_run(settings.event_path)
        if head_sha:
            gate_run = replace(gate_run, head_sha=head_sha)
        gate = gate_id_of(source, gate_id)
        if not settings.token:
            raise UsageError("no GitHub token: pass --github-token or set GITHUB_TOKEN")
        owner, name = settings.owner_repo
    except AgentEvalsError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    options = PublishOptions(
        comment=comment,  # type: ignore[arg-type]  # click.Choice guarantees the Literal
        baseline_artifact=baseline_artifact,
        baseline_workflow=baseline_workflow,
        accept_label=accept_label,
        config=config,
    )
    import requests

    from agent_evals.github.client import GitHubClient

    with requests.Session() as session:
        client = GitHubClient(
            session,
            api_url=settings.api_url,
            token=settings.token_value(),
            sleep=time.sleep,
            deadline_s=github_deadline_s,
        )
        code = _publish(client, f"{owner}/{name}", source, gate, pr, gate_run, options)
    sys.exit(code)


def _publish(
    client: GitHubClient,
    repo: str,
    source: Path,
    gate: str,
    pr: int | None,
    gate_run: GateRun,
    options: PublishOptions,
) -> int:
    """Judge, comment, then set the status; the exit code. Every way of not judging sets ``error``."""
    from agent_evals.ci.publish import comment_no_verdict, load_fork_run
    from agent_evals.ci.publish import publish as post
    from agent_evals.ci.pull_request import (
        NotThisPullRequest,
        PullRequestMoved,
        RecordOfAnotherPullRequest,
        check_record_pr,
        choose_pull_request,
    )
    from agent_evals.github.statuses import CommitStatus

    def no_verdict(exc: AgentEvalsError, numbers: tuple[int, ...] | None = None) -> int:
        click.echo(f"error: {exc}", err=True)
        try:  # the status says it; so does the comment, where one stands on the pull request
            for line in comment_no_verdict(client, repo, gate, gate_run, str(exc), options.comment, numbers):
                click.echo(line)
        except GitHubError as failed:
            click.echo(f"::error::could not write the no-verdict comment: {failed}", err=True)
        return (
            _status(client, repo, gate, gate_run, CommitStatus("error", f"no verdict: {exc}"))
            or exc.exit_code
        )

    try:
        fork = load_fork_run(source, gate, gate_run)
    except AgentEvalsError as exc:  # no record, one that cannot be read, or one of another commit
        return no_verdict(exc)
    try:
        if not gate_run.head_sha:
            raise UsageError("no head commit to check: pass --head-sha (or run from a workflow_run event)")
        # GitHub picks the pull request (the event's list, else the open ones at the commit); the record
        # only has to agree with it
        number, pull = choose_pull_request(
            client,
            repo,
            head_sha=gate_run.head_sha,
            head_repo=gate_run.head_repo,
            listed=gate_run.pull_requests,
            explicit=pr,
        )
        check_record_pr(fork.pr, number)
        result = post(
            client,
            repo,
            fork,
            pr=number,
            pull=pull,
            gate_run=gate_run,
            options=options,
            cwd=Path.cwd(),
            env=os.environ,
        )
    except PullRequestMoved as exc:
        if gate_run.conclusion == "cancelled":  # superseded by a newer push: that run publishes
            click.echo(f"nothing published: the gate run was cancelled and {exc}")
            return EXIT_OK
        click.echo(f"error: {exc}", err=True)
        return exc.exit_code
    except NotThisPullRequest as exc:  # the pull request does not match the gate run: nothing is posted
        click.echo(f"error: {exc}", err=True)
        return exc.exit_code
    except RecordOfAnotherPullRequest as exc:  # the record's claim disagrees with GitHub's pull request
        return no_verdict(exc, (exc.pr,))
    except AgentEvalsError as exc:  # several pull requests, the baseline unknown, the policy or the comment
        return no_verdict(exc, ())
    verdict = result.comparison.verdict + (" (accepted by label)" if result.accepted else "")
    click.echo(f"gate {fork.gate_id} on #{number}: {verdict} (judged by the publisher)")
    status, code = result.status, EXIT_OK
    if result.comment is None:
        click.echo("comment: never (not written)")
    elif result.comment.action == "forbidden":
        click.echo(
            f"::error::could not comment on #{number}: the publisher's token lacks `pull-requests: write`; "
            "add it to the publish job's permissions",
            err=True,
        )
        status = CommitStatus("error", f"{status.description}; the comment could not be written")
        code = EXIT_INTERNAL
    else:
        click.echo(f"comment {result.comment.action} on #{number}: {result.comment.url or ''}")
    return _status(client, repo, gate, gate_run, status) or code


def _status(client: GitHubClient, repo: str, gate: str, gate_run: GateRun, status: CommitStatus) -> int:
    """Set the commit status on the gate run's head commit; 3 when it cannot be set, else 0."""
    from agent_evals.github.statuses import PERMISSION, set_status, status_context

    context = status_context(gate)
    if not gate_run.head_sha or not re.fullmatch(r"[0-9a-f]{40}", gate_run.head_sha):
        click.echo(f"::error::no commit status {context}: the gate run's head commit is unknown", err=True)
        return EXIT_INTERNAL
    try:
        set_status(client, repo, gate_run.head_sha, status, context=context, target_url=gate_run.url)
    except GitHubError as exc:
        hint = f" (the publish job needs `{PERMISSION}`)" if exc.status == 403 else ""
        click.echo(f"::error::could not set the commit status {context}{hint}: {exc}", err=True)
        return EXIT_INTERNAL
    click.echo(f"status {context} on {gate_run.head_sha[:12]}: {status.state}")
    return EXIT_OK
