"""``agent-evals list [PATH...]``: the cases, datasets, labels and trials a run would execute."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from agent_evals.errors import EXIT_USAGE
from agent_evals.report.filters import pluralize

LIST_EXIT_CODES = (
    "Exit codes: 0 listed; 2 a path, eval file or benchmark that `agent-evals run` would refuse, or a "
    "selection that matches nothing; 3 internal error."
)


@click.command("list", epilog=LIST_EXIT_CODES)
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--dataset", "datasets", multiple=True, help="Only evals of this dataset (repeatable).")
@click.option("--label", "labels", multiple=True, help="Only evals carrying this label (repeatable).")
@click.option("--filter", "case_filter", metavar="GLOB", help="Only case ids matching this glob (as `run`).")
@click.option("--trials", type=click.IntRange(min=1), help="Trials per case; overrides the files.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: suites, their cases, totals.")
def list_cases(
    paths: tuple[str, ...],
    datasets: tuple[str, ...],
    labels: tuple[str, ...],
    case_filter: str | None,
    trials: int | None,
    as_json: bool,
) -> None:
    """List the cases `agent-evals run` would execute with the same arguments, running nothing.

    Like `pytest --collect-only`: eval files are imported and benchmark YAML loaded (agents are
    not imported; `agent-evals validate` does that). Without PATH, benchmarks/ and evals/ are listed.
    """
    from agent_evals.run.inventory import inspect_paths

    inventory = inspect_paths(
        paths,
        cwd=Path.cwd(),
        check_agents=False,
        trials=trials,
        case_filter=case_filter,
        datasets=datasets,
        labels=labels,
    )
    if as_json:
        click.echo(json.dumps(inventory.to_json(), indent=2))
    else:
        for suite in inventory.suites:
            click.echo(f"{suite.source} ({suite.kind} {suite.id})")
            for case in suite.cases:
                facts = [f"dataset {case.dataset}"] if case.dataset else []
                if case.labels:
                    facts.append(f"labels {', '.join(case.labels)}")
                facts.append(f"trials {case.trials}")
                click.echo(f"  {case.id}  ({'; '.join(facts)})")
    for note in inventory.skipped:
        click.echo(f"skipped: {note}", err=True)
    for problem in inventory.problems:
        click.echo(f"error: {problem}", err=True)
    if inventory.problems:
        sys.exit(EXIT_USAGE)
    if not as_json:
        click.echo(
            f"{pluralize(inventory.cases, 'case')}, {pluralize(inventory.trials, 'trial')} "
            f"in {len(inventory.suites)} suite(s)"
        )
