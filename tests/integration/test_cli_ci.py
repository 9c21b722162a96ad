"""`agent-evals ci` as a subprocess with an Actions-like environment against the loopback GitHub server."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agent_evals.github.actions_io import parse_outputs
from servers.github_server import TOKEN, Delay, Fault, GitHubServer, make_zip

CLI = str(Path(sys.executable).parent / "agent-evals")
REPO = "octo/demo"
BASE, HEAD, MERGE = "b" * 40, "e" * 40, "d" * 40
CASES = [f"c{i:02d}" for i in range(20)]

AGENT = """
import ctypes
import os


def answer(prompt):
    if prompt in os.environ.get("DIE_CASES", "").split(","):
        print("dying on", prompt, flush=True)
        ctypes.CDLL(None)._exit(int(os.environ.get("DIE_CODE", "1")))  # as a native library may
    return "bad" if prompt in os.environ.get("FAIL_CASES", "").split(",") else "ok"
"""


def _benchmark() -> str:
    lines = ["benchmark: tiny", "agent: tiny_agent:answer", "execution:", "  runs_per_scenario: 1"]
    lines += ["capabilities:", "  - name: math", "    scenarios:"]
    for case in CASES:
        lines += [f"      - id: {case}", f"        prompt: {case}", "        success:"]
        lines += ["          output: {contains: ok}"]
    return "\n".join(lines) + "\n"


@dataclass
class Result:
    """One finished `agent-evals ci` run and the files it left."""

    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str
    workdir: Path

    def record(self) -> dict[str, Any]:
        return dict(json.loads(Path(self.outputs["run-record"]).read_text()))


@dataclass
class Harness:
    """A workspace with the tiny benchmark, an event payload and the server to run against."""

    tmp: Path
    github: GitHubServer
    runs: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def pr_event(
        self, *, labels: tuple[str, ...] = (), fork: bool = False, number: int = 5
    ) -> dict[str, Any]:
        return {
            "number": number,
            "repository": {"full_name": REPO, "default_branch": "main"},
            "pull_request": {
                "number": number,
                "labels": [{"name": n} for n in labels],
                "base": {"sha": BASE, "ref": "main", "repo": {"full_name": REPO}},
                "head": {
                    "sha": HEAD,
                    "ref": "feature",
                    "repo": {"full_name": "someone/demo" if fork else REPO},
                },
            },
        }

    def run(
        self,
        *args: str,
        event: str = "pull_request",
        payload: dict[str, Any] | None = None,
        fail: tuple[str, ...] = (),
        extra_env: dict[str, str] | None = None,
        ref: str = "refs/pull/5/merge",
    ) -> Result:
        with self.lock:  # concurrent runs share the workspace; each gets its own folder
            self.runs += 1
            number = self.runs
            work = self.tmp / "ws"
            if not work.exists():
                work.mkdir()
                (work / "bench.yaml").write_text(_benchmark())
                (work / "tiny_agent.py").write_text(AGENT)
        meta = self.tmp / f"run{number}"
        meta.mkdir()
        event_path = meta / "event.json"
        event_path.write_text(json.dumps(payload if payload is not None else self.pr_event()))
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(self.tmp),
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": event,
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_API_URL": self.github.api_url,
            "GITHUB_SERVER_URL": "https://github.example",
            "GITHUB_SHA": HEAD,
            "GITHUB_REF": ref,
            "GITHUB_RUN_ID": str(7000 + number),
            "GITHUB_JOB": "gate",
            "GITHUB_WORKFLOW_REF": f"{REPO}/.github/workflows/gate.yml@{ref}",
            "GITHUB_WORKSPACE": str(work),
            "GITHUB_STEP_SUMMARY": str(meta / "summary.md"),
            "GITHUB_OUTPUT": str(meta / "output.txt"),
            "GITHUB_TOKEN": TOKEN,
            "FAIL_CASES": ",".join(fail),
            "AGENT_EVALS_OUTPUT_DIR": str(meta / "out"),
            # the code under test, when it is not the installed one (a checkout on PYTHONPATH)
            **{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ},
            **(extra_env or {}),
        }
        proc = subprocess.run(
            [CLI, "ci", "bench.yaml", *args], cwd=work, env=env, capture_output=True, text=True, timeout=120
        )
        out_file = meta / "output.txt"
        outputs = parse_outputs(out_file.read_text()) if out_file.exists() else {}
        summary_file = meta / "summary.md"
        summary = summary_file.read_text() if summary_file.exists() else ""
        return Result(proc.returncode, proc.stdout, proc.stderr, outputs, summary, work)

    def baseline_zip(self, fail: tuple[str, ...] = ()) -> bytes:
        """Make a real baseline: a push run on main, its record zipped as the action uploads it."""
        payload = {"repository": {"full_name": REPO, "default_branch": "main"}}
        result = self.run(event="push", payload=payload, fail=fail, ref="refs/heads/main")
        assert result.code == 0, result.stderr
        assert result.outputs["upload-baseline"] == "true"
        return make_zip({"run.json": Path(result.outputs["run-record"]).read_bytes()})

    def add_baseline_run(
        self, data: bytes, *, sha: str = MERGE, when: str = "2026-01-02T00:00:00Z", **kw: Any
    ) -> int:
        return self.github.state.add_run(
            workflow="gate.yml", head_sha=sha, created_at=when, artifact=data, **kw
        )


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    with GitHubServer() as github:
        github.state.runs["gate.yml"] = []
        github.state.labels[5] = []
        github.state.merge_bases[f"{BASE}...{HEAD}"] = (MERGE, "2026-01-02T00:00:00Z")
        yield Harness(tmp_path, github)


def _comments(h: Harness) -> list[dict[str, Any]]:
    return h.github.state.comments.get(5, [])


def test_ci__first_run_without_baseline__no_baseline_status_comment_says_why(h: Harness) -> None:
    result = h.run()
    assert result.code == 0, result.stderr
    assert result.outputs["status"] == "no-baseline"
    assert result.outputs["baseline-pass-rate"] == ""
    assert result.outputs["pass-rate"] == "1.0000"
    [comment] = _comments(h)
    assert comment["body"].startswith(f"<!-- agent-evals:gate:{result.outputs['gate-id']} -->")
    assert result.outputs["comment-url"] == comment["html_url"]
    assert "no successful push or workflow_dispatch run" in result.stdout + result.summary


def test_ci__push_to_default_branch__records_baseline_without_commenting(h: Harness) -> None:
    h.baseline_zip()
    assert h.github.state.api_requests("POST") == []
    assert h.github.state.api_requests("GET", "/workflows/") == []


def test_ci__unchanged_agent__passes_against_baseline(h: Harness) -> None:
    h.add_baseline_run(h.baseline_zip())
    result = h.run()
    assert result.code == 0, result.stderr
    assert (result.outputs["status"], result.outputs["regressions"]) == ("passed", "0")
    assert result.outputs["baseline-pass-rate"] == "1.0000"
    assert "gate passed" in result.summary


def test_ci__regression__exits_1_with_annotations_at_yaml_lines(h: Harness) -> None:
    h.add_baseline_run(h.baseline_zip())
    result = h.run(fail=tuple(CASES[:8]))
    assert result.code == 1, result.stderr
    assert result.outputs["status"] == "failed"
    assert result.outputs["regressions"] == "8"
    assert result.outputs["pass-rate"] == "0.6000"
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error ")]
    assert len(errors) == 8
    assert errors[0].startswith("::error file=bench.yaml,line=8,")
    assert "math/c00 regressed" in errors[0]
    assert "gate failed" in _comments(h)[0]["body"]
    # the log's untrusted text sits between stop-commands and its resume token; annotations come after
    lines = result.stdout.splitlines()
    token = next(line for line in lines if line.startswith("::stop-commands::")).split("::")[2]
    assert lines.index(f"::{token}::") < lines.index(errors[0])


def test_ci__more_than_ten_regressions__annotations_capped(h: Harness) -> None:
    h.add_baseline_run(h.baseline_zip())
    result = h.run(fail=tuple(CASES[:14]))
    lines = [line for line in result.stdout.splitlines() if line.startswith("::")]
    assert sum(line.startswith("::error ") for line in lines) == 10
    assert "::notice::4 more annotation(s) left out; see the job summary" in lines


@pytest.mark.parametrize(
    ("login", "app_slug"),
    [(None, "github-actions"), (None, "octo-gate"), ("octo-ci-user", "github-actions")],
    ids=["actions-GITHUB_TOKEN", "app-installation-token", "personal-access-token"],
)
def test_ci__second_run__updates_the_same_comment_under_each_token_kind(
    h: Harness, login: str | None, app_slug: str
) -> None:
    h.add_baseline_run(h.baseline_zip())
    h.github.state.login, h.github.state.app_slug = login, app_slug
    first = h.run(fail=tuple(CASES[:8]))
    tag = f"<!-- agent-evals:gate:{first.outputs['gate-id']} -->"
    h.github.state.add_comment(5, f"{tag}\nquoted by the author", login="octocat")
    second = h.run()
    [comment, theirs] = _comments(h)
    assert (first.code, second.code) == (1, 0)
    assert first.outputs["comment-url"] == second.outputs["comment-url"] == comment["html_url"]
    assert "gate passed" in comment["body"] and "gate failed" not in comment["body"]
    assert comment["user"]["login"] == h.github.state.author and theirs["body"].endswith("by the author")
    assert len(h.github.state.api_requests("PATCH")) == 1


def test_ci__fork_pr_read_only_token__job_summary_and_notice_keep_exit_code(h: Harness) -> None:
    h.add_baseline_run(h.baseline_zip())
    h.github.state.read_only = True
    result = h.run(fail=tuple(CASES[:8]), payload=h.pr_event(fork=True))
    assert result.code == 1
    assert result.outputs["status"] == "failed" and result.outputs["comment-url"] == ""
    assert "::notice::Could not comment on pull request #5" in result.stdout
    assert "gate failed" in result.summary and "workflow_run" in result.summary
    assert _comments(h) == []


@pytest.mark.parametrize("how", ["expired-flag", "http-410"])
def test_ci__expired_artifact__no_baseline_with_reason(h: Harness, how: str) -> None:
    h.add_baseline_run(h.baseline_zip(), expired=how == "expired-flag")
    if how == "http-410":
        h.github.state.faults.append(Fault("GET", "/zip$", 410, {"message": "Artifact has expired"}))
    result = h.run()
    assert result.code == 0
    assert result.outputs["status"] == "no-baseline"
    assert "expired" in _comments(h)[0]["body"] + result.summary


def test_ci__merge_base_run__preferred_over_newer_baseline(h: Harness) -> None:
    at_merge_base = h.baseline_zip()
    newer = h.baseline_zip(fail=tuple(CASES[:10]))
    h.add_baseline_run(at_merge_base, sha=MERGE, when="2026-01-02T00:00:00Z")
    h.add_baseline_run(newer, sha="f" * 40, when="2026-01-09T00:00:00Z")
    result = h.run()
    assert result.outputs["baseline-pass-rate"] == "1.0000"
    assert MERGE[:7] in _comments(h)[0]["body"]


def _bomb() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("run.json", "{}")
        zf.writestr("filler.bin", b"\0" * (8 * 1024 * 1024))
    return buf.getvalue()


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (make_zip({"run.json": "{}", "../../escaped.txt": "pwned"}), "climbs out"),
        (make_zip({"run.json": "{}", "evil": "/etc/passwd"}, symlinks=("evil",)), "symbolic link"),
        (_bomb(), "zip bomb"),
    ],
    ids=["traversal", "symlink", "bomb"],
)
def test_ci__malicious_baseline_zip__rejected_as_missing(h: Harness, data: bytes, why: str) -> None:
    h.add_baseline_run(data)
    result = h.run()
    assert result.code == 0, result.stderr
    assert result.outputs["status"] == "no-baseline"
    assert why in result.summary
    assert not list(h.tmp.rglob("escaped.txt")) and not list(h.tmp.rglob("evil"))


def test_ci__transient_502__retried_then_succeeds(h: Harness) -> None:
    h.add_baseline_run(h.baseline_zip())
    h.github.state.faults.append(Fault("GET", "/actions/workflows/gate.yml/runs$", 502, times=1))
    result = h.run()
    assert result.outputs["status"] == "passed", result.stderr
    assert len(h.github.state.api_requests("GET", "/workflows/")) == 2


def test_ci__secondary_rate_limit_on_comment__retry_after_honoured(h: Harness) -> None:
    h.github.state.faults.append(
        Fault(
            "POST",
            "/comments$",
            403,
            {"message": "You have exceeded a secondary rate limit"},
            {"retry-after": "1"},
        )
    )
    result = h.run()
    assert result.code == 0, result.stderr
    assert len(_comments(h)) == 1


def test_ci__token__never_reaches_zip_host_or_any_output(h: Harness) -> None:
    h.add_baseline_run(h.baseline_zip())
    result = h.run(fail=tuple(CASES[:8]))
    assert h.github.state.zip_seen and all(s.authorization is None for s in h.github.state.zip_seen)
    produced = [p for p in h.tmp.rglob("*") if p.is_file() and p.suffix != ".py"]
    assert produced
    for text in [result.stdout, result.stderr, *(p.read_text(errors="replace") for p in produced)]:
        assert TOKEN not in text


ACCEPT = "agent-evals:accept-regression"


def test_ci__accept_label_added_after_the_event__read_live_and_accepted_everywhere(h: Harness) -> None:
    h.add_baseline_run(h.baseline_zip())
    h.github.state.labels[5] = ["bug", ACCEPT]  # added after the run's event: the payload has none
    result = h.run(fail=tuple(CASES[:8]), payload=h.pr_event(labels=()))
    assert result.code == 0, result.stderr
    assert (result.outputs["status"], result.outputs["accepted-regression"]) == ("accepted", "true")
    body = _comments(h)[0]["body"]
    assert "Regression accepted" in body and "gate failed" in body
    marker, verdict = body.split("\n")[:2]
    assert marker.startswith("<!-- agent-evals:gate:") and verdict.startswith("### ")
    assert "Regression accepted" in result.summary
    assert f"::notice::Regression accepted with the '{ACCEPT}' label" in result.stdout
    assert h.github.state.api_requests("GET", "/issues/5/labels")


def test_ci__accept_label_removed__replayed_payload_still_carrying_it__gate_fails(h: Harness) -> None:
    h.add_baseline_run(h.baseline_zip())
    h.github.state.labels[5] = []  # removed; a re-run replays the original payload that had it
    result = h.run(fail=tuple(CASES[:8]), payload=h.pr_event(labels=(ACCEPT,)))
    assert result.code == 1
    assert (result.outputs["status"], result.outputs["accepted-regression"]) == ("failed", "false")
    assert "Regression accepted" not in _comments(h)[0]["body"]


def test_ci__labels_unreadable__failed_gate_not_accepted_and_says_why(h: Harness) -> None:
    h.add_baseline_run(h.baseline_zip())
    h.github.state.faults.append(Fault("GET", "/issues/5/labels$", 404, {"message": "Not Found"}))
    result = h.run(fail=tuple(CASES[:8]), payload=h.pr_event(labels=(ACCEPT,)))
    assert result.code == 1 and result.outputs["accepted-regression"] == "false"
    assert "Could not read the labels of pull request #5" in result.stdout


def test_ci__comment_never__posts_nothing(h: Harness) -> None:
    result = h.run("--comment", "never")
    assert result.code == 0
    assert h.github.state.api_requests("POST") == [] and h.github.state.api_requests("GET", "/comments") == []


def test_ci__comment_on_failure__passing_gate_creates_nothing_but_updates_existing(h: Harness) -> None:
    h.add_baseline_run(h.baseline_zip())
    h.run("--comment", "on-failure")
    assert _comments(h) == []
    h.run("--comment", "on-failure", fail=tuple(CASES[:8]))
    h.run("--comment", "on-failure")
    [comment] = _comments(h)
    assert "gate passed" in comment["body"]


def test_ci__two_gates__keep_two_comments(h: Harness) -> None:
    h.run("--gate-id", "fast")
    h.run("--gate-id", "slow")
    h.run("--gate-id", "fast")
    assert len(_comments(h)) == 2


def test_ci__merge_group__compares_without_comment(h: Harness) -> None:
    h.add_baseline_run(h.baseline_zip())
    payload = {
        "repository": {"full_name": REPO, "default_branch": "main"},
        "merge_group": {"base_sha": BASE, "head_sha": HEAD, "base_ref": "refs/heads/main"},
    }
    result = h.run(
        event="merge_group", payload=payload, fail=tuple(CASES[:8]), ref="refs/heads/gh-readonly-queue/main/x"
    )
    assert result.code == 1 and result.outputs["status"] == "failed"
    assert _comments(h) == []


def test_ci__invalid_flag_value__exit_2_names_option(h: Harness) -> None:
    result = h.run("--comment", "sometimes")
    assert result.code == 2
    assert "--comment" in result.stderr


def test_ci__the_run_stops_on_a_usage_error_before_any_case__exit_2_not_a_lost_run(h: Harness) -> None:
    # the child run leaves no empty streamed record behind for ci to take for one that died mid-run
    result = h.run("--agent", "no_such_module_here:answer")
    assert result.code == 2, result.stdout + result.stderr
    assert "no_such_module_here" in result.stdout  # the child's own error, relayed (in Actions: stdout)
    assert "the suites could not run" in result.stderr
    assert _comments(h) == []


def test_ci__locally_with_baseline_file__prints_plain_text_and_keeps_the_markdown_escaped(
    tmp_path: Path,
) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    (work / "bench.yaml").write_text(_benchmark())
    (work / "tiny_agent.py").write_text(AGENT)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        **{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ},
    }
    first = subprocess.run(
        [CLI, "ci", "bench.yaml"], cwd=work, env=env, capture_output=True, text=True, timeout=120
    )
    assert first.returncode == 0, first.stderr
    base = work / ".agent-evals" / "ci" / "run.json"
    (work / "base.json").write_bytes(base.read_bytes())
    env["FAIL_CASES"] = ",".join(CASES[:8])
    second = subprocess.run(
        [CLI, "ci", "bench.yaml", "--baseline", "base.json"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert second.returncode == 1
    out = second.stdout
    assert "gate failed" in out and "c00" in out
    # a terminal gets plain text: no HTML comment, entity or Markdown escape meant for GitHub
    for raw in ("<!--", "&#", "&lt;", "&gt;", "&amp;", "\\[", "\\_", "|---"):
        assert raw not in out, f"{raw!r} in the terminal output:\n{out}"
    folder = work / ".agent-evals" / "ci"
    assert f"Run record written to {folder / 'run.json'}" in out.splitlines()
    assert f"Reports written to {folder}: report.md, report.html, verdict.json, junit.xml" in out.splitlines()
    # the Markdown for GitHub (report.md) stays escaped exactly as before
    markdown = (folder / "report.md").read_text()
    assert markdown.startswith("<!-- agent-evals:gate:local-") and "&#91;" in markdown


def test_ci__comment_rejected_by_api__exit_3_after_writing_outputs(h: Harness) -> None:
    h.github.state.faults.append(Fault("POST", "/comments$", 422, {"message": "Validation Failed"}))
    result = h.run()
    assert result.code == 3
    assert "Could not write the pull request comment" in result.stdout
    assert "HTTP 422" in result.stdout and "POST /repos/octo/demo/issues/5/comments" in result.stdout
    assert result.outputs["status"] == "error"  # exit 3 (no verdict), as the job summary says
    assert "no verdict" in result.summary


def test_ci__push_payload_without_default_branch__asks_the_api(h: Harness) -> None:
    result = h.run(event="push", payload={}, ref="refs/heads/main")
    assert result.code == 0, result.stderr
    assert result.outputs["upload-baseline"] == "true"
    assert [s.path for s in h.github.state.api_requests("GET")] == ["/repos/octo/demo"]


def test_ci__person_quoting_the_marker__their_comment_untouched_ours_created(h: Harness) -> None:
    first = h.run()
    tag = f"<!-- agent-evals:gate:{first.outputs['gate-id']} -->"
    h.github.state.comments[5].clear()
    theirs = h.github.state.add_comment(5, f"{tag}\nwhy did the bot say this?", login="octocat")
    second = h.run()
    assert second.code == 0, second.stderr
    assert theirs["body"] == f"{tag}\nwhy did the bot say this?"
    assert [c["user"]["login"] for c in _comments(h)] == ["octocat", "github-actions[bot]"]
    assert second.outputs["comment-url"] == _comments(h)[1]["html_url"]


@pytest.mark.parametrize("status", [307, 308])
def test_ci__redirect_on_comment_post__exit_3_and_body_not_sent_on(h: Harness, status: int) -> None:
    h.github.state.faults.append(
        Fault("POST", "/comments$", status, headers={"Location": f"{h.github.zip_url}/steal"})
    )
    result = h.run()
    assert result.code == 3
    assert f"HTTP {status}, a redirect" in result.stdout
    assert h.github.state.zip_seen == [] and _comments(h) == []


def test_ci__comment_post_lands_then_502__one_comment_exit_0(h: Harness) -> None:
    h.github.state.faults.append(Fault("POST", "/comments$", 502, land=True))
    result = h.run()
    assert result.code == 0, result.stdout + result.stderr
    assert len(h.github.state.api_requests("POST", "/comments")) == 1 and len(_comments(h)) == 1


def test_ci__comment_write_fails_on_failed_gate__exit_3(h: Harness) -> None:
    h.add_baseline_run(h.baseline_zip())
    h.github.state.faults.append(Fault("POST", "/comments$", 422, {"message": "Validation Failed"}))
    result = h.run(fail=tuple(CASES[:8]))
    assert result.code == 3 and result.outputs["status"] == "error"
    verdict = json.loads(Path(result.outputs["verdict-json"]).read_text())
    assert (verdict["exit_code"], verdict["status"], verdict["verdict"]) == (3, "error", "failed")


def test_ci__five_concurrent_runs_on_one_pr__one_comment(h: Harness) -> None:
    h.github.state.delays.append(Delay("GET", r"/issues/5/comments$", 0.5))
    results: list[Result] = []
    threads = [threading.Thread(target=lambda: results.append(h.run())) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert [r.code for r in results] == [0] * 5, [r.stderr for r in results]
    assert len(_comments(h)) == 1


@pytest.mark.parametrize(
    ("fault", "permission"),
    [
        (
            Fault(
                "GET",
                "/actions/workflows/gate.yml/runs$",
                403,
                {"message": "Resource not accessible by integration"},
            ),
            "actions: read",
        ),
        (
            Fault("POST", "/comments$", 403, {"message": "Resource not accessible by integration"}),
            "pull-requests: write",
        ),
    ],
    ids=["artifacts", "comment"],
)
def test_ci__permission_missing__message_names_the_permission(
    h: Harness, fault: Fault, permission: str
) -> None:
    h.github.state.faults.append(fault)
    result = h.run()
    assert f"`{permission}`" in result.stdout + result.summary


def test_ci__baseline_named_for_the_gate__preferred_over_an_older_bare_upload(h: Harness) -> None:
    good, bad = h.baseline_zip(), h.baseline_zip(fail=tuple(CASES[:10]))
    run_id = h.add_baseline_run(bad)  # the bare `agent-evals-baseline` of an older upload
    gate_id = h.run().outputs["gate-id"]
    h.github.state.add_artifact(run_id, good, name=f"agent-evals-baseline-{gate_id}")
    result = h.run()
    assert result.outputs["baseline-pass-rate"] == "1.0000" and result.outputs["baseline-run-id"] == str(
        run_id
    )
    assert result.outputs["baseline-url"].endswith(f"/actions/runs/{run_id}")


def test_ci__only_a_bare_older_baseline__used_and_the_report_says_so(h: Harness) -> None:
    h.add_baseline_run(h.baseline_zip())
    result = h.run()
    assert result.outputs["status"] == "passed", result.stderr
    assert "of an older upload" in result.summary


def test_ci__workflow_dispatch_on_the_default_branch__records_a_baseline(h: Harness) -> None:
    payload = {"repository": {"full_name": REPO, "default_branch": "main"}}
    result = h.run(event="workflow_dispatch", payload=payload, ref="refs/heads/main")
    assert result.code == 0 and result.outputs["upload-baseline"] == "true"


def test_ci__writes_html_json_and_junit_reports_beside_the_markdown(h: Harness) -> None:
    h.add_baseline_run(h.baseline_zip())
    result = h.run(fail=tuple(CASES[:8]))
    folder = Path(result.outputs["report-dir"])
    assert sorted(p.name for p in folder.iterdir() if p.name != "run.json") == [
        "junit.xml", "report.html", "report.md", "verdict.json",
    ]  # fmt: skip
    assert json.loads(Path(result.outputs["verdict-json"]).read_text())["verdict"] == "failed"
    assert "<testsuite" in Path(result.outputs["junit-xml"]).read_text()
    link = f"(https://github.example/octo/demo/actions/runs/{7000 + h.runs}#artifacts)"  # this run's page
    assert link in _comments(h)[0]["body"]


BROKEN_AGENT = """
from agent_evals import BaseAgent, TaskResult


class NoSimulator(BaseAgent):
    async def setup(self):
        raise ConnectionError("simulator is down")

    async def run_case(self, prompt, **context):
        return TaskResult(output="ok")
"""


def test_ci__agent_setup_raises__record_keeps_errored_cases_other_suites_ran_exit_3(h: Harness) -> None:
    work = h.tmp / "ws"
    work.mkdir()
    (work / "bench.yaml").write_text(_benchmark())
    (work / "tiny_agent.py").write_text(AGENT)
    (work / "broken_agent.py").write_text(BROKEN_AGENT)
    broken = (
        _benchmark()
        .replace("benchmark: tiny", "benchmark: broken")
        .replace("agent: tiny_agent:answer", "agent: broken_agent:NoSimulator")
    )
    (work / "broken.yaml").write_text(broken)
    result = h.run("broken.yaml")
    assert result.code == 3, result.stdout + result.stderr
    assert "Agent setup failed (broken: agent setup failed: ConnectionError: simulator is down)" in (
        result.stdout + result.summary
    )
    suites = {s["id"]: s for s in result.record()["suites"]}
    broken_trials = [t for c in suites["broken"]["cases"] for t in c["trials"]]
    assert broken_trials and all(
        not t["passed"] and "simulator is down" in t["traceback"] for t in broken_trials
    )
    assert all(t["passed"] for c in suites["tiny"]["cases"] for t in c["trials"])


def test_ci__branch_store__push_records_on_the_data_branch_and_the_pr_gate_reads_it(h: Harness) -> None:
    h.github.state.branches["agent-evals-data"] = {}
    payload = {"repository": {"full_name": REPO, "default_branch": "main"}}
    pushed = h.run("--baseline-store", "branch", event="push", payload=payload, ref="refs/heads/main")
    assert pushed.code == 0, pushed.stdout + pushed.stderr
    gate_id = pushed.outputs["gate-id"]
    assert f"{gate_id}/index.json" in h.github.state.branches["agent-evals-data"]
    assert pushed.outputs["baseline-store"] == "branch"
    result = h.run("--baseline-store", "branch", fail=tuple(CASES[:8]))
    assert result.code == 1 and result.outputs["baseline-pass-rate"] == "1.0000"
    assert h.github.state.api_requests("GET", "/actions/workflows/") == []  # no artifact lookup


def test_ci__branch_store_without_the_data_branch__push_exits_3_saying_how_to_create_it(h: Harness) -> None:
    payload = {"repository": {"full_name": REPO, "default_branch": "main"}}
    result = h.run("--baseline-store", "branch", event="push", payload=payload, ref="refs/heads/main")
    assert result.code == 3
    assert "git switch --orphan agent-evals-data" in result.stdout


@pytest.mark.parametrize(
    ("keep", "code", "status"), [("10", 1, "failed"), ("1", 0, "inconclusive")], ids=["history", "no-history"]
)
def test_ci__one_trial_four_flips__earlier_baselines_from_the_store_make_them_fail(
    h: Harness, keep: str, code: int, status: str
) -> None:
    # 4 of 20 one-trial cases flip: McNemar alone cannot reach 0.05 (p = 1/16), but the same cases
    # passed in nine earlier baselines too, which ci reads from the store as the gate's history.
    data = h.baseline_zip()
    h.add_baseline_run(data, sha=MERGE, when="2026-01-02T00:00:00Z")
    for hour in range(9):
        h.add_baseline_run(data, sha=f"{hour}" * 40, when=f"2026-01-01T0{hour}:00:00Z")
    result = h.run("--keep-baselines", keep, fail=tuple(CASES[:4]))
    assert result.code == code, result.stdout + result.stderr
    assert result.outputs["status"] == status


def _edited_zip(data: bytes, edit: Any) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        record = json.loads(zf.read("run.json"))
    edit(record["run"])
    return make_zip({"run.json": json.dumps(record).encode()})


@pytest.mark.parametrize(
    ("edit", "why"),
    [
        (lambda run: run.update(shard={"index": 1, "count": 2}), "a shard record"),
        (lambda run: run.update(complete=False), "an incomplete record"),
    ],
    ids=["shard", "incomplete"],
)
def test_ci__earlier_baselines_that_cannot_be_history__left_out_with_a_note_not_a_failure(
    h: Harness, edit: Any, why: str
) -> None:
    data = h.baseline_zip()
    h.add_baseline_run(data, sha=MERGE, when="2026-01-02T00:00:00Z")
    unfit = _edited_zip(data, edit)
    for hour in range(9):
        h.add_baseline_run(unfit, sha=f"{hour}" * 40, when=f"2026-01-01T0{hour}:00:00Z")
    result = h.run("--keep-baselines", "10", fail=tuple(CASES[:4]))
    assert result.code == 0, result.stdout + result.stderr  # as without history: these weigh nothing
    assert result.outputs["status"] == "inconclusive"
    assert f"9 earlier baseline(s) left out of the history: {why} (9)" in result.summary


def _corrupt_deflate_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("run.json", json.dumps({"schema": "agent-evals/run@1", "pad": "x" * 4000}))
    data = bytearray(buffer.getvalue())
    start = data.index(b"run.json") + len(b"run.json")
    for i in range(start + 10, start + 60):  # scramble the deflate stream, keep the zip's directory
        data[i] ^= 0x5A
    return bytes(data)


UNREADABLE_BASELINES = {
    "schema-invalid": make_zip(
        {"run.json": '{"schema": "agent-evals/run@1", "run": {"git": 5}, "suites": []}'}
    ),
    "corrupt-deflate": _corrupt_deflate_zip(),
    "1000-deep": make_zip(
        {"run.json": '{"schema": "agent-evals/run@1", "x": ' + "[" * 1000 + "]" * 1000 + "}"}
    ),
    "5000-digit-integer": make_zip({"run.json": '{"schema": "agent-evals/run@1", "x": ' + "9" * 5000 + "}"}),
    "not-a-zip": b"this is not a zip archive",
}


@pytest.mark.parametrize("kind", sorted(UNREADABLE_BASELINES))
@pytest.mark.parametrize(("policy", "code"), [("warn", 0), ("fail", 1)])
def test_ci__unreadable_baseline_artifact__on_missing_baseline_decides_and_every_output_says_it_loudly(
    h: Harness, kind: str, policy: str, code: int
) -> None:
    h.add_baseline_run(UNREADABLE_BASELINES[kind])
    result = h.run("--on-missing-baseline", policy)
    assert result.code == code, result.stderr  # never 3: on_missing_baseline decides
    assert result.outputs["status"] == "no-baseline"
    [comment] = _comments(h)
    for text in (comment["body"], result.summary):
        headline = text.splitlines()[1]
        assert "baseline unreadable" in headline and "no regression" not in headline
        assert "could not be read" in text
    assert "> [!WARNING]" in result.summary
    warnings = [line for line in result.stdout.splitlines() if line.startswith("::warning")]
    assert any("baseline" in w and "could not be read" in w for w in warnings), result.stdout
    verdict = json.loads(Path(result.outputs["verdict-json"]).read_text())
    assert verdict["baseline"]["unreadable"]


def test_ci__no_baseline_yet__not_called_unreadable(h: Harness) -> None:
    result = h.run()
    assert result.code == 0
    assert "unreadable" not in result.summary and "could not be read" not in result.summary


@pytest.mark.parametrize("die_code", ["0", "1", "9"])
def test_ci__child_dies_after_a_green_comment__the_comment_says_no_verdict_exit_3(
    h: Harness, die_code: str
) -> None:
    h.add_baseline_run(h.baseline_zip())
    green = h.run()
    assert green.code == 0 and "gate passed" in _comments(h)[0]["body"]
    dead = h.run(extra_env={"DIE_CASES": "c05", "DIE_CODE": die_code})
    assert dead.code == 3, dead.stdout + dead.stderr
    [comment] = _comments(h)  # the same sticky comment, never a second one
    assert comment["html_url"] == green.outputs["comment-url"] == dead.outputs["comment-url"]
    body = comment["body"]
    assert body.startswith(f"<!-- agent-evals:gate:{dead.outputs['gate-id']} -->")
    # no record: "no verdict"; a streamed partial record: the cases it finished, "run incomplete"
    assert "did not finish" in body.lower() and "gate passed" not in body
    assert "dying on c05" in body
    assert dead.outputs["status"] in ("error", "incomplete")


@pytest.mark.parametrize(("mode", "comments"), [("always", 1), ("on-failure", 1), ("never", 0)])
def test_ci__child_dies_with_no_comment_yet__comment_mode_decides(
    h: Harness, mode: str, comments: int
) -> None:
    h.add_baseline_run(h.baseline_zip())
    dead = h.run("--comment", mode, extra_env={"DIE_CASES": "c05"})
    assert dead.code == 3
    assert len(_comments(h)) == comments
    if comments:
        assert "did not finish" in _comments(h)[0]["body"].lower()


def test_ci__child_dies_and_the_comment_cannot_be_written__still_exit_3_with_a_notice(h: Harness) -> None:
    h.add_baseline_run(h.baseline_zip())
    h.github.state.read_only = True
    dead = h.run(extra_env={"DIE_CASES": "c05"})
    assert dead.code == 3
    assert "::notice::Could not comment on pull request #5" in dead.stdout
    assert "did not finish" in dead.summary.lower()


@pytest.mark.parametrize(("policy", "code"), [("fail", 1), ("warn", 0)])
def test_ci__shard_record_as_baseline_file__unchecked_cases_follow_on_missing_baseline(
    h: Harness, tmp_path: Path, policy: str, code: int
) -> None:
    h.run()  # writes the workspace
    shard = tmp_path / "shard.json"
    made = subprocess.run(
        [CLI, "run", "bench.yaml", "--shard", "1/2", "--output", str(shard), "--quiet"],
        cwd=h.tmp / "ws", capture_output=True, text=True, timeout=120, env={**os.environ, "FAIL_CASES": ""},
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    held = {c["id"].split("/")[-1] for s in json.loads(shard.read_text())["suites"] for c in s["cases"]}
    assert 0 < len(held) < len(CASES)
    # every case the shard lacks fails now; the ones it holds pass as before
    lacking = tuple(c for c in CASES if c not in held)
    result = h.run("--baseline", str(shard), "--on-missing-baseline", policy, fail=lacking)
    assert result.code == code, result.stdout + result.stderr
    assert "the baseline is shard 1/2 of a run" in result.summary


def test_ci__reuse_unchanged__nothing_changed__pr_reuses_the_artifact_baseline_and_says_so(
    h: Harness,
) -> None:
    h.add_baseline_run(h.baseline_zip())
    result = h.run("--reuse-unchanged")
    assert result.code == 0, result.stderr
    assert result.outputs["status"] == "reused" and result.outputs["pass-rate"] == ""
    [suite] = result.record()["suites"]
    assert suite["reused"]["run_id"] == "7001" and suite["reused"]["sha"] == HEAD
    body = _comments(h)[0]["body"]
    assert "nothing ran" in body.splitlines()[1] and "gate passed" not in body
    assert "Reused from the baseline" in body and "Reused from the baseline" in result.summary


def test_ci__reuse_unchanged__env_the_agent_reads_changed__suite_runs_and_the_regression_fails(
    h: Harness,
) -> None:
    h.add_baseline_run(h.baseline_zip())
    result = h.run("--reuse-unchanged", fail=tuple(CASES[:8]))
    assert result.code == 1, result.stderr
    assert result.outputs["status"] == "failed"
    assert "reused" not in result.record()["suites"][0]
    assert "environment changed" in _comments(h)[0]["body"]


def test_ci__reuse_unchanged_on_a_push_to_main__builds_a_full_baseline_with_digests(h: Harness) -> None:
    h.add_baseline_run(h.baseline_zip())
    payload = {"repository": {"full_name": REPO, "default_branch": "main"}}
    result = h.run("--reuse-unchanged", event="push", payload=payload, ref="refs/heads/main")
    assert result.code == 0, result.stderr
    assert result.outputs["upload-baseline"] == "true"
    [suite] = result.record()["suites"]
    assert "reused" not in suite and len(suite["inputs"]["digest"]) == 32
    assert "Nothing reused: this run builds a baseline" in Path(result.outputs["report"]).read_text()


FAR = str(int(time.time()) + 7200)  # a rate limit that resets later than the client waits (900 s)


def _unavailable() -> dict[str, list[Fault]]:
    """Fresh faults per test (a Fault counts down its uses)."""
    return {
        "runs-list-502": [Fault("GET", "/actions/workflows/gate.yml/runs$", 502, times=10)],
        "artifacts-rate-limited-403": [
            Fault(
                "GET",
                "/runs/\\d+/artifacts$",
                403,
                {"message": "API rate limit exceeded for installation ID 1."},
                {"x-ratelimit-remaining": "0", "x-ratelimit-reset": FAR},
                times=10,
            )
        ],
        "zip-429-retry-after-far": [
            Fault("GET", "/zip$", 429, {"message": "slow down"}, {"retry-after": "3600"})
        ],
    }


@pytest.mark.parametrize(
    "kind",
    [*sorted(_unavailable()), "storage-host-refuses", "history-zip-rate-limited", "branch-store-429"],
)
def test_ci__github_gives_no_usable_answer_for_the_baseline__no_verdict_exit_3_never_a_pass(
    h: Harness, kind: str
) -> None:
    # a real regression stands behind the fault: it must never read as "no baseline, gate passed",
    # not even with on_missing_baseline pass (the baseline is unknown, not missing)
    older = h.add_baseline_run(h.baseline_zip(), sha="a" * 40, when="2026-01-01T00:00:00Z")
    h.add_baseline_run(h.baseline_zip())
    h.github.state.faults += _unavailable().get(kind, [])
    if kind == "storage-host-refuses":  # every signed URL refused, fresh ones included
        h.github.state.expire_storage_urls = 10
    if kind == "history-zip-rate-limited":  # the earlier baseline weighs flips: losing it is no pass either
        [artifact] = h.github.state.artifacts[older]
        h.github.state.faults.append(
            Fault("GET", f"/artifacts/{artifact['id']}/zip$", 429, {"message": "x"}, {"retry-after": "3600"})
        )
    store: tuple[str, ...] = ()
    if kind == "branch-store-429":  # the data branch holds the baseline; reading it is rate limited
        store = ("--baseline-store", "branch")
        h.github.state.branches["agent-evals-data"] = {}
        payload = {"repository": {"full_name": REPO, "default_branch": "main"}}
        assert h.run(*store, event="push", payload=payload, ref="refs/heads/main").code == 0
        h.github.state.faults.append(
            Fault("GET", "/contents/", 429, {"message": "x"}, {"retry-after": "3600"}, times=10)
        )
    result = h.run(*store, "--on-missing-baseline", "pass", fail=tuple(CASES[:8]))
    assert result.code == 3, result.stdout + result.stderr
    assert result.outputs["status"] == "error"
    [comment] = _comments(h)
    for text in (comment["body"], result.summary):
        headline = text.splitlines()[1]
        assert "no verdict" in headline and "passed" not in headline, headline
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error::")]
    assert any("GitHub could not be asked for the baseline" in e for e in errors), result.stdout
    assert TOKEN not in result.stdout + result.stderr + result.summary + comment["body"]


NEWER = "f" * 40


@pytest.mark.parametrize(
    ("live_head", "rewritten"),
    [(NEWER, False), (HEAD, True), (None, True)],
    ids=["superseded-run-leaves-it", "current-run-updates-it", "pull-unreadable-updates-it"],
)
def test_ci__run_of_an_older_commit_finishing_last__never_overwrites_the_newer_commits_comment(
    h: Harness, live_head: str | None, rewritten: bool
) -> None:
    h.add_baseline_run(h.baseline_zip())
    h.github.state.merge_bases[f"{BASE}...{NEWER}"] = (MERGE, "2026-01-02T00:00:00Z")
    newer = h.pr_event()
    newer["pull_request"]["head"]["sha"] = NEWER
    failed = h.run(fail=tuple(CASES[:8]), payload=newer)
    assert failed.code == 1 and "gate failed" in _comments(h)[0]["body"]
    if live_head is not None:  # GET /pulls/5 says where the pull request's head is now
        h.github.state.add_pull(5, head_sha=live_head)
    # a slow or re-run job of the older commit (its payload names HEAD) passes and finishes last
    stale = h.run()
    assert stale.code == 0, stale.stdout + stale.stderr
    [comment] = _comments(h)
    assert ("gate passed" in comment["body"]) is rewritten, comment["body"]
    assert ("gate failed" in comment["body"]) is not rewritten
    if not rewritten:
        assert stale.outputs["comment-url"] == ""
        assert f"::notice::Pull request #5 has moved on to {NEWER[:12]}" in stale.stdout
        assert "gate passed" in stale.summary  # the run's own report stays in its job summary
