"""``agent-evals regrade RUN_RECORD``: re-score stored outputs with the current evaluators."""

from __future__ import annotations

import sys
import traceback

import click

from agent_evals.errors import EXIT_INTERNAL, EXIT_USAGE, AgentEvalsError, UsageError

REGRADE_EXIT_CODES = (
    "Exit codes: 0 regraded; 2 unreadable record, an eval file that is gone or fails to import, or "
    "benchmark suites in the record without --keep-benchmarks; 3 internal error."
)


@click.command("regrade", epilog=REGRADE_EXIT_CODES)
@click.argument("run_record", type=click.Path(dir_okay=False, path_type=str))
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=str),
    metavar="RUN.json",
    help="Write the regraded record here (default: update RUN_RECORD in place).",
)
@click.option(
    "--keep-benchmarks",
    is_flag=True,
    help="Regrade the eval suites and copy the benchmark suites unchanged (else a record with any is refused).",
)
@click.option("--quiet", "-q", is_flag=True, help="Print only the closing totals line.")
@click.option("--verbose", "-v", is_flag=True, help="Also print tracebacks of errored cases.")
def regrade(run_record: str, output: str | None, keep_benchmarks: bool, quiet: bool, verbose: bool) -> None:
    """Re-score the outputs stored in RUN_RECORD with the evals' current code, without calling the agent.

    Evals with target= re-run their body on the stored output, then their evaluators; other evals
    keep their body's scores and re-run their evaluators. Benchmark suites are not regraded: their
    records keep no messages or final state to score again. A record that holds any is refused
    (exit 2) unless --keep-benchmarks copies them unchanged; re-run benchmarks with `agent-evals run`.
    """
    from agent_evals.evals.regrade import regrade_record
    from agent_evals.record.read import read_record
    from agent_evals.record.store import write_record
    from agent_evals.report.terminal_run import render_run_summary

    try:
        stored = read_record(run_record)
        benchmarks = [suite.id for suite in stored.suites if suite.kind == "benchmark"]
        if benchmarks and not keep_benchmarks:
            raise UsageError(
                f"{run_record}: regrade does not re-score benchmark suites ({', '.join(benchmarks)}): "
                "their trials keep no messages or final state to score again. Re-run them with "
                "`agent-evals run`, or pass --keep-benchmarks to regrade only the eval suites and copy "
                "the benchmark suites unchanged"
            )
        record, summary = regrade_record(stored)
    except AgentEvalsError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except Exception:
        click.echo(f"internal error (please report it):\n{traceback.format_exc()}", err=True)
        sys.exit(EXIT_INTERNAL)
    target = output or run_record
    try:
        write_record(target, record)
    except OSError as exc:
        click.echo(f"error: cannot write the run record to {target}: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    from agent_evals.report.colour import use_colour

    colour = use_colour(sys.stdout)
    text = render_run_summary(record, verbose=verbose, color=colour)
    click.echo(text.splitlines()[-1] if quiet else text.rstrip("\n"), color=colour)
    if not quiet:
        click.echo(
            f"Regraded {summary.trials} trial(s); kept {summary.kept} as they were; written to {target}"
        )
        if keep_benchmarks:
            kept = [suite.id for suite in record.suites if suite.kind == "benchmark"]
            if kept:
                click.echo(f"Benchmark suites copied unchanged (not regraded): {', '.join(kept)}")
        for case_id in summary.missing_cases:
            click.echo(f"  kept (no such eval any more): {case_id}", err=True)
