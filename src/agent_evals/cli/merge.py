"""``agent-evals merge SHARD... -o RUN.json``: join the shard records of one run into its run record."""

from __future__ import annotations

import sys

import click

from agent_evals.errors import EXIT_USAGE, AgentEvalsError

MERGE_EXIT_CODES = (
    "Exit codes: 0 the merged record was written (with --allow-partial it may be marked incomplete, "
    "which compare and ci never pass); 2 the records are not the shards of one run (not shard "
    "records, overlapping cases, a missing or interrupted shard, a case of the suite that no shard "
    "holds, different suite fingerprints, suite file contents, tool versions or commits, a shard "
    "without a commit beside one with) or a file cannot be read or written."
)


@click.command("merge", epilog=MERGE_EXIT_CODES)
@click.argument("shards", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=str))
@click.option(
    "--output",
    "-o",
    required=True,
    type=click.Path(dir_okay=False, path_type=str),
    metavar="RUN.json",
    help="Write the merged run record here.",
)
@click.option(
    "--allow-partial",
    is_flag=True,
    help="Merge even when shards are missing or interrupted; the record is then marked complete: false.",
)
def merge(shards: tuple[str, ...], output: str, allow_partial: bool) -> None:
    """Join shard records (from `run --shard INDEX/COUNT`) into the run record of the whole run."""
    from agent_evals.record.merge import merge_shards
    from agent_evals.record.read import read_record
    from agent_evals.record.store import write_record

    try:
        records = [(path, read_record(path)) for path in shards]
        merged = merge_shards(records, allow_partial=allow_partial)
    except AgentEvalsError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    try:
        write_record(output, merged.record)
    except OSError as exc:
        click.echo(f"error: cannot write the merged run record to {output}: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    cases = sum(len(s.cases) for s in merged.record.suites)
    click.echo(
        f"Merged {len(records)} shard record(s): {len(merged.record.suites)} suite(s), {cases} case(s) "
        f"-> {output}"
    )
    if not merged.record.run.complete:
        lacking = merged.lacking()
        click.echo(
            f"warning: the merged record is incomplete (complete: false), lacking {', '.join(lacking)}; "
            "compare and ci will not pass it",
            err=True,
        )
        for reason in merged.record.run.incomplete_reasons or ():
            click.echo(f"  {reason}", err=True)
