"""``agent-evals compare BASELINE CANDIDATE``: decide the gate from two run records and write reports."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from agent_evals.cli.numbers import FiniteRange
from agent_evals.errors import EXIT_CODES_HELP, EXIT_INTERNAL, AgentEvalsError, UsageError

if TYPE_CHECKING:
    from agent_evals.gate.model import BaselineInfo, Comparison
    from agent_evals.gate.policy import Policy
    from agent_evals.record.read import Document
    from agent_evals.record.summary import RunSummary

ACTIONS = click.Choice(["pass", "warn", "fail"])

COMPARE_HELP = """Compare a CANDIDATE run record with a BASELINE one and decide the gate.

Prints the verdict with per-suite rates, deltas and their intervals, and writes the reports asked
for. The policy comes from the built-in defaults, then the repo config (agent-evals.yaml `gate:` or
[tool.agent-evals.gate] in pyproject.toml, or --policy FILE instead), then each suite's own `gate:`
block, then these flags. A BASELINE path that does not exist means "no baseline": the policy's
on_missing_baseline decides (default warn).
"""


def knob_options(
    envvar: Callable[[str], str] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The policy knob flags, declared once for every command that takes them.

    Values are checked by the policy itself, so a bad one is exit 2 with the same message whichever
    command got it. ``envvar`` maps a flag name (``max-drop``) to an environment variable that may
    set it instead (``agent-evals ci``)."""
    specs: list[tuple[str, Any, str]] = [
        ("max-drop", float, "Tolerated drop vs the baseline (0.05 = 5 points)."),
        ("alpha", float, "One-sided significance level (Holm across suites)."),
        ("min-pass-rate", float, "Absolute floor for every suite's pass rate."),
        ("max-error-rate", float, "Largest tolerated share of errored trials."),
        (
            "on-missing-baseline",
            ACTIONS,
            "pass | warn | fail without a baseline (first run, expired, no permission).",
        ),
        ("on-inconclusive", ACTIONS, "pass | warn | fail for a large drop that is not significant."),
        (
            "on-mismatch",
            click.Choice(["warn", "fail"]),
            "warn | fail when the runs are not alike (fingerprint).",
        ),
        (
            "on-removed-cases",
            click.Choice(["warn", "fail"]),
            "warn | fail when cases of the baseline are gone from this run.",
        ),
        (
            "on-redefined-cases",
            click.Choice(["warn", "fail"]),
            "warn | fail when cases changed their definition (input, expected, checks, scorers).",
        ),
        (
            "on-fewer-trials",
            click.Choice(["warn", "fail"]),
            "fail | warn when cases ran fewer trials than in the baseline.",
        ),
        (
            "test",
            click.Choice(["stratified", "per_case"]),
            "stratified (uses the trials; assumes they are independent draws) | per_case.",
        ),
        ("max-tokens-increase", str, "Tolerated relative rise of tokens per trial (0.2 = 20%), or off."),
        ("max-cost-increase", str, "Tolerated relative rise of cost per trial (0.2 = 20%), or off."),
        ("max-latency-increase", str, "Tolerated relative rise of trial latency (off unless given)."),
    ]

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for name, kind, text in reversed(specs):
            env = envvar(name) if envvar is not None else None
            func = click.option(f"--{name}", type=kind, help=text, envvar=env)(func)
        return func

    return decorate


def policy_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The policy flags shared by ``compare`` and ``report``: ``--policy FILE`` and the knobs."""
    func = knob_options()(func)
    return click.option(
        "--policy",
        "policy_file",
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        help="Policy file (YAML with a `gate:` block, or pyproject.toml); replaces the repo config.",
    )(func)


def build_policy(candidate: Document | RunSummary, policy_file: Path | None, flags: dict[str, Any]) -> Policy:
    """Resolve the policy for a candidate run (document or summary) from its sources (see ``gate.policy``)."""
    from agent_evals.gate.policy import discover_repo_config, resolve_policy

    repo_config = policy_file if policy_file is not None else discover_repo_config(Path.cwd())
    suites = (
        [s.header for s in candidate.suites]
        if not isinstance(candidate, dict)
        else candidate.get("suites", [])
    )
    blocks = {s["id"]: s.get("gate") for s in suites}
    return resolve_policy(repo_config=repo_config, suite_blocks=blocks, overrides=flags)


def render_report(comparison: Comparison, kind: str) -> str:
    """Render one report kind (markdown|md, junit, html, json); renderers are imported only when asked for."""
    if kind in ("markdown", "md"):
        from agent_evals.report.markdown import render_markdown

        return render_markdown(comparison, budget="summary")
    if kind == "junit":
        from agent_evals.report.junit import render_junit

        return render_junit(comparison)
    if kind == "html":
        from agent_evals.report.html import render_html

        return render_html(comparison)
    from agent_evals.report.verdict_json import render_json

    return render_json(comparison)


def write_text(path: Path, text: str, what: str) -> None:
    """Write a report file, creating its folder; an OS error is a UsageError naming the path."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", errors="replace")  # a stray surrogate never loses a report
    except OSError as exc:
        raise UsageError(f"cannot write the {what} to {path}: {exc.strerror or exc}") from exc


REPORT_NAMES = {
    "markdown": "Markdown report",
    "junit": "JUnit XML",
    "html": "HTML report",
    "json": "JSON verdict",
}


def write_reports(comparison: Comparison, outputs: dict[str, Path | None]) -> list[str]:
    """Render and write each requested report; one line per file written, naming it."""
    written = []
    for kind, path in outputs.items():
        if path is not None:
            write_text(path, render_report(comparison, kind), f"{kind} report")
            written.append(f"{REPORT_NAMES.get(kind, kind)} written to {path}")
    return written


def _baseline(path: Path) -> tuple[RunSummary | None, BaselineInfo]:
    from agent_evals.gate.model import BaselineInfo
    from agent_evals.record.read import read_summary

    if not path.exists():
        return None, BaselineInfo(
            source="none", path=str(path), reason_missing=f"baseline file {path} not found"
        )
    summary = read_summary(path)
    run = summary.run
    git, ci = run.get("git") or {}, run.get("ci") or {}
    info = BaselineInfo(
        source="file",
        path=str(path),
        run_id=ci.get("run_id"),
        sha=git.get("sha"),
        ref=git.get("ref"),
        date=run.get("started_at"),
    )
    return summary, info


def run_command(body: Callable[[], int]) -> None:
    """Run a command body, mapping library errors to one-line messages and fixed exit codes.

    The cyclic garbage collector stays paused for the whole command: the run records are large trees
    of acyclic objects, and every collection triggered between steps would rescan all of them.
    """
    from agent_evals.record.read import gc_paused

    try:
        with gc_paused():
            code = body()
    except AgentEvalsError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except MemoryError:
        click.echo("error: out of memory while reading the run records", err=True)
        sys.exit(EXIT_INTERNAL)
    sys.exit(code)


def end_command(code: int) -> int:
    """Finish a command holding large structures (run records, a comparison); return ``code``.

    When this process is the console script itself (not a caller running the command in-process, such
    as a test runner), the output is flushed and the process ends right here: freeing millions of
    objects one by one at exit takes most of a second on large records and serves no one. Every report
    file is closed by then; logging is shut down first.
    """
    ctx = click.get_current_context(silent=True)
    root = ctx.find_root().obj if ctx is not None else None
    if not (isinstance(root, dict) and root.get("owns_process")):
        return code
    import logging

    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def max_size_option(fn: Any) -> Any:
    """``--max-record-size MIB``: refuse bigger record files before reading them."""
    from agent_evals.record.read import MAX_RECORD_MIB

    return click.option(
        "--max-record-size",
        "max_record_mib",
        type=FiniteRange(min=0, min_open=True),
        default=MAX_RECORD_MIB,
        show_default=True,
        metavar="MIB",
        help="Refuse run records larger than this many MiB before reading them.",
    )(fn)


@click.command("compare", help=COMPARE_HELP, epilog=EXIT_CODES_HELP)
@click.argument("baseline", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("candidate", type=click.Path(dir_okay=False, path_type=Path))
@policy_options
@max_size_option
@click.option(
    "--markdown", type=click.Path(dir_okay=False, path_type=Path), help="Write the Markdown summary here."
)
@click.option("--junit", type=click.Path(dir_okay=False, path_type=Path), help="Write JUnit XML here.")
@click.option("--html", type=click.Path(dir_okay=False, path_type=Path), help="Write the HTML report here.")
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the JSON verdict here.",
)
@click.option(
    "--history",
    "history",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="An earlier baseline record of the same suites (repeatable): its trials join the baseline side "
    "of the test, so a case that never failed before and fails now weighs more. The candidate itself "
    "(same file, content or run), shard records, incomplete records and records sharing no suite with "
    "the candidate are refused (exit 2).",
)
def compare(
    baseline: Path,
    candidate: Path,
    policy_file: Path | None,
    history: tuple[Path, ...],
    markdown: Path | None,
    junit: Path | None,
    html: Path | None,
    json_path: Path | None,
    max_record_mib: float,
    **flags: Any,
) -> None:
    """Compare two run records and exit 0 (passed, warnings allowed), 1 (failed) or 2 (usage error)."""

    def body() -> int:
        from agent_evals.record.read import check_record_size

        check_record_size(candidate, max_record_mib)
        check_record_size(baseline, max_record_mib)
        from agent_evals.gate.compare import compare_documents
        from agent_evals.record.read import read_summary
        from agent_evals.report.terminal import render_terminal

        cand = read_summary(candidate)
        earlier = [(path, read_summary(path)) for path in history]
        from agent_evals.gate.history import check_history_files

        check_history_files(candidate, cand, earlier)
        base, info = _baseline(baseline)
        policy = build_policy(cand, policy_file, flags)
        # JUnit and HTML show every case; the other reports list only the cases that changed or errored
        every_case = junit is not None or html is not None
        comparison = compare_documents(
            base,
            cand,
            policy,
            baseline_info=info,
            case_detail="all" if every_case else "listed",
            history=[summary for _, summary in earlier],
        )
        written = write_reports(
            comparison, {"markdown": markdown, "junit": junit, "html": html, "json": json_path}
        )
        from agent_evals.report.colour import use_colour

        colour = use_colour(sys.stdout)
        click.echo(render_terminal(comparison, color=colour), color=colour)
        for line in written:
            click.echo(line)
        return end_command(comparison.exit_code)

    run_command(body)
