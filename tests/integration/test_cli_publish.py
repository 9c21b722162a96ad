"""`agent-evals publish`: the fork-safe publisher judges the fork's run record itself and never posts its Markdown."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from servers.github_server import TOKEN, Fault, GitHubServer, record_zip

CLI = str(Path(sys.executable).parent / "agent-evals")
REPO = "octo/demo"
FORK = "someone/demo"
HEAD, BASE, MERGE = "e" * 40, "b" * 40, "d" * 40
GATE = "gate-1234abcd"
MARKER = f"<!-- agent-evals:gate:{GATE} -->"
CONTEXT = f"agent-evals/{GATE}"
GATE_RUN_URL = f"https://github.example/{REPO}/actions/runs/77"
FORGED = f"{MARKER}\n### ✅ gate passed\n@everyone ![x](https://evil.example/beacon.png)\n"
N = 20


def _record(
    failing: int,
    *,
    gate: dict[str, Any] | None = None,
    name: str | None = None,
    pr: int = 5,
    head_sha: str | None = None,
) -> dict[str, Any]:
    cases = [
        {"id": f"cap/c{i}", "group": "cap", "trials": [{"passed": i >= failing}]}
        | ({"name": name} if name and i == 0 else {})
        for i in range(N)
    ]
    suite: dict[str, Any] = {"id": "demo", "kind": "benchmark", "source": "demo.yaml", "cases": cases}
    if gate is not None:
        suite["gate"] = gate
    return {
        "schema": "agent-evals/run@1",
        "run": {
            "tool_version": "0.1.0",
            "started_at": "2026-01-01T00:00:00Z",
            "ci": {"pr": pr} | ({"head_sha": head_sha} if head_sha else {}),
        },
        "suites": [suite],
    }


@pytest.fixture
def github() -> Iterator[GitHubServer]:
    with GitHubServer() as server:
        state = server.state
        state.add_pull(5, head_sha=HEAD, head_repo=FORK)
        state.pulls[5]["base"]["sha"] = BASE
        state.merge_bases[f"{BASE}...{HEAD}"] = (MERGE, "2026-01-02T00:00:00Z")
        state.add_run(
            workflow="gate.yml",
            head_sha=MERGE,
            created_at="2026-01-02T00:00:00Z",
            artifact=record_zip(_record(0)),
        )
        yield server


def _artifact(tmp_path: Path, record: dict[str, Any] | None = None, report: str = FORGED) -> Path:
    folder = tmp_path / f"agent-evals-run-{GATE}"
    folder.mkdir()
    (folder / "report.md").write_text(report)
    (folder / "run.json").write_text(json.dumps(record if record is not None else _record(10)))
    return folder


def _publish(
    github: GitHubServer,
    tmp_path: Path,
    *args: str,
    head_sha: str = HEAD,
    head_repo: str = FORK,
    conclusion: str = "failure",
    env: dict[str, str] | None = None,
    pull_requests: tuple[int, ...] = (),
) -> subprocess.CompletedProcess[str]:
    event = tmp_path / "event.json"
    run = {
        "id": 77,
        "event": "pull_request",
        "head_sha": head_sha,
        "head_repository": {"full_name": head_repo},
        "conclusion": conclusion,
        "html_url": GATE_RUN_URL,
        "path": ".github/workflows/gate.yml",
        "pull_requests": [{"number": n, "head": {"sha": head_sha}} for n in pull_requests],
    }
    event.write_text(json.dumps({"workflow_run": run}))
    trusted = tmp_path / "trusted-checkout"
    trusted.mkdir(exist_ok=True)
    full_env = {
        "PATH": os.environ["PATH"],
        # the code under test, when it is not the installed one (a checkout on PYTHONPATH)
        **{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ},
        "HOME": str(tmp_path),
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "workflow_run",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_API_URL": github.api_url,
        "GITHUB_TOKEN": TOKEN,
        **(env or {}),
    }
    return subprocess.run(
        [CLI, "publish", *args], cwd=trusted, env=full_env, capture_output=True, text=True, timeout=120
    )


def _body(github: GitHubServer) -> str:
    [comment] = github.state.comments[5]
    return str(comment["body"])


def test_publish__forged_passing_report__ignored_comment_is_our_own_failed_verdict(
    github: GitHubServer, tmp_path: Path
) -> None:
    result = _publish(github, tmp_path, str(_artifact(tmp_path)))
    assert result.returncode == 0, result.stderr
    body = _body(github)
    assert body.startswith(MARKER + "\n### ") and "gate failed" in body.split("\n")[1]
    assert "gate passed" not in body and "@everyone" not in body and "evil.example" not in body
    assert "pull request's own code" in body and "concluded `failure`" in body
    assert "judged by the publisher" in result.stdout
    # the baseline came from the trusted lookup, at the merge base
    assert github.state.api_requests("GET", "/actions/workflows/gate.yml/runs")


def test_publish__hostile_case_name__escaped_by_our_renderer(github: GitHubServer, tmp_path: Path) -> None:
    record = _record(10, name='@octocat <img src="https://evil.example/b.png"> #1')
    result = _publish(github, tmp_path, str(_artifact(tmp_path, record)))
    assert result.returncode == 0, result.stderr
    body = _body(github)
    assert "<img" not in body and "@octocat" not in body and "https://evil.example" not in body


def test_publish__record_loosening_its_own_gate_block__trusted_policy_still_fails(
    github: GitHubServer, tmp_path: Path
) -> None:
    record = _record(10, gate={"max_drop": 1.0, "min_pass_rate": 0.0, "alpha": 1e-9})
    result = _publish(github, tmp_path, str(_artifact(tmp_path, record)))
    assert result.returncode == 0, result.stderr
    assert "gate failed" in _body(github).split("\n")[1]


def test_publish__passing_record_but_gate_run_failed__warns_in_the_comment(
    github: GitHubServer, tmp_path: Path
) -> None:
    result = _publish(github, tmp_path, str(_artifact(tmp_path, _record(0))), conclusion="failure")
    assert result.returncode == 0, result.stderr
    assert "[!WARNING]" in _body(github) and "concluded `failure`" in _body(github)


@pytest.mark.parametrize(
    ("mode", "failing", "posted"),
    [("never", 10, False), ("on-failure", 0, False), ("on-failure", 10, True), ("always", 0, True)],
)
def test_publish__comment_mode__from_the_publishers_own_input(
    github: GitHubServer, tmp_path: Path, mode: str, failing: int, posted: bool
) -> None:
    result = _publish(
        github, tmp_path, str(_artifact(tmp_path, _record(failing))), env={"AGENT_EVALS_COMMENT": mode}
    )
    assert result.returncode == 0, result.stderr
    assert bool(github.state.comments.get(5)) is posted


def test_publish__second_publish__updates_the_same_comment(github: GitHubServer, tmp_path: Path) -> None:
    folder = _artifact(tmp_path)
    first = _publish(github, tmp_path, str(folder))
    second = _publish(github, tmp_path, str(folder / "run.json"), "--pr", "5", "--gate-id", GATE)
    assert (first.returncode, second.returncode) == (0, 0), first.stderr + second.stderr
    assert len(github.state.comments[5]) == 1
    assert "comment created on #5" in first.stdout and "comment updated on #5" in second.stdout


def test_publish__accept_label_on_the_pull_request_now__comment_says_accepted(
    github: GitHubServer, tmp_path: Path
) -> None:
    github.state.labels[5] = ["agent-evals:accept-regression"]
    result = _publish(github, tmp_path, str(_artifact(tmp_path)))
    assert result.returncode == 0, result.stderr
    assert "Regression accepted" in _body(github) and "accepted by label" in result.stdout


def _with_policy(record: dict[str, Any], **knobs: Any) -> dict[str, Any]:
    """``record`` with the policy ``ci`` records in each suite (the defaults but ``knobs``)."""
    from agent_evals.gate.policy import Knobs

    for suite in record["suites"]:
        suite["policy"] = {"knobs": Knobs(**knobs).model_dump(mode="json")}
    return record


@pytest.mark.parametrize("label", [False, True], ids=["no-label", "accept-label"])
def test_publish__record_claiming_a_looser_policy_than_the_baselines__base_applies_until_accepted(
    github: GitHubServer, tmp_path: Path, label: bool
) -> None:
    github.state.runs["gate.yml"] = []  # the baseline recorded its policy: a floor of 0.9
    github.state.add_run(
        workflow="gate.yml", head_sha=MERGE, created_at="2026-01-02T00:00:00Z",
        artifact=record_zip(_with_policy(_record(0), min_pass_rate=0.9)),
    )  # fmt: skip
    github.state.labels[5] = ["agent-evals:accept-regression"] if label else []
    record = _with_policy(_record(3, gate={"min_pass_rate": 0.5}), min_pass_rate=0.5)
    result = _publish(github, tmp_path, str(_artifact(tmp_path, record)))
    assert result.returncode == 0, result.stderr
    body = html.unescape(_body(github))
    if label:
        assert "min_pass_rate 0.9 -> 0.5: accepted with the 'agent-evals:accept-regression' label" in body
        assert "accepted by label" in result.stdout
    else:
        assert "gate failed" in body.split("\n")[1]
        assert "min_pass_rate 0.9 -> 0.5: the base value applies until a maintainer accepts" in body


def test_publish__record_claiming_a_stricter_policy__applies(github: GitHubServer, tmp_path: Path) -> None:
    record = _with_policy(_record(3), min_pass_rate=0.95)
    result = _publish(github, tmp_path, str(_artifact(tmp_path, record)))
    assert result.returncode == 0, result.stderr
    assert "gate failed" in _body(github).split("\n")[1]
    assert "the base value applies" not in html.unescape(_body(github))


@pytest.mark.parametrize(
    ("kwargs", "args", "message"),
    [
        ({"head_sha": "0" * 40}, ("--pr", "5"), "refusing to publish a report for another commit"),
        (
            {"head_repo": "other/demo"},
            ("--pr", "5"),
            "comes from someone/demo, but the gate ran on other/demo",
        ),
        ({}, ("--pr", "99"), "#99 is not a pull request of octo/demo"),
        ({}, ("--gate-id", "x-->"), "gate id"),
        (
            {"head_sha": "0" * 40},
            (),
            "no open pull request of octo/demo has 000000000000 from someone/demo as its head",
        ),
        (
            {"head_repo": "other/demo"},
            (),
            "no open pull request of octo/demo has eeeeeeeeeeee from other/demo as its head",
        ),
    ],
    ids=[
        "head-sha-differs",
        "cross-repository-head",
        "pr-not-in-repo",
        "unsafe-gate-id",
        "no-pull-request-at-the-commit",
        "no-pull-request-from-the-head-repository",
    ],
)
def test_publish__pull_request_does_not_match_the_gate_run__refuses_with_exit_2(
    github: GitHubServer, tmp_path: Path, kwargs: dict[str, str], args: tuple[str, ...], message: str
) -> None:
    result = _publish(github, tmp_path, str(_artifact(tmp_path)), *args, **kwargs)
    assert result.returncode == 2
    assert message in result.stderr
    assert github.state.api_requests("POST") == []


def test_publish__only_a_report_no_run_record__refuses(github: GitHubServer, tmp_path: Path) -> None:
    folder = _artifact(tmp_path)
    (folder / "run.json").unlink()
    result = _publish(github, tmp_path, str(folder))
    assert result.returncode == 2 and "no run record" in result.stderr


def test_publish__forged_run_record_not_matching_the_schema__refuses(
    github: GitHubServer, tmp_path: Path
) -> None:
    result = _publish(github, tmp_path, str(_artifact(tmp_path, {"schema": "agent-evals/run@1", "run": {}})))
    assert result.returncode == 2 and "run record is not usable" in result.stderr


def test_publish__token_cannot_write__exit_3_names_the_permission(
    github: GitHubServer, tmp_path: Path
) -> None:
    github.state.read_only = True
    result = _publish(github, tmp_path, str(_artifact(tmp_path)))
    assert result.returncode == 3
    assert re.search(r"pull-requests: write", result.stdout + result.stderr)


@pytest.mark.parametrize(
    "fault",
    [
        Fault("GET", "/actions/workflows/gate.yml/runs$", 429, {"message": "x"}, {"retry-after": "3600"}),
        Fault(
            "GET",
            "/zip$",
            403,
            {"message": "API rate limit exceeded for installation ID 1."},
            {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "99999999999"},
        ),
    ],
    ids=["runs-list-429", "zip-rate-limited-403"],
)
def test_publish__github_gives_no_usable_answer_for_the_baseline__no_comment_error_status_exit_3(
    github: GitHubServer, tmp_path: Path, fault: Fault
) -> None:
    # the fork's record has 10 regressions: "no baseline, gate passed with warnings" must never be posted
    github.state.faults.append(fault)
    result = _publish(github, tmp_path, str(_artifact(tmp_path)))
    assert result.returncode == 3, result.stdout + result.stderr
    assert "GitHub could not be asked for the baseline" in result.stderr
    assert github.state.api_requests("POST", "/comments") == [] and github.state.api_requests("PATCH") == []
    status = github.state.latest_status(HEAD, CONTEXT)
    assert status is not None and status["state"] == "error" and "no verdict" in status["description"]


# -- the two-workflow gate: every pull request (same repository too) gets its verdict and commit status --

SAME = 6  # a pull request from a branch of the repository itself


@pytest.fixture
def same_repo(github: GitHubServer) -> GitHubServer:
    github.state.add_pull(SAME, head_sha=HEAD, head_repo=REPO)
    github.state.pulls[SAME]["base"]["sha"] = BASE
    return github


def _status(github: GitHubServer) -> dict[str, Any]:
    status = github.state.latest_status(HEAD, CONTEXT)
    assert status is not None, "no commit status was set"
    assert len(status["description"]) < 140 and status["target_url"] == GATE_RUN_URL
    return status


@pytest.mark.parametrize(
    ("failing", "labels", "state", "words", "verdict"),
    [
        (10, (), "failure", "gate failed", "gate failed"),
        (0, (), "success", "no regression", "gate passed"),
        (10, ("agent-evals:accept-regression",), "success", "accepted by label", "Regression accepted"),
    ],
    ids=["regression", "pass", "accepted-label"],
)
def test_publish__same_repository_pull_request__comment_and_commit_status_from_the_verdict(
    same_repo: GitHubServer,
    tmp_path: Path,
    failing: int,
    labels: tuple[str, ...],
    state: str,
    words: str,
    verdict: str,
) -> None:
    same_repo.state.labels[SAME] = list(labels)
    record = _record(failing, pr=SAME, head_sha=HEAD)
    result = _publish(
        same_repo, tmp_path, str(_artifact(tmp_path, record)), head_repo=REPO, conclusion="success"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    [comment] = same_repo.state.comments[SAME]
    assert verdict in comment["body"]
    status = _status(same_repo)
    assert status["state"] == state and words in status["description"]
    assert f"status {CONTEXT} on {HEAD[:12]}: {state}" in result.stdout
    # the comment is written before the status: the required check never turns before the report is there
    writes = [s.path for s in same_repo.state.seen if s.method == "POST" and s.path != "/graphql"]
    assert writes[0].endswith("/comments") and writes[-1].endswith(f"/statuses/{HEAD}")


def test_publish__gate_run_uploaded_no_record__error_status_with_the_reason_exit_3(
    same_repo: GitHubServer, tmp_path: Path
) -> None:
    missing = tmp_path / "runs" / f"agent-evals-run-{GATE}"  # the download found no such artifact
    result = _publish(same_repo, tmp_path, str(missing), head_repo=REPO, conclusion="cancelled")
    assert result.returncode == 3, result.stdout + result.stderr
    status = _status(same_repo)
    assert status["state"] == "error"
    assert "uploaded no run record" in status["description"] and "cancelled" in status["description"]
    assert same_repo.state.api_requests("POST", "/comments") == []


@pytest.mark.parametrize(
    ("write", "code", "message"),
    [
        (lambda folder: (folder / "run.json").write_text("{not json"), 2, "run record is not usable"),
        (lambda folder: (folder / "run.json").unlink(), 2, "no run record"),
    ],
    ids=["unreadable", "folder-without-run-json"],
)
def test_publish__record_cannot_be_read__error_status_never_a_pass(
    same_repo: GitHubServer, tmp_path: Path, write: Any, code: int, message: str
) -> None:
    folder = _artifact(tmp_path, _record(0, pr=SAME))
    write(folder)
    result = _publish(same_repo, tmp_path, str(folder), head_repo=REPO, conclusion="success")
    assert result.returncode == code and message in result.stderr
    status = _status(same_repo)
    assert status["state"] == "error" and message in status["description"]
    assert same_repo.state.api_requests("POST", "/comments") == []


def test_publish__passing_record_made_for_another_commit__refused_with_error_status(
    same_repo: GitHubServer, tmp_path: Path
) -> None:
    # a green record of an older push handed in for the regressing head commit
    stale = _record(0, pr=SAME, head_sha="a" * 40)
    result = _publish(
        same_repo, tmp_path, str(_artifact(tmp_path, stale)), head_repo=REPO, conclusion="success"
    )
    assert result.returncode == 2
    assert "refusing to judge a record of another commit" in result.stderr
    status = _status(same_repo)
    assert status["state"] == "error" and "another commit" in status["description"]
    assert same_repo.state.api_requests("POST", "/comments") == []


def test_publish__incomplete_record__error_status_not_success(
    same_repo: GitHubServer, tmp_path: Path
) -> None:
    record = _record(0, pr=SAME, head_sha=HEAD)
    record["run"]["complete"] = False
    result = _publish(
        same_repo, tmp_path, str(_artifact(tmp_path, record)), head_repo=REPO, conclusion="failure"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert _status(same_repo)["state"] == "error"


def test_publish__token_cannot_set_statuses__exit_3_names_the_permission(
    same_repo: GitHubServer, tmp_path: Path
) -> None:
    same_repo.state.faults.append(
        Fault("POST", "/statuses/", 403, {"message": "Resource not accessible by integration"})
    )
    record = _record(0, pr=SAME, head_sha=HEAD)
    result = _publish(
        same_repo, tmp_path, str(_artifact(tmp_path, record)), head_repo=REPO, conclusion="success"
    )
    assert result.returncode == 3
    assert "statuses: write" in result.stderr


@pytest.mark.parametrize(
    ("status", "words"),
    [(403, "comment could not be written"), (422, "no verdict: GitHub API POST")],
    ids=["forbidden", "refused"],
)
def test_publish__comment_cannot_be_written__status_error_not_the_verdict(
    same_repo: GitHubServer, tmp_path: Path, status: int, words: str
) -> None:
    same_repo.state.faults.append(Fault("POST", "/comments$", status, {"message": "Resource not accessible"}))
    record = _record(0, pr=SAME, head_sha=HEAD)
    result = _publish(
        same_repo, tmp_path, str(_artifact(tmp_path, record)), head_repo=REPO, conclusion="success"
    )
    assert result.returncode == 3, result.stdout + result.stderr
    status_set = _status(same_repo)
    assert status_set["state"] == "error" and words in status_set["description"]


def test_publish__cancelled_gate_run_superseded_by_a_newer_push__nothing_published_exit_0(
    same_repo: GitHubServer, tmp_path: Path
) -> None:
    record = _record(0, pr=SAME, head_sha="0" * 40)
    result = _publish(
        same_repo,
        tmp_path,
        str(_artifact(tmp_path, record)),
        head_sha="0" * 40,
        head_repo=REPO,
        conclusion="cancelled",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "nothing published: the gate run was cancelled" in result.stdout
    assert same_repo.state.api_requests("POST") == []


def test_publish__no_record_after_an_earlier_pass__sticky_comment_says_no_verdict_not_passed(
    same_repo: GitHubServer, tmp_path: Path
) -> None:
    passed = _publish(
        same_repo,
        tmp_path,
        str(_artifact(tmp_path, _record(0, pr=SAME))),
        head_repo=REPO,
        conclusion="success",
    )
    assert passed.returncode == 0 and "gate passed" in same_repo.state.comments[SAME][0]["body"]
    missing = tmp_path / "runs" / f"agent-evals-run-{GATE}"
    result = _publish(
        same_repo, tmp_path, str(missing), head_repo=REPO, conclusion="failure", pull_requests=(SAME,)
    )
    assert result.returncode == 3, result.stdout + result.stderr
    [comment] = same_repo.state.comments[SAME]
    assert "no verdict" in comment["body"] and "gate passed" not in comment["body"]
    assert _status(same_repo)["state"] == "error"


def test_publish__fork_record_renaming_every_case__judged_failed_never_no_baseline(
    github: GitHubServer, tmp_path: Path
) -> None:
    # it used to be "not comparable" and judged without a baseline: on_missing_baseline warn passed it
    record = _record(0)
    for case in record["suites"][0]["cases"]:
        case["id"] = case["id"].replace("/c", "/r")
    result = _publish(github, tmp_path, str(_artifact(tmp_path, record)))
    assert result.returncode == 0, result.stderr
    headline = _body(github).split("\n")[1]
    assert "every case renamed or replaced" in headline and "gate failed" in headline
    assert "no baseline" not in headline
