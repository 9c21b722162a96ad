"""`agent-evals ci` that cannot write a file it must write: a clear message naming it, exit 3, no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent_evals.github.actions_io import parse_outputs
from servers.github_server import TOKEN, Fault, GitHubServer, make_zip

CLI = str(Path(sys.executable).with_name("agent-evals"))

AGENT = "def answer(prompt):\n    return 'ok'\n"
BENCH = (
    "benchmark: w\nagent: w_agent:answer\ncapabilities:\n  - name: t\n    scenarios:\n"
    "      - id: a\n        prompt: a\n        success: {output: {contains: ok}}\n"
)


def _ci(tmp: Path, **paths: Path) -> subprocess.CompletedProcess[str]:
    work = tmp / "ws"
    work.mkdir(exist_ok=True)
    (work / "w.yaml").write_text(BENCH, encoding="utf-8")
    (work / "w_agent.py").write_text(AGENT, encoding="utf-8")
    event = tmp / "event.json"
    event.write_text(json.dumps({"repository": {"full_name": "octo/demo", "default_branch": "main"}}))
    env = {
        "PATH": os.environ["PATH"],
        # the code under test, when it is not the installed one (a checkout on PYTHONPATH)
        **{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ},
        "HOME": str(tmp),
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": "octo/demo",
        "GITHUB_API_URL": "http://127.0.0.1:9",
        "GITHUB_SHA": "a" * 40,
        "GITHUB_REF": "refs/heads/main",
        "GITHUB_WORKFLOW_REF": "octo/demo/.github/workflows/gate.yml@refs/heads/main",
        "GITHUB_WORKSPACE": str(work),
        "GITHUB_STEP_SUMMARY": str(paths.get("summary", tmp / "summary.md")),
        "GITHUB_OUTPUT": str(paths.get("output", tmp / "output.txt")),
    }
    out_dir = paths.get("out_dir", tmp / "out")
    return subprocess.run(
        [CLI, "ci", "w.yaml", "--output-dir", str(out_dir)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("output", "cannot write the step outputs (GITHUB_OUTPUT)"),
        ("summary", "cannot write the job summary"),
        ("out_dir", "cannot create"),
    ],
    ids=["GITHUB_OUTPUT", "step-summary", "output-dir"],
)
def test_ci_cannot_write_a_file__exit_3_naming_it_never_a_traceback(
    tmp_path: Path, target: str, words: str
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    # a directory where a file must go, or a folder below a plain file: unwritable for anyone, root included
    bad = {"output": tmp_path, "summary": tmp_path, "out_dir": blocker / "out"}[target]
    done = _ci(tmp_path, **{target: bad})
    assert done.returncode == 3, done.stdout + done.stderr
    assert words in done.stderr and "Traceback" not in done.stderr, done.stderr


# One outcome, published once: step outputs, then the job summary, then the comment; a failed write
# makes the later ones say "no verdict", so the sticky comment never says "gate passed" beside a red job.

PR_HEAD, PR_BASE, MERGE_BASE = "e" * 40, "b" * 40, "d" * 40


def _gate(
    tmp: Path,
    github: GitHubServer,
    run: str,
    *,
    event: str = "pull_request",
    args: tuple[str, ...] = (),
    **paths: Path,
) -> _Gate:
    """`agent-evals ci` on a pull request (or a push to main) against the loopback GitHub server."""
    work, meta = tmp / "ws", tmp / run
    work.mkdir(exist_ok=True)
    meta.mkdir()
    (work / "w.yaml").write_text(BENCH, encoding="utf-8")
    (work / "w_agent.py").write_text(AGENT, encoding="utf-8")
    repo = {"full_name": "octo/demo", "default_branch": "main"}
    pull = {
        "number": 5,
        "labels": [],
        "base": {"sha": PR_BASE, "ref": "main", "repo": repo},
        "head": {"sha": PR_HEAD, "ref": "feature", "repo": repo},
    }
    payload = (
        {"number": 5, "repository": repo, "pull_request": pull}
        if event == "pull_request"
        else {"repository": repo}
    )
    (meta / "event.json").write_text(json.dumps(payload))
    ref = "refs/pull/5/merge" if event == "pull_request" else "refs/heads/main"
    summary, output = paths.get("summary", meta / "summary.md"), paths.get("output", meta / "output.txt")
    env = {
        "PATH": os.environ["PATH"],
        **{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ},
        "HOME": str(tmp),
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(meta / "event.json"),
        "GITHUB_REPOSITORY": "octo/demo",
        "GITHUB_API_URL": github.api_url,
        "GITHUB_SHA": PR_HEAD,
        "GITHUB_REF": ref,
        "GITHUB_RUN_ID": "77",
        "GITHUB_JOB": "gate",
        "GITHUB_WORKFLOW_REF": f"octo/demo/.github/workflows/gate.yml@{ref}",
        "GITHUB_WORKSPACE": str(work),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_TOKEN": TOKEN,
    }
    done = subprocess.run(
        [CLI, "ci", "w.yaml", "--output-dir", str(paths.get("out_dir", meta / "out")), *args],
        cwd=work, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    return _Gate(
        done.returncode,
        done.stdout + done.stderr,
        summary.read_text() if summary.is_file() else "",
        parse_outputs(output.read_text()) if output.is_file() else {},
        meta,
    )


@dataclass
class _Gate:
    code: int
    log: str
    summary: str
    outputs: dict[str, str]
    meta: Path


@pytest.fixture
def github(tmp_path: Path) -> Iterator[GitHubServer]:
    """The loopback server with a baseline of the same (passing) suite, so the gate passes."""
    with GitHubServer() as server:
        server.state.labels[5] = []
        server.state.merge_bases[f"{PR_BASE}...{PR_HEAD}"] = (MERGE_BASE, "2026-01-02T00:00:00Z")
        push = _gate(tmp_path, server, "baseline", event="push")
        assert push.code == 0, push.log
        record = Path(push.outputs["run-record"]).read_bytes()
        server.state.add_run(
            workflow="gate.yml", head_sha=MERGE_BASE, created_at="2026-01-02T00:00:00Z",
            artifact=make_zip({"run.json": record}), artifact_name="agent-evals-baseline-" + push.outputs["gate-id"],
        )  # fmt: skip
        yield server


def _comments(github: GitHubServer) -> list[str]:
    return [str(c["body"]) for c in github.state.comments.get(5, [])]


def test_ci_publish__nothing_fails__gate_passed_everywhere(tmp_path: Path, github: GitHubServer) -> None:
    done = _gate(tmp_path, github, "pr")
    assert done.code == 0, done.log
    assert done.outputs["status"] == "passed" and done.outputs["comment-url"]
    assert "gate passed" in _comments(github)[0] and "gate passed" in done.summary
    verdict = json.loads(Path(done.outputs["verdict-json"]).read_text())
    assert (verdict["exit_code"], verdict["status"]) == (0, "passed")


@pytest.mark.parametrize("target", ["output", "summary"])
def test_ci_publish__an_earlier_write_fails__the_comment_says_no_verdict_exit_3(
    tmp_path: Path, github: GitHubServer, target: str
) -> None:
    green = _gate(tmp_path, github, "green")  # a sticky comment that says "gate passed" already
    assert green.code == 0 and "gate passed" in _comments(github)[0]
    done = _gate(tmp_path, github, "pr", **{target: tmp_path})  # a directory: unwritable for anyone
    assert done.code == 3, done.log
    [comment] = _comments(github)
    assert "no verdict" in comment and "gate passed" not in comment, comment
    what = "step outputs (GITHUB_OUTPUT)" if target == "output" else "job summary"
    assert f"could not write the {what}" in comment
    assert f"cannot write the {what}" in done.log and "Traceback" not in done.log
    if target == "output":  # the summary after it says no verdict too
        assert "no verdict" in done.summary and "gate passed" not in done.summary
    verdict = json.loads((done.meta / "out" / "verdict.json").read_text())
    assert verdict["exit_code"] == 3 and "publish_error" in verdict


@pytest.mark.parametrize(
    "fault",
    [
        Fault("POST", "/comments$", 500, {"message": "Server Error"}, times=20),
        Fault("POST", "/comments$", 422, {"message": "Validation Failed"}),
        Fault("PATCH", "/comments/", 500, {"message": "Server Error"}, times=20),
    ],
    ids=["post-500", "post-422", "patch-500"],
)
def test_ci_publish__the_comment_fails__the_summary_and_the_log_say_so_exit_3(
    tmp_path: Path, github: GitHubServer, fault: Fault
) -> None:
    if fault.method == "PATCH":
        assert _gate(tmp_path, github, "green").code == 0
        # an older report under the same marker: the new body differs, so it must be PATCHed (an
        # identical body is left alone, which would skip the faulty write)
        [old] = github.state.comments[5]
        old["body"] = str(old["body"]).replace("gate passed", "an older report")
    github.state.faults.append(fault)
    done = _gate(tmp_path, github, "pr")
    assert done.code == 3, done.log
    assert "Could not write the pull request comment" in done.summary
    assert "::error::Could not write the pull request comment" in done.log
    # written before the comment, then brought to say what the job does: no verdict, exit 3
    assert done.outputs["status"] == "error"
    assert "no verdict" in done.summary and "gate passed" not in done.summary
    verdict = json.loads(Path(done.outputs["verdict-json"]).read_text())
    assert (verdict["exit_code"], verdict["status"]) == (3, "error")


@pytest.mark.parametrize("failure", ["output", "summary", "out_dir_report", "post-500", "post-422", "none"])
def test_ci_publish__whatever_write_fails__gate_passed_is_never_said_beside_a_red_job(
    tmp_path: Path, github: GitHubServer, failure: str
) -> None:
    paths: dict[str, Path] = {}
    if failure in ("output", "summary"):
        paths[failure] = tmp_path
    if failure == "out_dir_report":  # the folder exists, its report file cannot be written
        out = tmp_path / "reports"
        (out / "report.md").mkdir(parents=True)
        paths["out_dir"] = out
    if failure.startswith("post-"):
        github.state.faults.append(Fault("POST", "/comments$", int(failure[5:]), {"message": "no"}, times=20))
    done = _gate(tmp_path, github, "pr", **paths)
    assert (done.code == 0) is (failure == "none"), done.log
    if done.code != 0:
        assert all("gate passed" not in c for c in _comments(github)), _comments(github)
        # a summary that gives the verdict says, below it, why the job is red anyway
        assert "gate passed" not in done.summary or "Could not write the pull request comment" in done.summary


# Each way `ci`'s outcome turns to exit 3 after the comparison decided it, through the real CLI. What
# the job says must then agree everywhere it is said: the exit code, verdict.json (exit_code, status),
# the `status` step output, and the job summary's headline (each where it could be written at all).
LATE_TURNS = [
    "none",
    "output",
    "summary",
    "report-file",
    "verdict-file",
    "post-500",
    "post-422",
    "branch-store",
]


@pytest.mark.parametrize("turn", LATE_TURNS)
def test_ci_publish__outcome_turns_to_3_late__exit_verdict_json_status_and_headline_agree(
    tmp_path: Path, github: GitHubServer, turn: str
) -> None:
    paths: dict[str, Path] = {}
    out = tmp_path / "reports"
    if turn in ("output", "summary"):
        paths[turn] = tmp_path  # a directory: unwritable for anyone
    if turn in ("report-file", "verdict-file"):  # the folder exists, one report file cannot be written
        (out / ("report.md" if turn == "report-file" else "verdict.json")).mkdir(parents=True)
    if turn.startswith("post-"):
        github.state.faults.append(Fault("POST", "/comments$", int(turn[5:]), {"message": "no"}, times=20))
    event, args = "pull_request", ()
    if turn == "branch-store":  # a push whose baseline cannot be stored: the data branch does not exist
        event, args = "push", ("--baseline-store", "branch")
    done = _gate(tmp_path, github, "late", event=event, args=args, out_dir=out, **paths)
    turned = turn != "none"
    assert done.code == (3 if turned else 0), done.log
    status = "error" if turned else ("passed" if event == "pull_request" else "no-baseline")
    said: dict[str, object] = {"exit": done.code}
    if (out / "verdict.json").is_file():
        verdict = json.loads((out / "verdict.json").read_text())
        said["verdict.json"] = (verdict["exit_code"], verdict["status"])
    if done.outputs:
        said["status output"] = done.outputs["status"]
    if done.summary:
        headline = next(line for line in done.summary.splitlines() if line.startswith("### "))
        said["headline"] = "no verdict" if "no verdict" in headline else headline
    expected: dict[str, object] = {
        "exit": 3 if turned else 0,
        "verdict.json": (3 if turned else 0, status),
        "status output": status,
        "headline": "no verdict" if turned else said.get("headline"),
    }
    assert said == {k: v for k, v in expected.items() if k in said}, done.log
    assert len(said) >= 3, said  # at most one of the four could not be written
    if not turned:
        assert "no verdict" not in str(said.get("headline"))
