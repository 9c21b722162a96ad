"""The sticky pull request comment of `agent-evals ci`: when it is written, and its link to the full report."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from agent_evals.errors import EXIT_INTERNAL, GitHubError

if TYPE_CHECKING:
    from agent_evals.ci.options import CIOptions
    from agent_evals.github.client import GitHubClient
    from agent_evals.github.comments import CommentResult
    from agent_evals.github.settings import ActionsSettings


def link_artifacts(markdown: str, run_url: str | None, gate_id: str) -> str:
    """The comment with a closing line that links the run's report artifact, when it still fits."""
    from agent_evals.report.markdown import fits

    if not run_url:
        return markdown
    line = (
        f"\n<sub>Full report (HTML, JSON, JUnit): the `agent-evals-report-{gate_id}` artifact of "
        f"[this workflow run]({run_url}#artifacts).</sub>\n"
    )
    linked = markdown.rstrip("\n") + "\n" + line
    return linked if fits(linked, "comment") else markdown


def no_verdict(
    markdown: str,
    why: str,
    budget: Literal["comment", "summary"],
    *,
    what: str = "GitHub gave no usable answer for the baseline",
) -> str:
    """The report with its verdict line replaced: ``what`` happened (by default GitHub gave no usable
    answer for the baseline), so there is no verdict (exit 3); the rest (the candidate's results) stays
    when it still fits."""
    from agent_evals.report.escape import escape_untrusted
    from agent_evals.report.markdown import fits

    marker, _verdict, rest = [*markdown.split("\n", 2), "", ""][:3]
    head = (
        f"{marker}\n### ⛔ agent-evals: no verdict: {what} "
        "(an infrastructure error, exit 3, not a pass); re-run the job\n\n"
        f"> [!CAUTION]\n> {escape_untrusted(why, 1_000, line_break=' ')}\n"
    )
    return head + rest if fits(head + rest, budget) else head


def write_comment(
    options: CIOptions,
    settings: ActionsSettings,
    client: GitHubClient | None,
    gate_id: str,
    body: str,
    gate_exit: int,
) -> tuple[CommentResult | None, int]:
    """Post or update the sticky comment (``options.comment`` decides whether to create it); returns
    what happened and 3 when the write failed (an infrastructure failure, whatever the verdict)."""
    from agent_evals.github.comments import CommentResult, upsert_comment

    if client is None or settings.pr_number is None or not settings.repository:
        return None, 0
    if not settings.token:
        return CommentResult("forbidden", notice="No GitHub token: the report is in the job summary only."), 0
    create = options.comment == "always" or gate_exit != 0
    head, live = settings.event.head_sha, live_head(client, settings.repository, settings.pr_number)
    if head and live and live != head:  # a slow or re-run job of an older commit: its verdict is not the PR's
        return CommentResult(
            "skipped",
            notice=f"Pull request #{settings.pr_number} has moved on to {live[:12]} since this run's commit "
            f"{head[:12]}: the sticky comment is left to the run of that commit (this run's report is in "
            "the job summary).",
        ), 0
    try:
        return upsert_comment(
            client, settings.repository, settings.pr_number, gate_id, body, create=create
        ), 0
    except GitHubError as exc:
        return CommentResult(
            "skipped", notice=f"Could not write the pull request comment: {exc}"
        ), EXIT_INTERNAL


def live_head(client: GitHubClient, repo: str, pr: int) -> str | None:
    """The pull request's head commit now (``GET /repos/{repo}/pulls/{pr}``), None when it cannot be read."""
    try:
        body = client.get_json(f"/repos/{repo}/pulls/{pr}", permission="pull-requests: read")
    except GitHubError:
        return None  # unknown: the comment is written as before
    head = body.get("head") if isinstance(body, dict) else None
    sha = head.get("sha") if isinstance(head, dict) else None
    return sha if isinstance(sha, str) and sha else None
