"""Every GitHub operation has a total deadline: a host that stalls, trickles or asks for a long wait ends
the baseline lookup within it, as an unavailable baseline naming the host and what timed out."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import pytest
import requests

from agent_evals.github.baseline import BaselineResult, find_baseline
from agent_evals.github.branch_store import find_branch_baseline
from agent_evals.github.client import GitHubClient
from agent_evals.github.deadline import Deadline, GitHubDeadlineError, earliest
from servers.github_server import TOKEN, Fault, GitHubServer, Slow, record_zip

REPO = "octo/demo"
DEADLINE_S = 2.0
SLACK_S = 1.5


@dataclass
class Row:
    """A slow GitHub and what the lookup must say about it."""

    slow: list[Slow] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    host: str = "api"
    """Which host the message names: ``api`` or ``zip``."""
    says: str = ""
    """What timed out, as the message names it."""


ROWS = {
    "api-call-stalls": Row(
        slow=[Slow(r"/actions/workflows/[^/]+/runs$", stall=True)],
        says="the API call GET /repos/octo/demo/actions/workflows/baseline.yml/runs",
    ),
    "api-body-trickles": Row(
        slow=[Slow(r"/actions/runs/\d+/artifacts$", chunk=1, every_s=0.4)],
        says="/artifacts",
    ),
    "artifact-zip-trickles": Row(
        slow=[Slow(r"/blob/", host="zip", chunk=1, every_s=0.4)],
        host="zip",
        says="the baseline artifact download",
    ),
    "redirect-target-stalls": Row(
        slow=[Slow(r"/blob/", host="zip", stall=True)],
        host="zip",
        says="the baseline artifact download",
    ),
    "retry-after-beyond-the-deadline": Row(
        faults=[Fault("GET", r"/artifacts$", 429, {"message": "slow down"}, {"retry-after": "10"})],
        says="a wait of 10 s is longer than what is left",
    ),
}


@pytest.fixture
def real_client(github: GitHubServer) -> Iterator[GitHubClient]:
    """A client that really sleeps and whose own operations are unbounded: only the lookup's deadline acts."""
    with requests.Session() as session:
        yield GitHubClient(session, api_url=github.api_url, token=TOKEN, timeout=30.0, sleep=time.sleep)


def _timed(lookup: Callable[[], BaselineResult]) -> tuple[BaselineResult, float]:
    started = time.monotonic()
    result = lookup()
    return result, time.monotonic() - started


@pytest.mark.parametrize("kind", sorted(ROWS))
def test_find_baseline__slow_github__unavailable_within_the_deadline_naming_host_and_operation(
    github: GitHubServer, real_client: GitHubClient, kind: str
) -> None:
    row = ROWS[kind]
    github.state.add_run(head_sha="a" * 40, created_at="2026-01-01T00:00:00Z", artifact=record_zip())
    github.state.slow += row.slow
    github.state.faults += row.faults
    result, elapsed = _timed(
        lambda: find_baseline(
            real_client,
            repo=REPO,
            workflow="baseline.yml",
            branch="main",
            artifact_name="agent-evals-baseline",
            deadline_s=DEADLINE_S,
        )
    )
    assert elapsed < DEADLINE_S + SLACK_S, elapsed
    assert result.record is None and result.unavailable, result
    why = str(result.unavailable)
    host = urlsplit(github.zip_url if row.host == "zip" else github.api_url).netloc
    assert f"from {host} within 2 s" in why and row.says in why, why


def test_find_branch_baseline__contents_api_stalls__unavailable_within_the_deadline(
    github: GitHubServer, real_client: GitHubClient
) -> None:
    github.state.branches["agent-evals-data"] = {}
    github.state.slow.append(Slow(r"/contents/", stall=True))
    result, elapsed = _timed(
        lambda: find_branch_baseline(
            real_client,
            REPO,
            branch="agent-evals-data",
            gate_id="g",
            base_sha=None,
            head_sha=None,
            deadline_s=DEADLINE_S,
        )
    )
    assert elapsed < DEADLINE_S + SLACK_S, elapsed
    assert "GitHub did not finish the API call GET" in str(result.unavailable)


@pytest.mark.parametrize(
    ("slow", "fault"),
    [
        (Slow(r"/repos/octo/demo$", stall=True), None),
        (Slow(r"/repos/octo/demo$", chunk=1, every_s=0.4), None),
        (None, Fault("GET", r"/repos/octo/demo$", 503, times=10)),
    ],
    ids=["stall", "trickle", "retries-and-backoff"],
)
def test_request__client_deadline__one_call_ends_within_it(
    github: GitHubServer, slow: Slow | None, fault: Fault | None
) -> None:
    github.state.slow += [slow] if slow else []
    github.state.faults += [fault] if fault else []
    with requests.Session() as session:
        client = GitHubClient(
            session, api_url=github.api_url, token=TOKEN, sleep=time.sleep, deadline_s=DEADLINE_S,
            backoff_s=0.5, max_retries=10,
        )  # fmt: skip
        started = time.monotonic()
        with pytest.raises(
            GitHubDeadlineError, match="GitHub did not finish the API call GET /repos/octo/demo"
        ):
            client.get_json(f"/repos/{REPO}")
    assert time.monotonic() - started < DEADLINE_S + SLACK_S


def test_request__healthy_host_under_a_deadline__answers_as_before(
    github: GitHubServer,
) -> None:
    with requests.Session() as session:
        client = GitHubClient(session, api_url=github.api_url, token=TOKEN, deadline_s=DEADLINE_S)
        assert client.get_json(f"/repos/{REPO}")["default_branch"] == "main"
        github.state.comments[7] = [{"id": i, "body": f"c{i}"} for i in range(150)]
        assert len(list(client.paginate(f"/repos/{REPO}/issues/7/comments"))) == 150


LOOKUP = Deadline(at=10.0, total_s=60.0, scope="the baseline lookup")
CALL = Deadline(at=20.0, total_s=60.0, scope="the call")


@pytest.mark.parametrize(
    ("deadlines", "expected"),
    [((), None), ((None,), None), ((CALL, None, LOOKUP), LOOKUP), ((LOOKUP, CALL), LOOKUP), ((CALL,), CALL)],
    ids=["none", "only-none", "earlier-last", "earlier-first", "one"],
)
def test_earliest__deadlines__the_first_to_end(
    deadlines: tuple[Deadline | None, ...], expected: Deadline | None
) -> None:
    assert earliest(*deadlines) is expected


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://api.github.com/repos/o/r", "api.github.com"),
        ("http://127.0.0.1:81/blob/1?sig=x", "127.0.0.1:81"),
    ],
    ids=["api", "storage-host"],
)
def test_deadline_error__any_url__names_host_operation_bound_and_the_flag(url: str, host: str) -> None:
    error = LOOKUP.error("the baseline artifact download", url, "no answer")
    assert str(error).startswith(
        f"GitHub did not finish the baseline artifact download from {host} within 60 s"
    )
    assert "--github-deadline-s" in str(error) and "sig=" not in str(error)
    assert isinstance(error, GitHubDeadlineError) and LOOKUP.left(4.0) == 6.0
