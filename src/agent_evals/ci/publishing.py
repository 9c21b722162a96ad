"""One outcome, published once: `ci` writes the reports, the step outputs, the job summary, the comment."""

# The outcome (exit code, ``status``, headline) is decided before anything is written (ci/outcome.py);
# publishing can only turn its exit code to 3. A write that
# fails makes every later one say there is no verdict (exit 3), so the sticky comment never says "gate
# passed" beside a red job; a comment that cannot be written is added to the job summary and the log.

from __future__ import annotations

import dataclasses
import json
import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agent_evals.ci.child_run import make_dirs, writing
from agent_evals.ci.comment import no_verdict, write_comment
from agent_evals.ci.outputs import regression_annotations
from agent_evals.errors import EXIT_INTERNAL, GitHubError, OutputWriteError
from agent_evals.github.actions_io import Annotation, append_summary, render_annotations, write_outputs

if TYPE_CHECKING:
    from agent_evals.ci.options import CIOptions
    from agent_evals.ci.outcome import Outcome
    from agent_evals.gate.model import Comparison
    from agent_evals.github.client import GitHubClient
    from agent_evals.github.comments import CommentResult
    from agent_evals.github.settings import ActionsSettings

Emit = Callable[[str], None]


def write_step_outputs(settings: ActionsSettings, outputs: Mapping[str, str]) -> None:
    """Append ``outputs`` to ``GITHUB_OUTPUT`` (nothing outside Actions); an OutputWriteError names it."""
    step_output = settings.output
    if step_output:
        writing("the step outputs (GITHUB_OUTPUT)", step_output, lambda: write_outputs(step_output, outputs))


def publish(
    outcome: Outcome,
    outputs: dict[str, str],
    options: CIOptions,
    settings: ActionsSettings,
    client: GitHubClient | None,
    gate_id: str,
    emit: Emit,
    *,
    failed: list[OutputWriteError] | None = None,
    verdict: Path | None = None,
) -> tuple[int, CommentResult | None]:
    """Write the step ``outputs``, the job summary and the comment, in that order; returns the exit code
    and what happened to the comment (``comment-url`` is added to ``outputs``). ``failed``: writes that
    already failed (the reports). After a failed write the summary and the comment say "no verdict"; the
    first failure is raised at the end (exit 3), once everything else was written.

    A write that fails turns the exit code to 3 after the outcome was decided; what was already written
    is then brought to say the same (:func:`_settle`): the ``status`` output and verdict.json (``verdict``)
    say ``error``, and a job summary written before the comment failed is rewritten to say "no verdict"."""
    failures = list(failed or [])
    exit_code = outcome.exit_code
    if failures:
        outputs["status"] = _late_status(outcome)
    try:
        write_step_outputs(settings, outputs)
        outputs_written = True
    except OutputWriteError as exc:
        failures.append(exc)
        outputs_written = False
    summary = settings.step_summary
    summary_ok = bool(summary)
    summary_start = _size(summary)
    if summary:
        body = _no_verdict(outcome, outcome.job_summary, failures, "summary")
        try:
            writing("the job summary", summary, lambda: append_summary(summary, body))
        except OutputWriteError as exc:
            failures.append(exc)
            summary_ok = False
    comment: CommentResult | None = None
    comment_failed: str | None = None
    if outcome.comment:
        body = _no_verdict(outcome, outcome.comment_md, failures, "comment")
        gate_exit = EXIT_INTERNAL if failures else outcome.gate_exit
        comment, code = write_comment(options, settings, client, gate_id, body, gate_exit)
        if code:  # a comment that could not be written is an infrastructure failure, whatever the verdict
            exit_code = EXIT_INTERNAL
            comment_failed = (
                comment.notice if comment else None
            ) or "the pull request comment could not be written"
        elif comment is not None and comment.notice:
            _later(settings, summary if summary_ok else None, emit, "notice", comment.notice)
        if comment is not None and comment.url and outputs_written:
            outputs["comment-url"] = comment.url
            try:  # a later line of the same output replaces the earlier one
                write_step_outputs(settings, {"comment-url": comment.url})
            except OutputWriteError as exc:
                emit(f"warning: {exc}")
    if failures or comment_failed:
        why = str(failures[0]) if failures else str(comment_failed)
        redo = (
            (summary, summary_start) if summary and summary_ok and comment_failed and not failures else None
        )
        rewritten = _settle(outcome, outputs if outputs_written else None, settings, redo, why, emit)
        if comment_failed:
            _later(settings, summary if summary_ok and not rewritten else None, emit, "error", comment_failed)
        _tell_verdict(verdict, why, _late_status(outcome), emit)
    if failures:
        for extra in failures[1:]:
            emit(f"error: {extra}")
        raise failures[0]
    return exit_code, comment


def _late_status(outcome: Outcome) -> str:
    """The ``status`` once a write failed: ``error`` (no verdict, exit 3), unless the outcome was already
    exit 3 (incomplete, error), whose status says so already."""
    return outcome.status if outcome.exit_code == EXIT_INTERNAL else "error"


def turned_late(outcome: Outcome, why: str, what: str) -> Outcome:
    """``outcome`` once something it needed failed before it was published (``what``, in the no-verdict
    headline's words; ``why``, the error): exit 3, status ``error``, every report saying "no verdict"."""
    return dataclasses.replace(
        outcome,
        exit_code=EXIT_INTERNAL,
        status="error",
        decided_by="publishing",
        comment_md=no_verdict(outcome.comment_md, why, "comment", what=what),
        summary_md=no_verdict(outcome.summary_md, why, "summary", what=what),
    )


def _settle(
    outcome: Outcome,
    outputs: dict[str, str] | None,
    settings: ActionsSettings,
    summary_redo: tuple[str, int | None] | None,
    why: str,
    emit: Emit,
) -> bool:
    """After the exit code turned to 3 late: the ``status`` output (when written) says so, and a job summary
    written with the verdict before the comment failed (``summary_redo``: its path and where this step's
    part began) is rewritten from there, saying no verdict and ``why``. True when it was rewritten."""
    status = _late_status(outcome)
    if outputs is not None and outputs.get("status") != status:
        outputs["status"] = status
        try:  # a later line of the same output replaces the earlier one
            write_step_outputs(settings, {"status": status})
        except OutputWriteError as exc:
            emit(f"warning: the status output does not say {status}: {exc}")
    if summary_redo is None or outcome.exit_code == EXIT_INTERNAL or not outcome.verdict:
        return False
    path, start = summary_redo
    if start is None:
        return False
    what = "this job could not write the pull request comment"
    body = no_verdict(outcome.job_summary, why, "summary", what=what)
    try:
        with Path(path).open("r+b") as fh:
            fh.truncate(start)
        append_summary(path, body)
    except OSError as exc:
        emit(f"warning: cannot rewrite the job summary {path}: {exc.strerror or exc}")
        return False
    return True


def _later(
    settings: ActionsSettings, summary: str | None, emit: Emit, level: Literal["error", "notice"], text: str
) -> None:
    """Say ``text`` after the summary was written: in the log, and appended to ``summary`` (best effort)."""
    emit(
        Annotation(level, text).render()
        if settings.in_actions
        else f"{'error' if level == 'error' else 'note'}: {text}"
    )
    if summary:
        kind = "CAUTION" if level == "error" else "NOTE"
        try:
            append_summary(summary, f"\n> [!{kind}]\n> {' '.join(text.splitlines())}\n")
        except OSError as exc:
            emit(f"warning: cannot add to the job summary {summary}: {exc.strerror or exc}")


def _size(path: str | None) -> int | None:
    """The job summary file's size before this step appends to it (0 when there is none yet)."""
    if not path:
        return None
    try:
        return Path(path).stat().st_size if Path(path).is_file() else 0
    except OSError:
        return None


def _no_verdict(
    outcome: Outcome, markdown: str, failures: list[OutputWriteError], budget: Literal["comment", "summary"]
) -> str:
    """``markdown``, or after a failed write the same report saying there is no verdict, and why."""
    if not failures or not outcome.verdict:
        return markdown
    return no_verdict(markdown, str(failures[0]), budget, what=_what(failures[0]))


def _what(failure: OutputWriteError) -> str:
    """The no-verdict headline's reason for a failed write."""
    return "this job " + re.split(r" to |: ", str(failure), maxsplit=1)[0].replace("cannot", "could not", 1)


def _tell_verdict(path: Path | None, why: str, status: str, emit: Emit) -> None:
    """verdict.json says exit 3, ``status`` and why, once publishing failed (best effort: the log says it
    anyway)."""
    if path is None or not path.is_file():
        return
    from agent_evals.report.verdict_json import indented_json

    try:
        document = json.loads(path.read_text("utf-8"))
        document["exit_code"] = EXIT_INTERNAL
        document["status"] = status
        document["publish_error"] = why
        path.write_text(indented_json(document) + "\n", "utf-8")
    except (OSError, ValueError) as exc:
        emit(f"warning: verdict.json does not say exit 3: {exc}")


def write_reports(
    out_dir: Path,
    comparison: Comparison,
    comment_md: str,
    env: Mapping[str, str],
    *,
    exit_code: int,
    status: str,
) -> tuple[dict[str, str], OutputWriteError | None]:
    """report.md (the comment), report.html, verdict.json (with the job's ``exit_code`` and ``status``)
    and junit.xml side by side; their outputs, and the write that failed (the rest are still tried)."""
    from agent_evals.report.html import render_html
    from agent_evals.report.junit import render_junit
    from agent_evals.report.verdict_json import indented_json, render_json

    verdict = json.loads(render_json(comparison, env=env))
    verdict.update(exit_code=exit_code, status=status)
    files: dict[str, tuple[str, Callable[[], str]]] = {
        "report": ("report.md", lambda: comment_md),
        "report-html": ("report.html", lambda: render_html(comparison, env=env)),
        "verdict-json": ("verdict.json", lambda: indented_json(verdict) + "\n"),
        "junit-xml": ("junit.xml", lambda: render_junit(comparison, env=env)),
    }
    written: dict[str, str] = {}
    try:
        make_dirs(out_dir, "the report folder")
    except OutputWriteError as exc:
        return written, exc
    failure: OutputWriteError | None = None
    for output, (name, text_of) in files.items():
        path = out_dir / name
        text = text_of()
        try:
            writing(f"the report {name}", path, lambda: path.write_text(text, "utf-8", "replace"))  # noqa: B023
        except OutputWriteError as exc:
            failure = failure or exc
            continue
        written[output] = str(path)
    written["report-dir"] = str(out_dir)
    return written, failure


def say_in_log(
    outcome: Outcome,
    comparison: Comparison,
    settings: ActionsSettings,
    *,
    cwd: Path,
    env: Mapping[str, str],
    secret_env: Mapping[str, str],
    emit: Emit,
    written: Sequence[str] = (),
) -> None:
    """The report and the outcome's messages on stdout: in Actions the terminal report and annotations,
    elsewhere the terminal report (plain text: the Markdown's escapes are for GitHub, not a terminal)
    and ``error:``/``warning:``/``note:`` lines; then the ``written`` lines naming the files."""
    from agent_evals.report.terminal import render_terminal

    if not settings.in_actions:
        emit(render_terminal(comparison, env=secret_env).rstrip("\n"))
        said: list[tuple[str, str | None]] = [("error", outcome.died), ("error", outcome.no_verdict)]
        said += [("warning", w) for w in outcome.warnings] + [("note", n) for n in outcome.notices]
        for level, text in said:
            if text is not None:
                emit(f"{level}: {text}")
        for line in written:
            emit(line)
        return
    # The log shows untrusted text (case names, outputs): pause workflow commands around it so a
    # line starting with `::` cannot act as one. https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands#stopping-and-starting-workflow-commands
    pause = f"agent-evals-{uuid.uuid4().hex}"
    emit(f"::stop-commands::{pause}")
    emit(render_terminal(comparison, env=secret_env).rstrip("\n"))
    emit(f"::{pause}::")
    if outcome.died:
        emit(Annotation("error", outcome.died).render())
    for line in render_annotations(regression_annotations(comparison, cwd, env)):
        emit(line)
    if outcome.no_verdict:
        emit(Annotation("error", outcome.no_verdict).render())
    for warning in outcome.warnings:
        emit(Annotation("warning", warning).render())
    for notice in outcome.notices:
        emit(Annotation("notice", notice).render())
    for line in written:
        emit(line)


def written_lines(record: Path, reports: Mapping[str, str]) -> list[str]:
    """The lines naming the run record and the reports ``write_reports`` wrote (its outputs)."""
    names = [
        Path(reports[k]).name for k in ("report", "report-html", "verdict-json", "junit-xml") if k in reports
    ]
    lines = [f"Run record written to {record}"]
    if names and "report-dir" in reports:
        lines.append(f"Reports written to {reports['report-dir']}: {', '.join(names)}")
    return lines


def store_on_branch(
    options: CIOptions,
    settings: ActionsSettings,
    client: GitHubClient | None,
    gate_id: str,
    record_path: Path,
    emit: Emit,
) -> str | None:
    """Write the baseline to the data branch; why it failed (said on stdout too), None when it was stored."""
    from agent_evals.clock import iso_utc
    from agent_evals.github.branch_store import store_baseline

    if client is None or not settings.repository or not settings.sha:
        why = "--baseline-store branch needs GitHub Actions (GITHUB_REPOSITORY, GITHUB_SHA) and a token"
        emit(f"error: {why}")
        return why
    try:
        stored = store_baseline(
            client,
            settings.repository,
            branch=options.baseline_branch,
            gate_id=gate_id,
            record=record_path.read_bytes(),
            sha=settings.sha,
            date=iso_utc(),
            run_id=settings.run_id,
            keep=options.keep_baselines,
        )
    except GitHubError as exc:
        emit(f"error: the baseline was not stored: {exc}")
        return f"the baseline was not stored: {exc}"
    emit(f"baseline stored on branch {options.baseline_branch!r} as {stored.path}")
    return None
