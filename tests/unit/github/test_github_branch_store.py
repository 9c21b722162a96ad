"""Baselines on a data branch: written per gate, the last N kept, read back at the merge base."""

from __future__ import annotations

import json

import pytest

from agent_evals.errors import GitHubError
from agent_evals.github.branch_store import find_branch_baseline, store_baseline
from agent_evals.github.client import GitHubClient
from servers.github_server import Fault, GitHubServer, _Raw, record_document

REPO = "octo/demo"
BRANCH = "agent-evals-data"


def _store(
    client: GitHubClient, sha: str, day: int, outcomes: tuple[bool, ...] = (True,), keep: int = 10
) -> None:
    store_baseline(
        client, REPO, branch=BRANCH, gate_id="g", record=json.dumps(record_document(outcomes)).encode(),
        sha=sha, date=f"2026-01-{day:02d}T00:00:00Z", run_id=str(100 + day), keep=keep,
    )  # fmt: skip


def _index(github: GitHubServer) -> list[dict[str, str]]:
    return list(json.loads(github.state.branches[BRANCH]["g/index.json"]))


def test_store_baseline__last_n_kept_newest_first__older_files_deleted(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.branches[BRANCH] = {}
    for day in range(1, 6):
        _store(client, f"{day}" * 40, day, keep=3)
    assert [e["sha"][0] for e in _index(github)] == ["5", "4", "3"]
    assert sorted(github.state.branches[BRANCH]) == ["g/" + f"{d}" * 40 + ".json" for d in (3, 4, 5)] + [
        "g/index.json"
    ]


def test_store_baseline__same_commit_twice__replaced_not_duplicated(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.branches[BRANCH] = {}
    _store(client, "1" * 40, 1, (True,))
    _store(client, "1" * 40, 2, (False,))
    assert len(_index(github)) == 1
    assert json.loads(github.state.branches[BRANCH]["g/" + "1" * 40 + ".json"])["suites"][0]["cases"][0][
        "trials"
    ] == [{"passed": False}]


def test_store_baseline__no_data_branch__error_says_how_to_create_it(
    github: GitHubServer, client: GitHubClient
) -> None:
    with pytest.raises(GitHubError, match="git switch --orphan agent-evals-data"):
        _store(client, "1" * 40, 1)


def test_find_branch_baseline__merge_base_entry_preferred_and_read_raw(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.branches[BRANCH] = {}
    _store(client, "m" * 40, 2, (True, True))
    _store(client, "n" * 40, 5, (False,))
    github.state.merge_bases[f"{'b' * 40}...{'h' * 40}"] = ("m" * 40, "2026-01-02T00:00:00Z")
    result = find_branch_baseline(
        client, REPO, branch=BRANCH, gate_id="g", base_sha="b" * 40, head_sha="h" * 40
    )
    assert result.record is not None and result.sha == "m" * 40 and result.run_id == 102
    assert "kept on branch 'agent-evals-data'" in (result.note or "")
    raw = [s for s in github.state.api_requests("GET", "/contents/g/m") if s.status == 200]
    assert raw and raw[0].headers["accept"] == "application/vnd.github.raw+json"


@pytest.mark.parametrize(
    ("branches", "reason"),
    [({}, "no baseline of gate 'g'"), ({BRANCH: {}}, "no baseline of gate 'g'")],
    ids=["no-branch", "empty-branch"],
)
def test_find_branch_baseline__nothing_there__missing_with_reason(
    github: GitHubServer, client: GitHubClient, branches: dict[str, dict[str, bytes]], reason: str
) -> None:
    github.state.branches.update(branches)
    result = find_branch_baseline(client, REPO, branch=BRANCH, gate_id="g", base_sha=None, head_sha=None)
    assert result.record is None and reason in (result.reason_missing or "")


def test_find_branch_baseline__history_limit__older_kept_baselines_newest_first_never_newer(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.branches[BRANCH] = {}
    for day, outcomes in (
        (1, (True,) * 4),
        (2, (True,) * 3),
        (3, (True,) * 2),
        (4, (True,)),
        (6, (False,) * 5),
    ):
        _store(client, f"{day}" * 40, day, outcomes)
    github.state.merge_bases[f"{'b' * 40}...{'h' * 40}"] = ("4" * 40, "2026-01-04T00:00:00Z")
    result = find_branch_baseline(
        client, REPO, branch=BRANCH, gate_id="g", base_sha="b" * 40, head_sha="h" * 40, history_limit=2
    )
    assert result.sha == "4" * 40
    assert [len(h.suites[0].cases) for h in result.history] == [2, 3]  # days 3 and 2; never day 6
    assert "2 earlier baseline(s)" in (result.note or "")


def test_find_branch_baseline__history__a_broken_kept_file_is_left_out(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.branches[BRANCH] = {}
    _store(client, "1" * 40, 1, (True, True))
    _store(client, "2" * 40, 2, (True,))
    _store(client, "3" * 40, 3, (True,))
    github.state.branches[BRANCH]["g/" + "2" * 40 + ".json"] = b"{not json"
    result = find_branch_baseline(
        client, REPO, branch=BRANCH, gate_id="g", base_sha=None, head_sha=None, history_limit=5
    )
    assert result.record is not None and result.sha == "3" * 40
    assert [len(h.suites[0].cases) for h in result.history] == [2]


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"{not json", "is not JSON"),
        (b'{"schema": "agent-evals/run@1", "run": {"git": 5}}', "rejected the baseline"),
    ],
    ids=["not-json", "schema-invalid"],
)
def test_find_branch_baseline__stored_record_unreadable__missing_and_marked_unreadable(
    github: GitHubServer, client: GitHubClient, content: bytes, reason: str
) -> None:
    github.state.branches[BRANCH] = {}
    _store(client, "m" * 40, 2)
    github.state.branches[BRANCH]["g/" + "m" * 40 + ".json"] = content
    result = find_branch_baseline(client, REPO, branch=BRANCH, gate_id="g", base_sha=None, head_sha=None)
    assert result.record is None and result.source == "none"
    assert reason in (result.unreadable or "") and result.reason_missing == result.unreadable
    assert result.to_info().unreadable == result.unreadable


def test_find_branch_baseline__no_baseline_yet__not_marked_unreadable(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.branches[BRANCH] = {}
    result = find_branch_baseline(client, REPO, branch=BRANCH, gate_id="g", base_sha=None, head_sha=None)
    assert result.reason_missing and result.unreadable is None


@pytest.mark.parametrize(
    ("fault", "unknown", "says"),
    [
        (Fault("GET", "/contents/g/index.json$", 401, {"message": "Bad credentials"}), True, "HTTP 401"),
        (Fault("GET", "/contents/g/index.json$", 200, _Raw(b"<html>"), {"Content-Type": "text/html"}), True, "not JSON"),
        (Fault("GET", "/contents/g/m+.json$", 401, {"message": "Bad credentials"}), True, "HTTP 401"),
        (Fault("GET", "/compare/", 401, {"message": "Bad credentials"}), True, "/compare/"),
        (Fault("GET", "/contents/g/index.json$", 403, {"message": "Resource not accessible by integration"}), False, "contents: read"),
        (Fault("GET", "/contents/g/m+.json$", 404, {"message": "Not Found"}), False, "HTTP 404"),
    ],
    ids=["index-401", "index-html-200", "record-401", "compare-401", "index-403-permission", "record-404"],
)  # fmt: skip
def test_find_branch_baseline__each_github_answer__missing_only_when_github_says_so(
    github: GitHubServer, client: GitHubClient, fault: Fault, unknown: bool, says: str
) -> None:
    github.state.branches[BRANCH] = {}
    _store(client, "m" * 40, 2)
    github.state.merge_bases[f"{'b' * 40}...{'h' * 40}"] = ("m" * 40, "2026-01-02T00:00:00Z")
    github.state.faults.append(fault)
    result = find_branch_baseline(
        client, REPO, branch=BRANCH, gate_id="g", base_sha="b" * 40, head_sha="h" * 40
    )
    assert result.record is None and says in (result.reason_missing or ""), result.reason_missing
    assert (result.unavailable == result.reason_missing) if unknown else result.unavailable is None
