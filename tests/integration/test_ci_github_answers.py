"""`ci` and `publish` against GitHub answers that cannot be used (a redirect loop, a garbled or refused
baseline lookup, pages without end): no verdict (exit 3, status error), never a pass or a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
import test_cli_publish as publisher
from test_cli_ci import CASES, REPO, Harness, Result, _comments, h  # noqa: F401  # h: the fixture
from test_cli_publish import github  # noqa: F401  # the publisher's fixture

from servers.github_server import TOKEN, Fault, GitHubServer, _Raw

RUNS = f"/repos/{REPO}/actions/workflows/gate.yml/runs"


def _assert_no_verdict(harness: Harness, result: Result, *words: str) -> None:
    """Exit 3, status error, and the summary, the comment and the log say "no verdict" and why."""
    out = result.stdout + result.stderr
    assert result.code == 3, out
    assert "Traceback" not in out
    assert result.outputs["status"] == "error"
    [comment] = _comments(harness)
    for text in (comment["body"], result.summary):
        headline = text.splitlines()[1]
        assert "no verdict" in headline and "passed" not in headline, headline
    errors = "\n".join(line for line in result.stdout.splitlines() if line.startswith("::error::"))
    for word in words:
        assert word in errors, errors
    assert TOKEN not in out + result.summary + comment["body"]


def test_ci__baseline_listing_redirects_in_a_loop__no_verdict_exit_3_naming_the_endpoint(
    h: Harness,  # noqa: F811
) -> None:
    h.add_baseline_run(h.baseline_zip())
    loop = f"{h.github.api_url}{RUNS}"
    h.github.state.faults.append(Fault("GET", f"{RUNS}$", 302, headers={"Location": loop}, times=1000))
    result = h.run("--on-missing-baseline", "pass", fail=tuple(CASES[:8]))
    _assert_no_verdict(h, result, f"GET {RUNS}", "redirect loop")


def test_publish__pull_request_redirects_in_a_loop__error_status_exit_3_no_traceback(
    github: GitHubServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    pull = f"{github.api_url}/repos/{REPO}/pulls/5"
    github.state.faults.append(Fault("GET", "/pulls/5$", 302, headers={"Location": pull}, times=1000))
    result = publisher._publish(github, tmp_path, str(publisher._artifact(tmp_path)))
    assert result.returncode == 3, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert f"GET /repos/{REPO}/pulls/5 was redirected too many times" in result.stderr
    status = github.state.latest_status(publisher.HEAD, publisher.CONTEXT)
    assert status is not None and status["state"] == "error" and "no verdict" in status["description"]
    assert github.state.api_requests("POST", "/comments") == []


HTML = _Raw(b"<html><body><h1>502 Bad Gateway</h1></body></html>")


def _answers() -> dict[str, tuple[Fault, bool, str]]:
    """Fresh faults per test: (GitHub's answer while the baseline is looked up, whether the baseline is
    then unknown rather than missing, what the message says)."""
    return {
        "runs-html-200": (
            Fault("GET", f"{RUNS}$", 200, HTML, {"Content-Type": "text/html"}, times=10), True,
            f"GET {RUNS} answered HTTP 200 with a body that is not JSON (text/html)",
        ),
        "runs-wrong-shape": (
            Fault("GET", f"{RUNS}$", 200, {"total_count": 1, "workflow_runs": {"oops": 1}}, times=10), True,
            f"GET {RUNS} answered a page that is not the shape GitHub documents",
        ),
        "runs-401-expired-token": (
            Fault("GET", f"{RUNS}$", 401, {"message": "Bad credentials"}, times=10), True,
            f"GET {RUNS} failed with HTTP 401: Bad credentials",
        ),
        "compare-503": (Fault("GET", "/compare/", 503, times=10), True, "/compare/"),
        "zip-410-expired": (
            Fault("GET", "/zip$", 410, {"message": "Artifact has expired"}), False, "has expired (HTTP 410)",
        ),
        "workflow-404": (
            Fault("GET", f"{RUNS}$", 404, {"message": "Not Found"}), False, "set --baseline-workflow",
        ),
    }  # fmt: skip


@pytest.mark.parametrize("kind", sorted(_answers()))
def test_ci__github_answer_while_the_baseline_is_looked_up__missing_only_when_github_says_so(
    h: Harness,  # noqa: F811
    kind: str,
) -> None:
    fault, unknown, says = _answers()[kind]
    h.add_baseline_run(h.baseline_zip())
    h.github.state.faults.append(fault)
    result = h.run(fail=tuple(CASES[:8]))  # a real regression stands behind every answer
    if unknown:
        _assert_no_verdict(h, result, "GitHub could not be asked for the baseline", says)
        return
    # GitHub said the baseline is not there: on_missing_baseline (warn by default) decides, as documented
    assert result.code == 0, result.stdout + result.stderr
    assert result.outputs["status"] == "no-baseline"
    assert says in result.summary


@pytest.mark.parametrize("kind", sorted(_answers()))
def test_publish__github_answer_while_the_baseline_is_looked_up__missing_only_when_github_says_so(
    github: GitHubServer,  # noqa: F811
    tmp_path: Path,
    kind: str,
) -> None:
    fault, unknown, says = _answers()[kind]
    github.state.faults.append(fault)
    result = publisher._publish(github, tmp_path, str(publisher._artifact(tmp_path)))
    status = github.state.latest_status(publisher.HEAD, publisher.CONTEXT)
    assert status is not None
    if unknown:
        assert result.returncode == 3, result.stdout + result.stderr
        assert "GitHub could not be asked for the baseline" in result.stderr and says in result.stderr
        assert status["state"] == "error" and status["description"].startswith("no verdict: ")
        assert github.state.api_requests("POST", "/comments") == []
        return
    assert result.returncode == 0, result.stdout + result.stderr
    assert status["state"] == "success" and "no baseline" in status["description"]
    assert says in publisher._body(github)


def _endless_comment_pages(server: GitHubServer) -> Fault:
    """Every page of the pull request's comments links to a next page that is the same page again."""
    again = f'<{server.api_url}/repos/{REPO}/issues/5/comments?per_page=100&page=2>; rel="next"'
    return Fault("GET", "/issues/5/comments$", 200, [], {"Link": again}, times=10**6)


def test_ci__comment_pages_without_end__exit_3_within_the_deadline_no_comment_posted(
    h: Harness,  # noqa: F811
) -> None:
    h.add_baseline_run(h.baseline_zip())
    h.github.state.faults.append(_endless_comment_pages(h.github))
    result = h.run("--github-deadline-s", "10")
    assert result.code == 3, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert result.outputs["status"] == "error"
    assert "no verdict" in result.summary.splitlines()[1]
    assert (
        f"GET /repos/{REPO}/issues/5/comments: page 2 links as next to a page already read" in result.stdout
    )
    assert h.github.state.api_requests("POST", "/comments") == []


def test_publish__comment_pages_without_end__error_status_exit_3_no_comment_posted(
    github: GitHubServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    github.state.faults.append(_endless_comment_pages(github))
    result = publisher._publish(
        github, tmp_path, str(publisher._artifact(tmp_path)), "--github-deadline-s", "10"
    )
    assert result.returncode == 3, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert f"GET /repos/{REPO}/issues/5/comments: page 2 links" in result.stderr
    status = github.state.latest_status(publisher.HEAD, publisher.CONTEXT)
    assert (
        status is not None and status["state"] == "error" and status["description"].startswith("no verdict")
    )
    assert github.state.api_requests("POST", "/comments") == []
