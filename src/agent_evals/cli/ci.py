"""``agent-evals ci [PATH...]``: run, compare with the base branch's baseline, comment, set the status."""

from __future__ import annotations

import dataclasses
import os
import sys
import traceback
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from agent_evals.cli.compare import knob_options
from agent_evals.cli.numbers import FiniteRange
from agent_evals.errors import EXIT_CODES_HELP, EXIT_INTERNAL, AgentEvalsError
from agent_evals.github.deadline import DEFAULT_DEADLINE_S


def _env(name: str) -> str:
    return f"AGENT_EVALS_{name.upper().replace('-', '_')}"


FILE = click.Path(dir_okay=False, path_type=Path)
GITHUB_DEADLINE_HELP = (
    "Seconds within which each GitHub call or download, retries, redirects and Retry-After waits "
    "included, the whole baseline lookup and the whole comment update must end; a GitHub host that "
    "stalls, trickles or never answers past it gives no verdict (exit 3), naming the host and what "
    "timed out "
    f"[default: {DEFAULT_DEADLINE_S:g}]."
)


@click.command("ci", epilog=EXIT_CODES_HELP + " Every option can also be set as AGENT_EVALS_<OPTION>.")
@click.argument("paths", nargs=-1, type=click.Path(path_type=str), envvar=_env("path"))
@click.option("--baseline", type=FILE, envvar=_env("baseline"), help="Compare with this run record file.")
@click.option(
    "--baseline-artifact",
    default="agent-evals-baseline",
    show_default=True,
    envvar=_env("baseline-artifact"),
    help="Artifact that holds the baseline run record.",
)
@click.option(
    "--baseline-workflow",
    metavar="FILE",
    envvar=_env("baseline-workflow"),
    help="Workflow file whose push runs upload the baseline [default: the current workflow].",
)
@click.option(
    "--baseline-store",
    type=click.Choice(["artifact", "branch"]),
    default="artifact",
    show_default=True,
    envvar=_env("baseline-store"),
    help="Where baselines live: workflow artifacts (they expire), or a data branch (kept until dropped).",
)
@click.option(
    "--baseline-branch",
    default="agent-evals-data",
    show_default=True,
    envvar=_env("baseline-branch"),
    help="The data branch, with --baseline-store branch.",
)
@click.option(
    "--keep-baselines",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    envvar=_env("keep-baselines"),
    help="Baselines kept per gate on the data branch, and read per PR: the chosen one plus up to N-1 earlier ones as the gate's history (1 turns history off).",
)
@click.option("--output", type=FILE, metavar="RUN.json", envvar=_env("output"), help="Run record path.")
@click.option(
    "--output-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path(".agent-evals/ci"),
    show_default=True,
    envvar=_env("output-dir"),
    help="Folder for the run record and report.",
)
@click.option("--agent", metavar="MODULE:ATTR", envvar=_env("agent"), help="Agent for YAML benchmarks.")
@click.option("--config", type=FILE, envvar=_env("config"), help="Repo policy config file.")
@click.option(
    "--comment",
    type=click.Choice(["always", "on-failure", "never"]),
    default="always",
    show_default=True,
    envvar=_env("comment"),
    help="When to write the sticky PR comment (on-failure still updates an existing one).",
)
@click.option("--gate-id", envvar=_env("gate-id"), help="Gate id [default: from workflow, job and paths].")
@knob_options(envvar=_env)
@click.option("--trials", type=click.IntRange(min=1), envvar=_env("trials"), help="Trials per case.")
@click.option("--concurrency", type=click.IntRange(min=1), envvar=_env("concurrency"), help="Trials at once.")
@click.option(
    "--confirm-trials",
    type=click.IntRange(min=0),
    default=0,
    envvar=_env("confirm-trials"),
    help="When a suite fails or is inconclusive on a drop, re-run only its flipped cases this many more "
    "times and decide on all the data (alpha spent over the two looks) [default: 0, off].",
)
@click.option(
    "--confirm-max-trials",
    type=click.IntRange(min=1),
    default=50,
    envvar=_env("confirm-max-trials"),
    help="Largest --confirm-trials allowed [default: 50].",
)
@click.option(
    "--retry-errors",
    type=click.IntRange(min=0),
    default=0,
    metavar="N",
    envvar=_env("retry-errors"),
    help="Retry a trial up to N times when it errored with an infrastructure error (HTTP 429/5xx, an "
    "SDK's rate-limit, timeout or connection error), honouring Retry-After [default: 0].",
)
@click.option(
    "--cache",
    type=click.Choice(["record", "replay", "off"]),
    default="off",
    show_default=True,
    envvar=_env("cache"),
    help="Response cache of the HTTP calls trials make: record, replay (a miss errors that trial, never a "
    "live call) or off. Covers httpx, the standard library's http.client (urllib, requests) and LangChain's "
    "LLM cache; see `agent-evals run --help` for what it cannot cover.",
)
@click.option(
    "--trace",
    type=click.Choice(["otel", "off"]),
    default="off",
    show_default=True,
    envvar=_env("trace"),
    help="otel: each trial's OpenTelemetry GenAI spans fill what its agent did not return (trajectory, usage, "
    "models); needs pip install 'agent-evals[otel]'.",
)
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=str),
    envvar=_env("cache-dir"),
    help="Folder of the response cache [default: .agent-evals/cache]; keep it with actions/cache.",
)
@click.option(
    "--github-token",
    envvar=[_env("github-token"), "GITHUB_TOKEN"],
    show_envvar=False,
    help="GitHub API token [default: $GITHUB_TOKEN].",
)
@click.option(
    "--github-deadline-s",
    type=FiniteRange(min=0, min_open=True),
    default=DEFAULT_DEADLINE_S,
    metavar="SECONDS",
    envvar=_env("github-deadline-s"),
    help=GITHUB_DEADLINE_HELP,
)
@click.option(
    "--hold-env",
    multiple=True,
    metavar="NAME",
    envvar=_env("hold-env"),
    help="Hold this environment variable (or every one starting with PREFIX, as PREFIX*) back from the "
    "agents and evals too; repeatable, or a comma-separated list. The job's credentials (GITHUB_TOKEN, "
    "INPUT_*, ACTIONS_RUNTIME_TOKEN, the OIDC request, the GITHUB_ENV/GITHUB_OUTPUT/... file commands) "
    "are always held back; see docs/security.md.",
)
@click.option(
    "--update-baseline",
    is_flag=True,
    envvar=_env("update-baseline"),
    help="Have the action upload this run as the baseline, whatever the branch.",
)
@click.option(
    "--accept-label",
    default="agent-evals:accept-regression",
    show_default=True,
    envvar=_env("accept-label"),
    help="PR label that accepts a failed verdict (an intended regression).",
)
@click.option(
    "--reuse-unchanged",
    is_flag=True,
    envvar=_env("reuse-unchanged"),
    help="On a pull request, copy from the baseline the results of every suite whose inputs (its file, the "
    "project files it read, lock files, package versions, Python, agent-evals, environment, command) are "
    "unchanged instead of running it; reused suites are kept out of the test and never count as evidence "
    "for a pass (all reused: status `reused`, exit 0). Never when building a baseline. See docs/cost.md.",
)
@click.option(
    "--force",
    is_flag=True,
    envvar=_env("force"),
    help="Run every suite, even with --reuse-unchanged.",
)
@click.option(
    "--budget-usd",
    type=FiniteRange(min=0, min_open=True),
    envvar=_env("budget-usd"),
    help="Spending limit in US dollars: no new trial starts once the spend (every attempt, retries "
    "included; replayed cache answers are free) reaches it; the run is then incomplete (budget exhausted, exit 3), never a pass.",
)
@click.option(
    "--shards",
    type=click.Path(file_okay=False, path_type=Path),
    envvar=_env("shards"),
    help="Merge the shard records (run --shard) in this folder instead of running the suites.",
)
def ci(
    paths: tuple[str, ...],
    baseline: Path | None,
    baseline_artifact: str,
    baseline_workflow: str | None,
    baseline_store: str,
    baseline_branch: str,
    keep_baselines: int,
    output: Path | None,
    output_dir: Path,
    agent: str | None,
    config: Path | None,
    comment: str,
    gate_id: str | None,
    trials: int | None,
    concurrency: int | None,
    confirm_trials: int,
    confirm_max_trials: int,
    retry_errors: int,
    cache: str,
    trace: str,
    cache_dir: str | None,
    github_token: str | None,
    github_deadline_s: float,
    hold_env: tuple[str, ...],
    update_baseline: bool,
    accept_label: str,
    shards: Path | None,
    reuse_unchanged: bool,
    force: bool,
    budget_usd: float | None,
    **knobs: Any,
) -> None:
    """Run the suites and gate them in CI.

    On a pull request: run, fetch the base branch's baseline artifact, compare, write the job summary,
    update the sticky comment, write step outputs and exit with the gate's code. On a push to the
    default branch (or with --update-baseline): run and leave the record for the action to upload
    as the baseline. Outside GitHub Actions: run, compare with --baseline FILE, print the report as
    plain text (report.md keeps the Markdown) and name the files written.
    """
    from agent_evals.ci.child_env import parse_hold_env
    from agent_evals.ci.flow import run_ci
    from agent_evals.ci.options import CIOptions
    from agent_evals.gate.policy import parse_block, resolve_policy

    options = CIOptions(
        paths=paths,
        baseline=baseline,
        baseline_artifact=baseline_artifact,
        baseline_workflow=baseline_workflow,
        baseline_store=baseline_store,  # type: ignore[arg-type]  # click.Choice guarantees the Literal
        baseline_branch=baseline_branch,
        keep_baselines=keep_baselines,
        output_dir=output_dir,
        output=output,
        agent=agent,
        config=config,
        comment=comment,  # type: ignore[arg-type]  # click.Choice guarantees the Literal
        gate_id=gate_id,
        overrides=knobs,
        trials=trials,
        concurrency=concurrency,
        confirm_trials=confirm_trials,
        run_flags=tuple(run_flags(retry_errors, cache, cache_dir, trace)),
        update_baseline=update_baseline,
        accept_label=accept_label,
        github_token=github_token,
        github_deadline_s=github_deadline_s,
        shards=shards,
        reuse_unchanged=reuse_unchanged,
        force=force,
    )
    if confirm_trials > confirm_max_trials:
        click.echo(
            f"error: --confirm-trials {confirm_trials} is above --confirm-max-trials {confirm_max_trials}; "
            "lower it or raise the maximum",
            err=True,
        )
        sys.exit(2)
    if budget_usd is not None:  # the child `agent-evals run` reads it from its environment
        from agent_evals.cost.budget import BUDGET_ENV

        os.environ[BUDGET_ENV] = repr(budget_usd)
    try:
        # a bad flag stops the command before any suite runs, with the policy's own message naming
        # where the value came from (an AGENT_EVALS_* variable, or the command line)
        context = click.get_current_context()
        for name, value in knobs.items():
            if value is not None and context.get_parameter_source(name) is ParameterSource.ENVIRONMENT:
                parse_block({name: value}, source=f"environment variable {_env(name)}", prefix="flag")
        resolve_policy(repo_config=None, suite_blocks={}, overrides=knobs)
        options = dataclasses.replace(options, hold_env=parse_hold_env(hold_env))  # exit 2 when malformed
        result = run_ci(
            options,
            env=os.environ,
            cwd=Path.cwd(),
            emit=click.echo,
            emit_err=lambda line: click.echo(line, err=True),
        )
    except AgentEvalsError as exc:
        click.echo(f"error: {_scrub(str(exc), github_token)}", err=True)
        sys.exit(exc.exit_code)
    except (Exception, SystemExit):  # a bug, or a fault that escaped its trial: never exit 0
        click.echo(
            f"internal error (please report it):\n{_scrub(traceback.format_exc(), github_token)}", err=True
        )
        sys.exit(EXIT_INTERNAL)
    sys.exit(result.exit_code)


def run_flags(
    retry_errors: int, cache_mode: str = "off", cache_dir: str | None = None, trace: str = "off"
) -> list[str]:
    """The ``agent-evals run`` flags ci hands on to the child run of the suites."""
    flags: list[str] = []
    if trace != "off":
        flags += ["--trace", trace]
    if retry_errors:
        flags += ["--retry-errors", str(retry_errors)]
    if cache_mode != "off":
        flags += ["--cache", cache_mode]
    if cache_dir:
        flags += ["--cache-dir", cache_dir]
    return flags


def _scrub(text: str, token: str | None) -> str:
    from agent_evals.core.redact import redact

    text = redact(text)
    return text.replace(token, "***") if token else text
