"""``agent-evals init [DIR]``: scaffold a benchmark, an agent stub, an eval file, a policy and the two workflows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click

from agent_evals.errors import EXIT_USAGE

GATE_WORKFLOW = ".github/workflows/agent-evals.yml"
PUBLISH_WORKFLOW = ".github/workflows/agent-evals-publish.yml"
ACTION_PLACEHOLDER = "<owner>/agent-evals@<commit-sha>"


def _git(where: Path, *args: str) -> str | None:
    """One git query's output, or None when git is missing, fails or prints nothing."""
    try:
        done = subprocess.run(
            ["git", "-C", str(where), *args], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    out = done.stdout.strip()
    return out if done.returncode == 0 and out else None


def default_branch(directory: Path) -> tuple[str, str]:
    """The branch whose pushes should record baselines for a project in ``directory``, and how it was found.

    In order: origin's HEAD (``git symbolic-ref refs/remotes/origin/HEAD``, set by ``git clone`` or
    ``git remote set-head origin --auto``); else the branch checked out (a repository with no remote
    is most often still on the branch it was made with); else git's ``init.defaultBranch`` (the
    branch ``git init`` would make); else ``main``.
    """
    where = directory.absolute()
    while not where.is_dir() and where != where.parent:  # DIR may not exist yet: ask from its parent
        where = where.parent
    in_repo = _git(where, "rev-parse", "--git-dir") is not None
    if in_repo:
        origin_head = _git(where, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD")
        if origin_head and origin_head.startswith("refs/remotes/origin/"):
            return origin_head.removeprefix("refs/remotes/origin/"), "origin's HEAD"
        current = _git(where, "symbolic-ref", "--quiet", "--short", "HEAD")
        if current:
            return current, "the branch checked out here"
    configured = _git(where, "config", "--get", "init.defaultBranch")
    if configured:
        return configured, "init.defaultBranch"
    return "main", "no branch found" if in_repo else "no git repository"


def _closing_lines(written: list[str], branch: str, found_by: str) -> list[str]:
    """What to check in the workflows before pushing them (only the ones written now)."""
    lines = []
    if GATE_WORKFLOW in written:
        lines += [
            f"\nThe gate records baselines on pushes to {branch} ({found_by}); if the repository's default",
            f"branch is another, edit `branches:` under `push:` in {GATE_WORKFLOW}.",
        ]
    edit = [rel for rel in (GATE_WORKFLOW, PUBLISH_WORKFLOW) if rel in written]
    if edit:
        lines.append(
            f"\nBefore you push, replace {ACTION_PLACEHOLDER} with the agent-evals repository pinned"
        )
        lines.append("to a full commit SHA you trust (the same one in both places):")
        notes = {GATE_WORKFLOW: "the gate step's `uses:`", PUBLISH_WORKFLOW: "the `pip install` line"}
        lines += [f"  {rel}  ({notes[rel]})" for rel in edit]
    return lines


INIT_EXIT_CODES = "Exit codes: 0 scaffolded (existing files kept as they were); 2 DIR is not a folder."


@click.command("init", epilog=INIT_EXIT_CODES)
@click.argument("directory", default=".", type=click.Path(path_type=Path))
def init(directory: Path) -> None:
    """Scaffold a runnable project in DIR (default: here); existing files are never overwritten.

    Writes benchmarks/todo.yaml with its agent stub, evals/eval_todo.py, agent-evals.yaml (the gate
    policy), .github/workflows/agent-evals.yml (the read-only gate) and agent-evals-publish.yml (its
    publisher: comment and commit status). `agent-evals run` in DIR passes right after. The gate
    records baselines on pushes to the repository's default branch: origin's HEAD, else the branch
    checked out, else git's init.defaultBranch, else main.
    """
    from agent_evals.scaffold import TEMPLATES, template

    if directory.exists() and not directory.is_dir():
        click.echo(f"error: {directory} exists and is not a folder", err=True)
        sys.exit(EXIT_USAGE)
    branch, found_by = default_branch(directory)
    written, kept = [], []
    for rel, name in TEMPLATES:
        target = directory / rel
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("x", encoding="utf-8") as out:  # "x": fails, never truncates, if it exists
                out.write(template(name, default_branch=branch))
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
    for line in _closing_lines(written, branch, found_by):
        click.echo(line)
