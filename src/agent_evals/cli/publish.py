"""``agent-evals publish RUN_OR_REPORT --pr N``: post a gate report to a pull request (fork-safe recipe)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import click

from agent_evals.errors import EXIT_CODES_HELP, AgentEvalsError, UsageError


@click.command("publish", epilog=EXIT_CODES_HELP)
@click.argument("source", type=click.Path(exists=True, path_type=Path), metavar="RUN_OR_REPORT")
@click.option(
    "--pr",
    type=click.IntRange(min=1),
    envvar="AGENT_EVALS_PR",
    help="Pull request number [default: from run.json].",
)
@click.option(
    "--head-sha",
    envvar="AGENT_EVALS_HEAD_SHA",
    help="Commit the report was made for [default: workflow_run.head_sha of the event].",
)
@click.option("--github-token", envvar=["AGENT_EVALS_GITHUB_TOKEN", "GITHUB_TOKEN"], help="GitHub API token.")
def publish(source: Path, pr: int | None, head_sha: str | None, github_token: str | None) -> None:
    """Post a report that `agent-evals ci` wrote, from a privileged workflow_run job.

    RUN_OR_REPORT is the report.md, the run.json beside it, or their folder (the downloaded
    artifact). The pull request must belong to this repository and its head commit must be the one
    the report was made for; otherwise nothing is posted and the exit code is 2.
    """
    from agent_evals.github.publish import load_publication
    from agent_evals.github.publish import publish as post
    from agent_evals.github.settings import ActionsSettings

    try:
        settings = ActionsSettings.from_env(os.environ, token=github_token)
        publication = load_publication(source)
        number = pr or publication.pr
        if number is None:
            raise UsageError("no pull request number: pass --pr N (the run record does not name one)")
        sha = head_sha or _event_head_sha(settings.event_path)
        if not sha:
            raise UsageError("no head commit to check: pass --head-sha (or run from a workflow_run event)")
        if not settings.token:
            raise UsageError("no GitHub token: pass --github-token or set GITHUB_TOKEN")
        import requests

        from agent_evals.github.client import GitHubClient

        owner, name = settings.owner_repo
        with requests.Session() as session:
            client = GitHubClient(
                session, api_url=settings.api_url, token=settings.token_value(), sleep=time.sleep
            )
            result = post(client, f"{owner}/{name}", publication, pr=number, head_sha=sha)
    except AgentEvalsError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    if result.notice:
        click.echo(f"::warning::{result.notice}")
        return
    click.echo(f"comment {result.action} on #{number}: {result.url or ''}")


def _event_head_sha(event_path: str | None) -> str | None:
    if not event_path:
        return None
    try:
        data = json.loads(Path(event_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    run = data.get("workflow_run") if isinstance(data, dict) else None
    sha = run.get("head_sha") if isinstance(run, dict) else None
    return sha if isinstance(sha, str) else None
