"""``agent-evals init [DIR]``: scaffold a benchmark, an agent stub, an eval file, a policy and the two workflows."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from agent_evals.errors import EXIT_USAGE

INIT_EXIT_CODES = "Exit codes: 0 scaffolded (existing files kept as they were); 2 DIR is not a folder."


@click.command("init", epilog=INIT_EXIT_CODES)
@click.argument("directory", default=".", type=click.Path(path_type=Path))
def init(directory: Path) -> None:
    """Scaffold a runnable project in DIR (default: here); existing files are never overwritten.

    Writes benchmarks/todo.yaml with its agent stub, evals/eval_todo.py, agent-evals.yaml (the gate
    policy), .github/workflows/agent-evals.yml (the read-only gate) and agent-evals-publish.yml (its
    publisher: comment and commit status). `agent-evals run` in DIR passes right after.
    """
    from agent_evals.scaffold import TEMPLATES, template

    if directory.exists() and not directory.is_dir():
        click.echo(f"error: {directory} exists and is not a folder", err=True)
        sys.exit(EXIT_USAGE)
    written, kept = [], []
    for rel, name in TEMPLATES:
        target = directory / rel
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("x", encoding="utf-8") as out:  # "x": fails, never truncates, if it exists
                out.write(template(name))
        except FileExistsError:
            kept.append(rel)
            continue
        except OSError as exc:
            click.echo(f"error: cannot write {target}: {exc.strerror or exc}", err=True)
            sys.exit(EXIT_USAGE)
        written.append(rel)
    for rel in written:
        click.echo(f"created  {rel}")
    for rel in kept:
        click.echo(f"kept     {rel} (it exists; not overwritten)")
    click.echo("\nNext:")
    if directory != Path():
        click.echo(f"  cd {directory}")
    click.echo("  agent-evals validate          # everything loads: files, agent, scorers")
    click.echo("  agent-evals list              # the cases a run executes")
    click.echo("  agent-evals run -o run.json   # run them and write the run record")
