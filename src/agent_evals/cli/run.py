"""``agent-evals run PATH...``: run eval files and YAML benchmarks, print a summary, write the record."""

from __future__ import annotations

import contextlib
import gc
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from agent_evals.cli.numbers import FiniteRange
from agent_evals.cli.progress import ProgressLine
from agent_evals.errors import EXIT_INTERNAL, EXIT_USAGE, AgentEvalsError

if TYPE_CHECKING:
    from agent_evals.adapters.cache.store import ResponseCache
    from agent_evals.gate.policy import Layer
    from agent_evals.record.summary import RunSummary
    from agent_evals.run.builder import RunBuilder
    from agent_evals.run.shard import Slicer

RUN_EXIT_CODES = (
    "Exit codes: 0 the run finished (whatever its pass rate); 1 more trials errored than the policy's "
    "max_error_rate allows, or --fail-under was given and the pass rate is below it; 2 usage error (bad "
    "flag or path, an eval file or agent that fails to import, a bad benchmark YAML); 3 internal error, "
    "or --budget-usd was spent before every trial ran (the record is incomplete); 130 interrupted with Ctrl-C, 143 terminated (SIGTERM): the run ends within 5 s whatever its trials "
    "are doing, and the results so far are still written, marked incomplete."
)


EXIT_GRACE_S = 1.0
"""After an interrupted run's record is written, how long the interpreter may take to exit before
the process ends itself: a thread of the user's own (or a scorer's ``asyncio.to_thread``) stuck in a
call that never returns would otherwise be joined at exit forever."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C: the results so far are kept, marked incomplete (exit 143)."""


def _on_signal(signum: int, _frame: object) -> None:
    """SIGINT or SIGTERM: note it (retry waits wake, worker threads finish no more trials), then
    stop the main thread where it is, as Ctrl-C does."""
    from agent_evals.core.signals import note_signal

    note_signal(signum)
    raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt


def _exit_interrupted(code: int) -> NoReturn:
    """Exit ``code`` (130/143) now that the record is written: stdout and stderr are flushed, and a
    daemon thread ends the process after :data:`EXIT_GRACE_S` should the interpreter's exit wait on a
    thread that cannot be stopped (it is abandoned, not joined)."""
    from agent_evals.core.hard_exit import leave

    _end_if_abandoned(code)

    def end() -> None:
        time.sleep(EXIT_GRACE_S)
        leave(code)

    threading.Thread(target=end, name="agent-evals-exit", daemon=True).start()
    sys.exit(code)


def _end_if_abandoned(code: int) -> None:
    """Flush stdout and stderr; then, when the run left a task that ignored its cancellation
    (``core.run_sync``), end the process now with ``code``: the interpreter's teardown would finalize
    that task and could run its code on forever."""
    from agent_evals.core.hard_exit import leave
    from agent_evals.core.run_sync import abandoned

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    if abandoned():
        leave(code)


@click.command("run", epilog=RUN_EXIT_CODES)
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--dataset", "datasets", multiple=True, help="Run only evals of this dataset (repeatable).")
@click.option("--label", "labels", multiple=True, help="Run only evals carrying this label (repeatable).")
@click.option(
    "--filter",
    "case_filter",
    metavar="GLOB",
    help="Run only case ids matching this glob (* and ?; brackets are literal); without a wildcard, a substring.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    help="Trials in flight at once (evals default to 1; benchmarks to their file's setting).",
)
@click.option(
    "--timeout", type=FiniteRange(min=0, min_open=True), help="Seconds per trial; overrides the files."
)
@click.option("--trials", type=click.IntRange(min=1), help="Trials per case; overrides the files.")
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=str),
    metavar="RUN.json",
    help="Write the run record here [default: a new file under .agent-evals/runs/].",
)
@click.option(
    "--agent", metavar="MODULE:ATTR", help="Agent for YAML benchmarks (overrides the file's agent)."
)
@click.option(
    "--fail-under",
    type=FiniteRange(0.0, 1.0),
    metavar="RATE",
    help="Exit 1 when the pass rate is below RATE (0..1).",
)
@click.option(
    "--shard",
    "shard_text",
    metavar="INDEX/COUNT",
    help="Run only shard INDEX of COUNT (1/4 .. 4/4), a deterministic balanced slice; merge the shard "
    "records with `agent-evals merge`.",
)
@click.option(
    "--retry-errors",
    type=click.IntRange(min=0),
    default=0,
    metavar="N",
    help="Retry a trial up to N times when it errored with an infrastructure error (HTTP 429 or 5xx, an "
    "SDK's rate-limit, timeout or connection error), waiting as Retry-After says, else 1, 2, 4 s (at most "
    "30 s); earlier attempts are kept in the trial's `attempts`. Our --timeout and failed assertions are "
    "never retried. [default: 0]",
)
@click.option(
    "--cache",
    "cache_mode",
    type=click.Choice(["record", "replay", "off"]),
    default="off",
    show_default=True,
    help="Response cache of the HTTP calls trials make: record (call live, store each answer per request and "
    "trial index), replay (answer only from the cache; a miss errors that trial, never a live call) or off. "
    "Covers httpx/httpx2 (OpenAI, Anthropic SDKs), the standard library's http.client (urllib.request, "
    "requests, urllib3) and LangChain's LLM cache; NOT covered, so live even under replay: aiohttp, "
    "pycurl, gRPC, raw sockets, calls from threads that do not carry the trial's context, and calls "
    "outside a trial (a judge scorer, setup()).",
)
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=str),
    default=".agent-evals/cache",
    show_default=True,
    help="Folder of the response cache (keep it between CI runs with actions/cache).",
)
@click.option(
    "--trace",
    type=click.Choice(["otel", "off"]),
    default="off",
    show_default=True,
    help="otel: run each trial under an OpenTelemetry trace of its own and fill what the agent did not return "
    "from its GenAI spans (trajectory, usage, models); needs pip install 'agent-evals[otel]' (exit 2 without).",
)
@click.option("--record-inputs", is_flag=True, hidden=True, help="Record each suite's inputs (`ci` asks).")
@click.option(
    "--skip-file",
    "skip_files",
    multiple=True,
    hidden=True,
    type=click.Path(path_type=Path),
    help="Leave out this eval file or benchmark (`ci --reuse-unchanged` reuses its results).",
)
@click.option(
    "--budget-usd",
    type=FiniteRange(min=0, min_open=True),
    envvar="AGENT_EVALS_BUDGET_USD",
    help="Spending limit in US dollars: no new trial starts once the spend (every attempt, "
    "retries included; replayed cache answers are free) reaches it; the record is then incomplete (budget exhausted, exit 3).",
)
@click.option("--quiet", "-q", is_flag=True, help="Print only the closing totals line.")
@click.option("--verbose", "-v", is_flag=True, help="Also print tracebacks of errored cases.")
def run(
    paths: tuple[str, ...],
    datasets: tuple[str, ...],
    labels: tuple[str, ...],
    case_filter: str | None,
    concurrency: int | None,
    timeout: float | None,
    trials: int | None,
    output: str | None,
    agent: str | None,
    fail_under: float | None,
    shard_text: str | None,
    retry_errors: int,
    cache_mode: str,
    cache_dir: str,
    trace: str,
    record_inputs: bool,
    skip_files: tuple[Path, ...],
    budget_usd: float | None,
    quiet: bool,
    verbose: bool,
) -> None:
    """Run eval files (@eval functions) and YAML benchmarks, then summarise.

    PATH is an eval file, a benchmark YAML or a directory (searched for eval_*.py, *_eval.py,
    evals.py and benchmark YAML). Without PATH, benchmarks/ and evals/ are used. Without -o, the
    record goes to a new file under .agent-evals/runs/, and its path is printed.
    """
    from agent_evals.report.colour import use_colour
    from agent_evals.run.session import RunBuilder

    try:
        slicer = _slicer(shard_text)
        cache = _open_cache(cache_mode, cache_dir)
        repo_gate = _repo_gate(Path.cwd())
    except AgentEvalsError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    given = output is not None
    if not given:  # a record of its own under .agent-evals/runs/ (docs/cli.md)
        from agent_evals.run.default_record import default_output

        output = default_output(Path.cwd(), say=None if quiet else lambda note: click.echo(note, err=True))
    # A run allocates many small long-lived objects; frequent full collections find nothing to free.
    gc.freeze()
    gc.set_threshold(50_000, 50, 50)

    # Each case reaches the record file (output + ".partial" until the end) when it finishes.
    builder = RunBuilder(output=output)
    if record_inputs:
        from agent_evals.run.inputs import Tracker

        builder.tracker = Tracker()
        builder.tracker.start()  # before the eval files and agents are imported
    progress = None
    if not quiet and sys.stderr.isatty():
        progress = ProgressLine(sys.stderr, tally=builder.tally, color=use_colour(sys.stderr))
    from agent_evals.core.hard_exit import exits_refused

    # the user code's os._exit in this process is its trial's error, not an exit 0 without a record
    with exits_refused():
        interrupted = _execute(
            paths,
            builder,
            cache,
            progress,
            output,
            agent=agent,
            trials=trials,
            concurrency=concurrency,
            timeout_s=timeout,
            case_filter=case_filter,
            datasets=datasets,
            labels=labels,
            shard=slicer,
            retry_errors=retry_errors,
            skip_files={f.resolve() for f in skip_files},
            budget_usd=budget_usd,
            trace=trace,
        )
        if progress:
            progress.clear()
        _print_digest(builder, output, complete=not interrupted, quiet=quiet, verbose=verbose, given=given)
        if interrupted:
            click.echo("Interrupted: the results so far were kept (marked incomplete).", err=True)
            _exit_interrupted(interrupted)
        if cache is not None and cache.mode == "replay":
            _warn_unreplayed(cache, builder.digest.replayed_nothing)
        code = _finished_exit_code(builder, fail_under, repo_gate)
        _end_if_abandoned(code)
        if code:
            sys.exit(code)


def _slicer(shard_text: str | None) -> Slicer | None:
    """The ``--shard`` option's slicer (its module loads only when a shard is asked for)."""
    if shard_text is None:
        return None
    from agent_evals.run.shard import Shard, Slicer

    return Slicer(Shard.parse(shard_text))


def _execute(
    paths: tuple[str, ...],
    builder: RunBuilder,
    cache: ResponseCache | None,
    progress: ProgressLine | None,
    output: str | None,
    **options: Any,
) -> int:
    """Run everything into ``builder`` and write its record; returns the exit code of an interrupted
    run (130 Ctrl-C, 143 SIGTERM), else 0. A failure exits here, its partial record handled by
    :func:`_failed`. ``options``: the keyword arguments of ``run.session.execute``."""
    from agent_evals.cli.streams import reopen_streams
    from agent_evals.core.signals import forget_signal, signal_received
    from agent_evals.run.session import execute

    interrupted = 0
    forget_signal()  # a run earlier in this process (a test, a caller of the command) is over
    previous = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    for signum in previous:  # Actions cancels with SIGINT, then SIGTERM
        signal.signal(signum, _on_signal)
    try:
        try:
            with cache.activate() if cache is not None else contextlib.nullcontext():
                execute(paths, builder, progress=progress, **options)
        except KeyboardInterrupt as exc:
            for signum in (signal.SIGINT, signal.SIGTERM):  # the partial record gets written whole
                signal.signal(signum, signal.SIG_IGN)
            noted = signal_received()  # the signal's own code: 130 SIGINT, 143 SIGTERM
            interrupted = 128 + noted if noted is not None else 143 if isinstance(exc, Terminated) else 130
        builder.finish(complete=not interrupted)
        builder.discard_scratch()  # without --output the record went to a temporary file
    except AgentEvalsError as exc:
        _failed(builder, progress, f"error: {exc}", exc.exit_code)
    except OSError as exc:
        _failed(builder, progress, f"error: cannot write the run record to {output}: {exc}", EXIT_USAGE)
    except (Exception, SystemExit, GeneratorExit):  # a bug, or a fault that escaped its trial: never exit 0
        message = f"internal error (please report it):\n{traceback.format_exc()}"
        _failed(builder, progress, message, EXIT_INTERNAL)
    finally:
        reopen_streams()  # an eval that closed sys.stdout must not take the summary with it
        if not interrupted:  # an interrupted run ignores further signals until it has exited
            for signum, handler in previous.items():
                if handler is not None:  # None: set outside Python, cannot be put back
                    signal.signal(signum, handler)
    return interrupted


def _print_digest(
    builder: RunBuilder, output: str | None, *, complete: bool, quiet: bool, verbose: bool, given: bool
) -> None:
    """The run's summary on stdout (its closing totals line alone with ``quiet``), and where the record went."""
    from agent_evals.report.colour import use_colour
    from agent_evals.report.terminal_run import render_digest

    colour = use_colour(sys.stdout)
    summary = render_digest(
        builder.digest, builder.record_suites, complete=complete, verbose=verbose, color=colour
    )
    click.echo(summary.splitlines()[-1] if quiet else summary.rstrip("\n"), color=colour)
    if output and not quiet:
        how = "" if given else " (the default without -o)"
        click.echo(f"Run record written to {output}{how}")


def _warn_unreplayed(cache: ResponseCache, silent: int) -> None:
    """After ``--cache replay``: the model calls that went out live, and the trials that replayed none."""
    if cache.outside:
        click.echo(
            f"warning: --cache replay: {len(cache.outside)} model call(s) made outside any trial (a "
            f"scorer's judge, an agent's setup) went out live, uncached; the first: {cache.outside[0]}",
            err=True,
        )
    if silent:
        click.echo(
            f"warning: --cache replay: {silent} trial(s) replayed no model call; calls made without the "
            "cache hooks (httpx, http.client, LangChain's cache), e.g. aiohttp, are not cached",
            err=True,
        )


def _repo_gate(cwd: Path) -> Layer | None:
    """The repository's gate policy, read once before any eval file or agent is imported: a bad one
    fails the run before it starts (exit 2), and nothing the run's own code writes can change it."""
    from agent_evals.files.repo_config import may_hold_config

    if not may_hold_config(cwd):  # the gate's policy module need not load
        return None
    from agent_evals.gate.policy import Layer, discover_repo_config, read_config_block

    path = discover_repo_config(cwd)
    return None if path is None else Layer(source=str(path), block=read_config_block(path))


def _finished_exit_code(builder: RunBuilder, fail_under: float | None, repo_gate: Layer | None) -> int:
    """A finished run's exit code, each problem said on stderr: 3 for a spent budget or a failed agent
    setup, 1 for the gate's failures (error budget, ``--fail-under``), else 0."""
    if builder.budget is not None and builder.budget.exhausted:
        click.echo(
            f"{builder.budget.describe()}. The record is incomplete (exit 3): the gate never passes it.",
            err=True,
        )
        return EXIT_INTERNAL
    closing = builder.budget.closing() if builder.budget is not None else None
    if closing is not None:  # a budget that could not count every trial must not look satisfied
        click.echo(closing, err=True)
    for failure in builder.setup_failures:
        click.echo(f"error: agent setup failed in {failure}; its cases are recorded as errored", err=True)
    if builder.setup_failures:
        return EXIT_INTERNAL
    from agent_evals.report.width import wrap

    try:
        failures = gate_failures(builder.summary(), fail_under, repo_gate)
    except AgentEvalsError as exc:  # e.g. a benchmark's gate: block: said, never a traceback
        click.echo(f"error: {exc}", err=True)
        return exc.exit_code
    for message in failures:
        click.echo("\n".join(wrap(message, hanging="  ")), err=True)
    return 1 if failures else 0


def _failed(builder: RunBuilder, progress: ProgressLine | None, message: str, code: int) -> NoReturn:
    """Exit ``code`` with ``message`` after a failed run: its partial record stays only when it holds a
    finished case (an empty one is nobody's result), and a temporary one goes."""
    if progress:
        progress.clear()
    with contextlib.suppress(Exception):  # the error above is the one to report, and the exit code
        builder.abandon()
    click.echo(message, err=True)
    sys.exit(code)


def _open_cache(mode: str, folder: str) -> ResponseCache | None:
    if mode == "off":
        return None
    from agent_evals.adapters.cache.store import open_cache

    return open_cache(mode, folder)


def gate_failures(summary: RunSummary, fail_under: float | None, repo_gate: Layer | None) -> list[str]:
    """What makes a finished run exit 1: the policy's error budget (as the gate applies it), --fail-under.

    ``summary`` is the written record as the gate reads it (``RunBuilder.summary``); ``repo_gate`` the
    repository's policy as read before the run (:func:`_repo_gate`). The pass rate is the gate's:
    macro over scored cases, errored trials left out (the budget counts them).
    """
    if fail_under is None and not summary.errored_trials:
        # a run alone fails the gate only by its error budget, which needs an errored trial
        # (tests/unit/gate/test_error_budget.py pins it): the gate need not load
        return []
    from agent_evals.gate.compare import single_run
    from agent_evals.gate.policy import resolve_policy
    from agent_evals.report.headline import overall_rate

    policy = resolve_policy(
        repo_config=repo_gate,
        suite_blocks={s.header["id"]: s.header.get("gate") for s in summary.suites},
        overrides={},
    )
    comparison = single_run(summary, policy, case_detail="none")  # verdicts only: no per-case diffs
    failures = [
        f"error budget exceeded (max_error_rate): {r.message}"
        for r in comparison.reasons
        if r.kind == "error-budget" and r.blocking
    ]
    if fail_under is not None:
        rate = overall_rate(comparison, "candidate")
        if rate is None or rate < fail_under:
            shown = "none" if rate is None else f"{rate:.3f}"
            failures.append(f"Pass rate {shown} is below --fail-under {fail_under:g}")
    return failures
