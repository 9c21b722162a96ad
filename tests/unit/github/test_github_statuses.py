"""The gate's commit status: the loopback GitHub validates it as GitHub does, and the client sends a valid one."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.errors import GitHubError, GitHubPermissionError
from agent_evals.github.client import GitHubClient
from agent_evals.github.statuses import (
    MAX_DESCRIPTION,
    CommitStatus,
    fit_description,
    set_status,
    status_context,
)
from servers.github_server import GitHubServer

REPO = "octo/demo"
SHA = "e" * 40


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"context": "agent-evals/g"}, "state"),
        ({"state": "passed", "context": "agent-evals/g"}, "state"),
        ({"state": "success", "description": "x" * 141}, "description"),
        ({"state": "success", "context": 7}, "context"),
    ],
    ids=["state-missing", "state-not-in-the-list", "description-over-140", "context-not-a-string"],
)
def test_fake_status__invalid_body__422_validation_failed_nothing_stored(
    github: GitHubServer, client: GitHubClient, body: dict[str, Any], field: str
) -> None:
    with pytest.raises(GitHubError) as caught:
        client.request("POST", f"/repos/{REPO}/statuses/{SHA}", json_body=body)
    assert caught.value.status == 422
    [seen] = github.state.seen
    assert seen.response["message"] == "Validation Failed"
    assert [e["field"] for e in seen.response["errors"]] == [field]
    assert github.state.statuses == {}


def test_fake_status__unknown_commit__422(github: GitHubServer, client: GitHubClient) -> None:
    with pytest.raises(GitHubError) as caught:
        client.request("POST", f"/repos/{REPO}/statuses/main", json_body={"state": "success"})
    assert caught.value.status == 422 and "No commit found" in str(caught.value)


def test_set_status__read_only_token__403_names_statuses_write(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.read_only = True
    with pytest.raises(GitHubPermissionError, match="statuses: write"):
        set_status(client, REPO, SHA, CommitStatus("success", "ok"), context="agent-evals/g", target_url=None)
    assert github.state.statuses == {}


def test_set_status__newest_status_of_the_context_is_what_branch_protection_reads(
    github: GitHubServer, client: GitHubClient
) -> None:
    url = "https://github.example/octo/demo/actions/runs/77"
    set_status(
        client, REPO, SHA, CommitStatus("failure", "1 regression"), context="agent-evals/g", target_url=url
    )
    set_status(
        client, REPO, SHA, CommitStatus("success", "accepted"), context="agent-evals/g", target_url=url
    )
    latest = github.state.latest_status(SHA, status_context("g"))
    assert latest is not None
    assert (latest["state"], latest["description"], latest["target_url"]) == ("success", "accepted", url)


def test_set_status__unsafe_target_url__left_out(github: GitHubServer, client: GitHubClient) -> None:
    set_status(
        client,
        REPO,
        SHA,
        CommitStatus("error", "x"),
        context="agent-evals/g",
        target_url="javascript:alert(1)",
    )
    [seen] = github.state.api_requests("POST")
    assert "target_url" not in seen.body


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1 regression in 1 suite · gate failed", "1 regression in 1 suite · gate failed"),
        ("line one\nline\ttwo\x1b[31m", "line one line two [31m"),
    ],
)
def test_fit_description__control_characters_and_breaks__one_plain_line(text: str, expected: str) -> None:
    assert fit_description(text) == expected


def test_fit_description__long_text__shortened_under_githubs_limit() -> None:
    fitted = fit_description("word " * 100)
    assert len(fitted) <= MAX_DESCRIPTION < 140 and fitted.endswith("…")


def test_set_status__one_5xx__tried_once_more_and_set(github: GitHubServer, client: GitHubClient) -> None:
    from servers.github_server import Fault

    github.state.faults.append(Fault("POST", "/statuses/", 502))
    set_status(
        client, REPO, SHA, CommitStatus("failure", "1 regression"), context="agent-evals/g", target_url=None
    )
    latest = github.state.latest_status(SHA, "agent-evals/g")
    assert latest is not None and latest["state"] == "failure"


def test_set_status__5xx_twice__raises_never_silent(github: GitHubServer, client: GitHubClient) -> None:
    from servers.github_server import Fault

    github.state.faults.append(Fault("POST", "/statuses/", 503, times=2))
    with pytest.raises(GitHubError):
        set_status(client, REPO, SHA, CommitStatus("failure", "x"), context="agent-evals/g", target_url=None)
