"""``agent-evals report RUN_RECORD``: render one run without a baseline as Markdown, JUnit, HTML or JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from agent_evals.cli.compare import (
    build_policy,
    max_size_option,
    policy_options,
    render_report,
    run_command,
    write_text,
)
from agent_evals.errors import EXIT_OK

REPORT_EXIT_CODES = (
    "Exit codes: 0 the report was written (whatever the run's pass rate); 2 usage error (bad flag, "
    "unreadable or schema-invalid record, unwritable output); 3 internal error."
)


@click.command("report", epilog=REPORT_EXIT_CODES)
@click.argument("run_record", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["md", "junit", "html", "json"]),
    default="md",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="Write here instead of stdout."
)
@policy_options
@max_size_option
def report(
    run_record: Path,
    fmt: str,
    output: Path | None,
    policy_file: Path | None,
    max_record_mib: float,
    **flags: Any,
) -> None:
    """Render RUN_RECORD alone (no baseline): rates, groups, failing cases and errors, under the policy's floors."""

    def body() -> int:
        from agent_evals.gate.compare import single_run
        from agent_evals.record.read import check_record_size, read_summary

        check_record_size(run_record, max_record_mib)
        run = read_summary(run_record)
        comparison = single_run(run, build_policy(run, policy_file, flags))
        text = render_report(comparison, fmt)
        if output is None:
            click.echo(text, nl=not text.endswith("\n"))
        else:
            write_text(output, text, "report")
            click.echo(f"Report written to {output}")
        return EXIT_OK

    run_command(body)
