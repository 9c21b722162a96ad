"""`agent-evals publish`: the fork-safe publisher posts only to the pull request the report was made for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from servers.github_server import TOKEN, GitHubServer

CLI = str(Path(sys.executable).parent / "agent-evals")
REPO = "octo/demo"
HEAD = "e" * 40
MARKER = "<!-- agent-evals:gate:gate-1234abcd -->"


@pytest.fixture
def github() -> Iterator[GitHubServer]:
    with GitHubServer() as server:
        server.state.add_pull(5, head_sha=HEAD, head_repo="someone/demo")
        yield server


def _artifact(tmp_path: Path, *, pr: int | None = 5, body: str = f"{MARKER}\n### gate failed\n") -> Path:
    folder = tmp_path / "agent-evals-run-gate-1234abcd"
    folder.mkdir()
    (folder / "report.md").write_text(body)
    record = {
        "schema": "agent-evals/run@1",
        "run": {"tool_version": "0", "started_at": "x", "ci": {"pr": pr}},
    }
    (folder / "run.json").write_text(json.dumps(record))
    return folder


def _publish(
    github: GitHubServer, tmp_path: Path, *args: str, head_sha: str = HEAD
) -> subprocess.CompletedProcess[str]:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"workflow_run": {"id": 1, "head_sha": head_sha, "event": "pull_request"}}))
    env = {
        "PATH": os.environ["PATH"],
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "workflow_run",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_API_URL": github.api_url,
        "GITHUB_TOKEN": TOKEN,
    }
    return subprocess.run([CLI, "publish", *args], env=env, capture_output=True, text=True, timeout=60)


def test_publish__matching_head_sha__creates_then_updates_comment(
    github: GitHubServer, tmp_path: Path
) -> None:
    folder = _artifact(tmp_path)
    first = _publish(github, tmp_path, str(folder))
    second = _publish(github, tmp_path, str(folder / "report.md"), "--pr", "5")
    assert (first.returncode, second.returncode) == (0, 0), first.stderr + second.stderr
    [comment] = github.state.comments[5]
    assert comment["body"].startswith(MARKER)
    assert "comment created on #5" in first.stdout and "comment updated on #5" in second.stdout


def test_publish__head_sha_differs__refuses_with_exit_2(github: GitHubServer, tmp_path: Path) -> None:
    result = _publish(github, tmp_path, str(_artifact(tmp_path)), head_sha="0" * 40)
    assert result.returncode == 2
    assert "refusing to publish a report for another commit" in result.stderr
    assert github.state.comments == {}


def test_publish__pr_not_in_repository__refuses_with_exit_2(github: GitHubServer, tmp_path: Path) -> None:
    result = _publish(github, tmp_path, str(_artifact(tmp_path)), "--pr", "99")
    assert result.returncode == 2
    assert "#99 is not a pull request of octo/demo" in result.stderr
    assert github.state.api_requests("POST") == []


def test_publish__report_without_marker__refuses(github: GitHubServer, tmp_path: Path) -> None:
    result = _publish(github, tmp_path, str(_artifact(tmp_path, body="hello @everyone")))
    assert result.returncode == 2
    assert "gate marker" in result.stderr


def test_publish__no_pr_anywhere__asks_for_pr(github: GitHubServer, tmp_path: Path) -> None:
    result = _publish(github, tmp_path, str(_artifact(tmp_path, pr=None)))
    assert result.returncode == 2
    assert "--pr N" in result.stderr
