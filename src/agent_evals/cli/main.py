"""The click group; subcommands are imported only when invoked so ``--help`` stays fast."""

from __future__ import annotations

import importlib
import sys
import traceback
from typing import Any

import click

from agent_evals.errors import EXIT_CODES_HELP, EXIT_INTERNAL
from agent_evals.version import __version__

# name -> (module, attribute, one-line help). Help text lives here so `--help` imports nothing else.
COMMANDS: dict[str, tuple[str, str, str]] = {}


def register(name: str, module: str, attr: str, help_line: str) -> None:
    """Declare a lazily imported subcommand."""
    COMMANDS[name] = (module, attr, help_line)


register(
    "init", "agent_evals.cli.init", "init", "Scaffold a runnable benchmark, eval file, policy and workflow."
)
register("run", "agent_evals.cli.run", "run", "Run eval files and YAML benchmarks; write a run record.")
register("merge", "agent_evals.cli.merge", "merge", "Join shard records (run --shard) into one run record.")
register("compare", "agent_evals.cli.compare", "compare", "Compare a candidate run record with a baseline.")
register(
    "report", "agent_evals.cli.report", "report", "Render one run record as Markdown, JUnit, HTML or JSON."
)
register(
    "validate",
    "agent_evals.cli.validate",
    "validate",
    "Check that files, agents and scorers load; run nothing.",
)
register("list", "agent_evals.cli.list_cases", "list_cases", "List the cases a run would execute (--json).")
register(
    "regrade", "agent_evals.cli.regrade", "regrade", "Re-score stored outputs with the current evaluators."
)
register(
    "ci", "agent_evals.cli.ci", "ci", "Run, compare with the base branch, comment and set the job status."
)
register(
    "publish", "agent_evals.cli.publish", "publish", "Post a rendered report to a pull request (fork-safe)."
)


class LazyGroup(click.Group):
    """A group whose subcommands load on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS:
            module_name, attr, _ = COMMANDS[cmd_name]
            try:
                module = importlib.import_module(module_name)
            except ModuleNotFoundError as exc:
                if exc.name == module_name:
                    return None  # not built yet in this version
                raise
            command: click.Command = getattr(module, attr)
            return command
        return super().get_command(ctx, cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib  # only for an unknown command

            close = difflib.get_close_matches(name, self.list_commands(ctx), n=1, cutoff=0.6)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            ctx.fail(f"No such command '{name}'.{hint} Commands: {', '.join(self.list_commands(ctx))}")
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][2]) for name in sorted(COMMANDS)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, epilog=EXIT_CODES_HELP, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="agent-evals")
def cli() -> None:
    """Evaluate AI agents and stop regressions in CI."""


def main(argv: list[str] | None = None) -> Any:
    """Console-script entry point.

    Without ``argv`` this is the process's own command line, so commands may end the process without
    tearing down large structures (see ``cli.compare.end_command``); callers passing ``argv`` keep it.
    """
    try:
        if argv is not None:
            return cli.main(args=argv, prog_name="agent-evals")
        return cli.main(args=sys.argv[1:], prog_name="agent-evals", obj={"owns_process": True})
    except Exception:  # a bug, not a verdict: never let it look like "gate failed" (exit 1)
        traceback.print_exc()
        click.echo("internal error: agent-evals hit a bug (traceback above); please report it", err=True)
        sys.exit(EXIT_INTERNAL)
