"""Baseline lookup against the loopback GitHub server: run choice, artifacts and every missing reason."""

from __future__ import annotations

import pytest

from agent_evals.github import baseline
from agent_evals.github.baseline import BaselineResult, choose_run, find_baseline
from agent_evals.github.client import GitHubClient
from servers.github_server import Fault, GitHubServer, _Raw, make_zip, record_document, record_zip

REPO = "octo/demo"
BASE, HEAD, MERGE = "b" * 40, "h" * 40, "m" * 40


def _lookup(client: GitHubClient, workflow: str = "baseline.yml") -> BaselineResult:
    return find_baseline(
        client,
        repo=REPO,
        workflow=workflow,
        branch="main",
        artifact_name="agent-evals-baseline",
        base_sha=BASE,
        head_sha=HEAD,
    )


def test_find_baseline__run_at_merge_base__preferred_over_newer_runs(
    github: GitHubServer, client: GitHubClient
) -> None:
    state = github.state
    state.merge_bases[f"{BASE}...{HEAD}"] = (MERGE, "2026-01-02T00:00:00Z")
    at_base = state.add_run(
        head_sha=MERGE, created_at="2026-01-02T00:05:00Z", artifact=record_zip(record_document((True,)))
    )
    state.add_run(head_sha="n" * 40, created_at="2026-01-05T00:00:00Z", artifact=record_zip())
    result = _lookup(client)
    assert result.record is not None and result.source == "artifact"
    assert (result.run_id, result.sha) == (at_base, MERGE)
    assert result.to_info().selection == "the run at the merge base mmmmmmm"


def test_find_baseline__no_run_at_merge_base__newest_older_run(
    github: GitHubServer, client: GitHubClient
) -> None:
    state = github.state
    state.merge_bases[f"{BASE}...{HEAD}"] = (MERGE, "2026-01-03T00:00:00Z")
    state.add_run(head_sha="1" * 40, created_at="2026-01-01T00:00:00Z", artifact=record_zip())
    older = state.add_run(head_sha="2" * 40, created_at="2026-01-02T00:00:00Z", artifact=record_zip())
    state.add_run(head_sha="3" * 40, created_at="2026-01-04T00:00:00Z", artifact=record_zip())
    result = _lookup(client)
    assert result.run_id == older
    assert result.to_info().selection == (
        "the newest successful run older than the merge base mmmmmmm, since no run exists at the merge base"
    )


def test_find_baseline__merge_base_run_on_a_later_page__found(
    github: GitHubServer, client: GitHubClient
) -> None:
    state = github.state
    state.merge_bases[f"{BASE}...{HEAD}"] = (MERGE, "2026-01-01T00:00:00Z")
    target = state.add_run(head_sha=MERGE, created_at="2026-01-01T00:00:00Z", artifact=record_zip())
    for day in range(150):
        state.add_run(head_sha=f"{day:040d}", created_at=f"2026-02-01T00:{day // 60:02d}:{day % 60:02d}Z")
    assert _lookup(client).run_id == target
    assert len(state.api_requests("GET", "/workflows/")) == 2


def test_find_baseline__no_runs__says_first_merge_creates_it(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.runs["baseline.yml"] = []
    result = _lookup(client)
    assert result.record is None
    assert "no successful push or workflow_dispatch run" in (result.reason_missing or "")


def test_find_baseline__workflow_unknown__names_option(github: GitHubServer, client: GitHubClient) -> None:
    result = _lookup(client, workflow="nope.yml")
    assert "--baseline-workflow" in (result.reason_missing or "")


@pytest.mark.parametrize("how", ["flag", "http-410"])
def test_find_baseline__expired_artifact__reason_says_expired(
    github: GitHubServer, client: GitHubClient, how: str
) -> None:
    run_id = github.state.add_run(
        head_sha=MERGE, created_at="2026-01-01T00:00:00Z", artifact=record_zip(), expired=how == "flag"
    )
    if how == "http-410":
        github.state.faults.append(Fault("GET", "/zip$", 410, {"message": "Artifact has expired"}))
    result = _lookup(client)
    assert result.record is None
    assert "expired" in (result.reason_missing or "")
    if how == "flag":
        assert result.run_id == run_id


def test_find_baseline__token_without_actions_read__names_permission(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.add_run(head_sha=MERGE, created_at="2026-01-01T00:00:00Z", artifact=record_zip())
    github.state.faults.append(
        Fault("GET", "/runs$", 403, {"message": "Resource not accessible by integration"})
    )
    result = _lookup(client)
    assert "actions: read" in (result.reason_missing or "")


def test_find_baseline__artifact_name_absent__reason_names_it(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.add_run(
        head_sha=MERGE, created_at="2026-01-01T00:00:00Z", artifact=record_zip(), artifact_name="other"
    )
    assert "no artifact named 'agent-evals-baseline'" in (_lookup(client).reason_missing or "")


def test_find_baseline__malicious_zip__rejected_as_missing_with_reason(
    github: GitHubServer, client: GitHubClient
) -> None:
    bad = make_zip({"run.json": "{}", "../../evil": "x"})
    github.state.add_run(head_sha=MERGE, created_at="2026-01-01T00:00:00Z", artifact=bad)
    result = _lookup(client)
    assert result.record is None
    assert "rejected the baseline artifact" in (result.reason_missing or "")
    assert result.unreadable == result.reason_missing  # found but unusable: not a first run


def test_find_baseline__zip_download__token_never_reaches_storage_host(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.add_run(head_sha=MERGE, created_at="2026-01-01T00:00:00Z", artifact=record_zip())
    assert _lookup(client).record is not None
    assert github.state.zip_seen and all(s.authorization is None for s in github.state.zip_seen)


def test_find_baseline__to_info__carries_provenance(github: GitHubServer, client: GitHubClient) -> None:
    run_id = github.state.add_run(head_sha=MERGE, created_at="2026-01-01T00:00:00Z", artifact=record_zip())
    info = _lookup(client).to_info()
    assert (info.source, info.run_id, info.sha, info.ref) == ("artifact", str(run_id), MERGE, "main")


def test_choose_run__nothing_known__newest_run() -> None:
    runs = [{"id": 1, "created_at": "2026-01-01"}, {"id": 2, "created_at": "2026-01-03"}]
    chosen, how = choose_run(runs, None, None)
    assert chosen is not None and chosen["id"] == 2
    assert "newest" in how


@pytest.mark.parametrize(
    ("run", "counts"),
    [
        ({"event": "push"}, True),
        ({"event": "workflow_dispatch"}, True),
        ({"event": "pull_request", "head_repo": "someone/demo"}, False),  # a fork's PR from its `main`
        ({"event": "push", "head_repo": "someone/demo"}, False),
        ({"event": "schedule"}, False),
        ({"event": "push", "branch": "feature"}, False),
    ],
    ids=["push", "dispatch", "fork-pr-from-main", "other-head-repo", "schedule", "other-branch"],
)
def test_find_baseline__each_run_rechecked__only_own_push_or_dispatch_on_the_branch(
    github: GitHubServer, client: GitHubClient, run: dict[str, str], counts: bool
) -> None:
    github.state.add_run(head_sha="1" * 40, created_at="2026-01-01T00:00:00Z", artifact=record_zip())
    newest = github.state.add_run(
        head_sha="2" * 40, created_at="2026-01-09T00:00:00Z", artifact=record_zip(), **run
    )
    github.state.ignore_run_filters = True  # the lookup re-checks each run instead of trusting them
    result = _lookup(client)
    assert (result.run_id == newest) is counts


def _lookup_gate(client: GitHubClient, gate_id: str) -> BaselineResult:
    return find_baseline(
        client, repo=REPO, workflow="baseline.yml", branch="main",
        artifact_name="agent-evals-baseline", gate_id=gate_id,
    )  # fmt: skip


def test_find_baseline__gate_named_artifact__preferred_over_the_bare_name(
    github: GitHubServer, client: GitHubClient
) -> None:
    run_id = github.state.add_run(head_sha="1" * 40, created_at="2026-01-01T00:00:00Z")
    github.state.add_artifact(run_id, record_zip(record_document((True,))), name="agent-evals-baseline")
    github.state.add_artifact(run_id, record_zip(), name="agent-evals-baseline-fast")
    github.state.add_artifact(run_id, record_zip(record_document((False,))), name="agent-evals-baseline-slow")
    result = _lookup_gate(client, "fast")
    assert result.record is not None and len(result.record.suites[0].cases) == 3
    assert "older upload" not in (result.note or "")


def test_find_baseline__only_the_bare_name__used_and_the_note_says_so(
    github: GitHubServer, client: GitHubClient
) -> None:
    github.state.add_run(head_sha="1" * 40, created_at="2026-01-01T00:00:00Z", artifact=record_zip())
    result = _lookup_gate(client, "fast")
    assert result.record is not None
    assert "bare 'agent-evals-baseline' of an older upload" in (result.note or "")


def test_find_baseline__history_limit__reads_older_runs_newest_first_never_newer_ones(
    github: GitHubServer, client: GitHubClient
) -> None:
    state = github.state
    state.merge_bases[f"{BASE}...{HEAD}"] = (MERGE, "2026-01-05T00:00:00Z")
    state.add_run(
        head_sha="n" * 40, created_at="2026-01-09T00:00:00Z", artifact=record_zip(record_document((False,)))
    )
    state.add_run(
        head_sha=MERGE, created_at="2026-01-05T00:00:00Z", artifact=record_zip(record_document((True,)))
    )
    for day, outcomes in ((4, (True, False)), (3, (True, True, True)), (2, (False, False, False, False))):
        state.add_run(head_sha=f"{day}" * 40, created_at=f"2026-01-0{day}T00:00:00Z", artifact=record_zip(record_document(outcomes)))  # fmt: skip
    state.add_run(head_sha="1" * 40, created_at="2026-01-01T00:00:00Z", artifact=None)
    result = find_baseline(
        client, repo=REPO, workflow="baseline.yml", branch="main", artifact_name="agent-evals-baseline",
        base_sha=BASE, head_sha=HEAD, history_limit=2,
    )  # fmt: skip
    assert result.sha == MERGE
    assert [len(h.suites[0].cases) for h in result.history] == [2, 3]  # days 4 and 3; never day 9
    assert "2 earlier baseline(s) read as the gate's history" in (result.note or "")


def test_find_baseline__history__an_unreadable_earlier_run_is_left_out_not_an_error(
    github: GitHubServer, client: GitHubClient
) -> None:
    state = github.state
    state.merge_bases[f"{BASE}...{HEAD}"] = (MERGE, "2026-01-05T00:00:00Z")
    state.add_run(head_sha=MERGE, created_at="2026-01-05T00:00:00Z", artifact=record_zip())
    state.add_run(head_sha="4" * 40, created_at="2026-01-04T00:00:00Z", artifact=b"not a zip")
    state.add_run(head_sha="3" * 40, created_at="2026-01-03T00:00:00Z", artifact=record_zip(), expired=True)
    state.add_run(
        head_sha="2" * 40, created_at="2026-01-02T00:00:00Z", artifact=record_zip(record_document((True,)))
    )
    result = find_baseline(
        client, repo=REPO, workflow="baseline.yml", branch="main", artifact_name="agent-evals-baseline",
        base_sha=BASE, head_sha=HEAD, history_limit=3,
    )  # fmt: skip
    assert result.record is not None and result.reason_missing is None
    assert [len(h.suites[0].cases) for h in result.history] == [1]


def test_find_baseline__no_history_asked__stops_listing_at_the_merge_base_run(
    github: GitHubServer, client: GitHubClient
) -> None:
    state = github.state
    state.merge_bases[f"{BASE}...{HEAD}"] = (MERGE, "2026-01-05T00:00:00Z")
    state.add_run(head_sha=MERGE, created_at="2026-01-05T00:00:00Z", artifact=record_zip())
    state.add_run(head_sha="4" * 40, created_at="2026-01-04T00:00:00Z", artifact=record_zip())
    result = _lookup(client)
    assert result.history == ()
    assert len(state.api_requests("GET", "/artifacts/")) == 1  # only the chosen run's zip


RUNS = f"/repos/{REPO}/actions/workflows/baseline.yml/runs"
COMPARE = f"/repos/{REPO}/compare/{BASE}...{HEAD}"
HTML = _Raw(b"<html><body><h1>502 Bad Gateway</h1></body></html>")


def _answers() -> dict[str, tuple[Fault, str, str]]:
    """Fresh faults per test: (GitHub's answer, missing / unknown / found, what the reason says)."""
    return {
        # GitHub said there is nothing to have: the baseline is missing, on_missing_baseline decides
        "workflow-404": (Fault("GET", f"{RUNS}$", 404, {"message": "Not Found"}), "missing", "set --baseline-workflow"),
        "runs-403-permission": (
            Fault("GET", f"{RUNS}$", 403, {"message": "Resource not accessible by integration"}),
            "missing", "add `permissions: actions: read`",
        ),
        "zip-410-expired": (Fault("GET", "/zip$", 410, {"message": "Artifact has expired"}), "missing", "(HTTP 410)"),
        # GitHub said nothing usable: whether a baseline exists is unknown (no verdict, never a pass)
        "runs-html-200": (
            Fault("GET", f"{RUNS}$", 200, HTML, {"Content-Type": "text/html"}, times=10), "unknown",
            f"GET {RUNS} answered HTTP 200 with a body that is not JSON (text/html)",
        ),
        "runs-wrong-shape": (
            Fault("GET", f"{RUNS}$", 200, {"total_count": 1, "workflow_runs": {"oops": 1}}, times=10), "unknown",
            f"GET {RUNS} answered a page that is not the shape GitHub documents (expected a list under 'workflow_runs')",
        ),
        "runs-401-expired-token": (
            Fault("GET", f"{RUNS}$", 401, {"message": "Bad credentials"}, times=10), "unknown",
            f"GET {RUNS} failed with HTTP 401: Bad credentials; the token is missing or invalid",
        ),
        "runs-422": (
            Fault("GET", f"{RUNS}$", 422, {"message": "Validation Failed"}), "unknown",
            f"GET {RUNS} failed with HTTP 422: Validation Failed",
        ),
        "artifacts-404": (
            Fault("GET", "/artifacts$", 404, {"message": "Not Found"}), "unknown", "/artifacts failed with HTTP 404",
        ),
        "compare-503": (Fault("GET", "/compare/", 503, times=10), "unknown", f"GET {COMPARE} failed with HTTP 503"),
        "compare-401": (
            Fault("GET", "/compare/", 401, {"message": "Bad credentials"}, times=10), "unknown",
            f"GET {COMPARE} failed with HTTP 401",
        ),
        "compare-without-merge-base": (
            Fault("GET", "/compare/", 200, {"status": "ahead"}), "unknown", f"GET {COMPARE} answered without a merge base",
        ),
        # no merge base to see: the newest run older than nothing known is taken, as before
        "compare-404-no-common-ancestor": (
            Fault("GET", "/compare/", 404, {"message": f"No common ancestor between {BASE} and {HEAD}."}),
            "found", "",
        ),
    }  # fmt: skip


@pytest.mark.parametrize("kind", sorted(_answers()))
def test_find_baseline__each_github_answer__missing_only_when_github_says_so(
    github: GitHubServer, client: GitHubClient, kind: str
) -> None:
    fault, outcome, says = _answers()[kind]
    github.state.merge_bases[f"{BASE}...{HEAD}"] = (MERGE, "2026-01-02T00:00:00Z")
    github.state.add_run(head_sha=MERGE, created_at="2026-01-02T00:00:00Z", artifact=record_zip())
    github.state.faults.append(fault)
    result = _lookup(client)
    if outcome == "found":
        assert result.record is not None and result.reason_missing is None
        assert (
            result.to_info().selection
            == "the newest successful run of the base branch (the merge base is unknown)"
        )
        return
    assert result.record is None and says in (result.reason_missing or ""), result.reason_missing
    assert result.unreadable is None
    if outcome == "missing":
        assert result.unavailable is None
    else:
        assert result.unavailable == result.reason_missing
        assert (result.unavailable or "").startswith("GitHub could not be asked for the baseline: ")


def test_find_baseline__artifact_over_the_size_cap__unreadable_not_unknown(
    github: GitHubServer, client: GitHubClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(baseline, "MAX_ARTIFACT_BYTES", 64)
    run_id = github.state.add_run(head_sha=MERGE, created_at="2026-01-02T00:00:00Z", artifact=record_zip())
    result = _lookup(client)
    assert result.record is None and result.unavailable is None and result.run_id == run_id
    assert result.unreadable == result.reason_missing and "exceeds 64 bytes" in (result.unreadable or "")


@pytest.mark.parametrize(
    ("fault", "kept"),
    [
        (Fault("GET", "/zip$", 410, {"message": "Artifact has expired"}), True),
        (Fault("GET", "/zip$", 401, {"message": "Bad credentials"}), False),
        (Fault("GET", "/zip$", 400, {"message": "Bad request"}), False),
    ],
    ids=["expired-left-out", "401-unknown", "400-unknown"],
)
def test_find_baseline__earlier_baseline_github_will_not_give__left_out_only_when_it_says_so(
    github: GitHubServer, client: GitHubClient, fault: Fault, kept: bool
) -> None:
    state = github.state
    state.merge_bases[f"{BASE}...{HEAD}"] = (MERGE, "2026-01-05T00:00:00Z")
    state.add_run(head_sha=MERGE, created_at="2026-01-05T00:00:00Z", artifact=record_zip())
    older = state.add_run(head_sha="4" * 40, created_at="2026-01-04T00:00:00Z", artifact=record_zip())
    [artifact] = state.artifacts[older]
    fault.path = f"/artifacts/{artifact['id']}/zip$"
    state.faults.append(fault)
    result = find_baseline(
        client, repo=REPO, workflow="baseline.yml", branch="main", artifact_name="agent-evals-baseline",
        base_sha=BASE, head_sha=HEAD, history_limit=1,
    )  # fmt: skip
    assert (result.record is not None, result.unavailable is None) == (kept, kept), result.reason_missing
    assert result.history == ()
