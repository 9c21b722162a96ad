"""`agent-evals publish` judges the pull request GitHub ties to the gate run, never the one its record names."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli_publish import CONTEXT, FORK, HEAD, _artifact, _publish, _record, github  # noqa: F401  # github: the fixture

from servers.github_server import GitHubServer

OTHER = 6  # another pull request from the same fork branch (same head commit), into a branch with no baseline


def _other_into_old(server: GitHubServer, *, state: str = "open", merged: bool = False) -> None:
    server.state.add_pull(OTHER, head_sha=HEAD, head_repo=FORK)
    pull = server.state.pulls[OTHER]
    pull["base"].update(ref="old", sha="c" * 40)
    pull["state"] = state
    pull["merged_at"] = "2026-01-03T00:00:00Z" if merged else None


def _error_status(server: GitHubServer) -> str:
    status = server.state.latest_status(HEAD, CONTEXT)
    assert status is not None, "no commit status was set"
    assert status["state"] == "error"
    return str(status["description"])


@pytest.mark.parametrize("state", ["open", "closed"])
def test_publish__record_names_another_pull_request_than_the_events__refused_error_status(
    github: GitHubServer,  # noqa: F811
    tmp_path: Path,
    state: str,
) -> None:
    # #5 regresses 10 of 20 cases against main; its record claims #6, whose base has no baseline
    _other_into_old(github, state=state)
    result = _publish(github, tmp_path, str(_artifact(tmp_path, _record(10, pr=OTHER))), pull_requests=(5,))
    assert result.returncode == 2, result.stdout + result.stderr
    message = (
        "the run record names pull request #6, but the gate run's commit is the head of #5: "
        "refusing to judge a record made for another pull request; re-run the gate"
    )
    assert f"error: {message}" in result.stderr
    assert _error_status(github).startswith("no verdict: the run record names pull request #6")
    [comment] = github.state.comments[5]
    assert "no verdict" in comment["body"] and "a record made for another pull request" in comment["body"]
    assert OTHER not in github.state.comments
    assert github.state.api_requests("GET", "/workflows/") == []  # no baseline was looked for


def test_publish__fork_record_names_another_open_pull_request_at_its_commit__refused_naming_both(
    github: GitHubServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    # a fork's event lists no pull request: GitHub's pull requests at the commit are #5 and #6, both open
    _other_into_old(github)
    result = _publish(github, tmp_path, str(_artifact(tmp_path, _record(10, pr=OTHER))))
    assert result.returncode == 2, result.stdout + result.stderr
    assert (
        "error: open pull requests #5 into main, #6 into old all have eeeeeeeeeeee as their head, and one "
        "commit status cannot stand for each; close all but one (or push a commit of its own to each) "
        "and re-run the gate"
    ) in result.stderr
    assert _error_status(github).startswith("no verdict: open pull requests #5 into main, #6 into old")
    assert github.state.api_requests("POST", "/comments") == []
    assert github.state.api_requests("GET", f"/commits/{HEAD}/pulls")


@pytest.mark.parametrize(("claimed", "exit_code"), [(5, 0), (OTHER, 2)], ids=["names-5", "names-merged-6"])
def test_publish__fork_merged_pull_request_at_the_same_commit__not_a_candidate(
    github: GitHubServer,  # noqa: F811
    tmp_path: Path,
    claimed: int,
    exit_code: int,
) -> None:
    # GitHub lists merged pull requests of the commit too; only the open one is the gate run's
    _other_into_old(github, state="closed", merged=True)
    result = _publish(github, tmp_path, str(_artifact(tmp_path, _record(10, pr=claimed))))
    assert result.returncode == exit_code, result.stdout + result.stderr
    status = github.state.latest_status(HEAD, CONTEXT)
    assert status is not None
    if claimed == 5:
        assert status["state"] == "failure"
        assert "gate failed" in github.state.comments[5][0]["body"].split("\n")[1]
    else:
        assert status["state"] == "error" and "names pull request #6" in status["description"]
    assert OTHER not in github.state.comments


def test_publish__pr_flag_names_a_closed_pull_request__refused_nothing_posted(
    github: GitHubServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    _other_into_old(github, state="closed")
    result = _publish(github, tmp_path, str(_artifact(tmp_path, _record(10, pr=OTHER))), "--pr", str(OTHER))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "error: pull request #6 is closed; refusing to publish for a closed pull request" in result.stderr
    assert github.state.api_requests("POST") == []


def test_publish__events_pull_request_closed_since__refused_nothing_posted(
    github: GitHubServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    github.state.pulls[5]["state"] = "closed"
    result = _publish(github, tmp_path, str(_artifact(tmp_path)), pull_requests=(5,))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "error: pull request #5 is closed; refusing to publish for a closed pull request" in result.stderr
    assert github.state.api_requests("POST") == []


def test_publish__record_naming_no_pull_request__judged_for_githubs(
    github: GitHubServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    record = _record(10)
    del record["run"]["ci"]["pr"]
    result = _publish(github, tmp_path, str(_artifact(tmp_path, record)))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "gate gate-1234abcd on #5: failed (judged by the publisher)" in result.stdout
    status = github.state.latest_status(HEAD, CONTEXT)
    assert status is not None and status["state"] == "failure"
