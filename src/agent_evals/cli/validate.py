"""``agent-evals validate [PATH...]``: load every eval file and benchmark, import agents, run nothing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from agent_evals.errors import EXIT_USAGE, AgentEvalsError
from agent_evals.report.filters import pluralize

if TYPE_CHECKING:
    from agent_evals.run.inventory import Inventory

VALIDATE_EXIT_CODES = (
    "Exit codes: 0 everything `agent-evals run` would load loads; 2 a file, agent, scorer, selection "
    "or agent-evals.yaml that `run` (or `compare`) would refuse; 3 internal error."
)


@click.command("validate", epilog=VALIDATE_EXIT_CODES)
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option(
    "--agent", metavar="MODULE:ATTR", help="Agent for YAML benchmarks (overrides the file's agent)."
)
@click.option("--quiet", "-q", is_flag=True, help="Print only the problems and the closing line.")
def validate(paths: tuple[str, ...], agent: str | None, quiet: bool) -> None:
    """Check that PATH... loads as `agent-evals run` would load it, without running anything.

    Imports every eval file and resolves its cases; loads every benchmark YAML (includes, scorers,
    gate block), imports and creates its agent. Also reads ./agent-evals.yaml when there is one.
    Without PATH, the benchmarks/ and evals/ folders are checked.
    """
    from agent_evals.run.inventory import inspect_paths

    cwd = Path.cwd()
    inventory = inspect_paths(paths, cwd=cwd, agent=agent)
    problems = list(inventory.problems)
    problems += _policy_problems(inventory)
    if not quiet:
        for suite in inventory.suites:
            trials = sum(c.trials for c in suite.cases)
            agent_note = f", agent {suite.agent}" if suite.agent else ""
            click.echo(
                f"ok  {suite.source} ({suite.kind} {suite.id}: {pluralize(len(suite.cases), 'case')}, "
                f"{pluralize(trials, 'trial')}{agent_note})"
            )
    for note in inventory.skipped:
        click.echo(f"skipped: {note}", err=True)
    for problem in problems:
        click.echo(f"error: {problem}", err=True)
    files = len(inventory.suites) + len(inventory.problems)
    if problems:
        total = len(problems) + inventory.further_problems
        click.echo(f"Validation failed: {total} problem(s) in {files} file(s) checked", err=True)
        sys.exit(EXIT_USAGE)
    click.echo(
        f"Valid: {files} file(s), {pluralize(inventory.cases, 'case')}, {pluralize(inventory.trials, 'trial')} "
        "(nothing was run)"
    )


def _policy_problems(inventory: Inventory) -> list[str]:
    """A bad ./agent-evals.yaml is a problem; an override matching none of the suites, a warning."""
    from agent_evals.gate.policy import discover_repo_config, resolve_policy
    from agent_evals.gate.unmatched import unmatched_overrides

    try:
        config = discover_repo_config(Path())  # shown as agent-evals.yaml, relative like other files
        if config is None:
            return []
        policy = resolve_policy(repo_config=config, suite_blocks={}, overrides={})
    except AgentEvalsError as exc:
        return [str(exc)]
    if inventory.suites and not inventory.problems:
        groups = {s.id: sorted({c.dataset or "" for c in s.cases}) for s in inventory.suites}
        for message in unmatched_overrides(policy, groups):
            click.echo(f"warning: {message}", err=True)
    return []
