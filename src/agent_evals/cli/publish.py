"""``agent-evals publish RUN_DIR``: judge a fork's gate run and comment on its pull request (fork-safe recipe)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import click

from agent_evals.errors import EXIT_CODES_HELP, EXIT_INTERNAL, AgentEvalsError, UsageError


@click.command("publish", epilog=EXIT_CODES_HELP)
@click.argument("source", type=click.Path(exists=True, path_type=Path), metavar="RUN_DIR")
@click.option(
    "--pr",
    type=click.IntRange(min=1),
    envvar="AGENT_EVALS_PR",
    help="Pull request number [default: from the run record; always verified].",
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
) -> None:
    """Judge the run record a pull request's gate uploaded and comment, from a privileged workflow_run job.

    RUN_DIR is the downloaded `agent-evals-run-<gate-id>` artifact folder (or its run.json). The
    publisher finds the base branch's baseline itself, compares, and renders the comment with its own
    escaping; any report.md in the artifact is ignored. The pull request must belong to this
    repository, come from the repository the gate ran on, and have the gate's commit as its head;
    otherwise nothing is posted and the exit code is 2. A comment that cannot be written exits 3, and
    so does a baseline GitHub gave no usable answer for (nothing is posted).
    """
    from dataclasses import replace

    from agent_evals.github.publish import PublishOptions, load_fork_run, read_gate_run
    from agent_evals.github.publish import publish as post
    from agent_evals.github.settings import ActionsSettings

    try:
        settings = ActionsSettings.from_env(os.environ, token=github_token)
        fork = load_fork_run(source, gate_id)
        number = pr or fork.pr
        if number is None:
            raise UsageError("no pull request number: pass --pr N (the run record does not name one)")
        gate_run = read_gate_run(settings.event_path)
        if head_sha:
            gate_run = replace(gate_run, head_sha=head_sha)
        if not settings.token:
            raise UsageError("no GitHub token: pass --github-token or set GITHUB_TOKEN")
        options = PublishOptions(
            comment=comment,  # type: ignore[arg-type]  # click.Choice guarantees the Literal
            baseline_artifact=baseline_artifact,
            baseline_workflow=baseline_workflow,
            accept_label=accept_label,
            config=config,
        )
        import requests

        from agent_evals.github.client import GitHubClient

        owner, name = settings.owner_repo
        with requests.Session() as session:
            client = GitHubClient(
                session, api_url=settings.api_url, token=settings.token_value(), sleep=time.sleep
            )
            result = post(
                client,
                f"{owner}/{name}",
                fork,
                pr=number,
                gate_run=gate_run,
                options=options,
                cwd=Path.cwd(),
                env=os.environ,
            )
    except AgentEvalsError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    verdict = result.comparison.verdict + (" (accepted by label)" if result.accepted else "")
    click.echo(f"gate {fork.gate_id} on #{number}: {verdict} (judged by the publisher)")
    if result.comment is None:
        click.echo("comment: never (not written)")
        return
    if result.comment.action == "forbidden":
        click.echo(
            f"::error::could not comment on #{number}: the publisher's token lacks `pull-requests: write`; "
            "add it to the publish job's permissions",
            err=True,
        )
        sys.exit(EXIT_INTERNAL)
    click.echo(f"comment {result.comment.action} on #{number}: {result.comment.url or ''}")
