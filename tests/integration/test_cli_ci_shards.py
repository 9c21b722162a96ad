"""A fake matrix: four `run --shard` jobs, then `ci --shards` merges, compares and comments once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_evals.github.actions_io import parse_outputs
from servers.github_server import TOKEN, GitHubServer, make_zip

CLI = str(Path(sys.executable).parent / "agent-evals")
REPO = "octo/demo"
BASE, HEAD, MERGE = "b" * 40, "e" * 40, "d" * 40
CASES = [f"c{i:02d}" for i in range(20)]
AGENT = 'import os\n\ndef answer(prompt):\n    return "bad" if prompt in os.environ.get("FAIL_CASES", "").split(",") else "ok"\n'


def _benchmark() -> str:
    lines = ["benchmark: tiny", "agent: tiny_agent:answer", "execution:", "  runs_per_scenario: 1"]
    lines += ["capabilities:", "  - name: math", "    scenarios:"]
    for case in CASES:
        lines += [f"      - id: {case}", f"        prompt: {case}", "        success:"]
        lines += ["          output: {contains: ok}"]
    return "\n".join(lines) + "\n"


class Matrix:
    """A workspace with a 20-case benchmark, run as a matrix of shard jobs and one gate job."""

    def __init__(self, tmp: Path, github: GitHubServer) -> None:
        self.tmp, self.github, self.jobs = tmp, github, 0
        self.work = tmp / "ws"
        self.work.mkdir()
        (self.work / "bench.yaml").write_text(_benchmark())
        (self.work / "tiny_agent.py").write_text(AGENT)

    def env(
        self, event: str, ref: str, fail: tuple[str, ...], sha: str = HEAD
    ) -> tuple[dict[str, str], Path]:
        self.jobs += 1
        meta = self.tmp / f"job{self.jobs}"
        meta.mkdir()
        payload: dict[str, Any] = {"repository": {"full_name": REPO, "default_branch": "main"}}
        if event == "pull_request":
            payload |= {
                "number": 5,
                "pull_request": {
                    "number": 5,
                    "labels": [],
                    "base": {"sha": BASE, "ref": "main", "repo": {"full_name": REPO}},
                    "head": {"sha": HEAD, "ref": "feature", "repo": {"full_name": REPO}},
                },
            }
        (meta / "event.json").write_text(json.dumps(payload))
        env = {
            "PATH": os.environ["PATH"],
            # the code under test, when it is not the installed one (a checkout on PYTHONPATH)
            **{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ},
            "HOME": str(self.tmp),
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": event,
            "GITHUB_EVENT_PATH": str(meta / "event.json"),
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_API_URL": self.github.api_url,
            "GITHUB_SERVER_URL": "https://github.example",
            "GITHUB_SHA": sha,
            "GITHUB_REF": ref,
            "GITHUB_RUN_ID": str(7000 + self.jobs),
            "GITHUB_JOB": "gate",
            "GITHUB_WORKFLOW_REF": f"{REPO}/.github/workflows/gate.yml@{ref}",
            "GITHUB_WORKSPACE": str(self.work),
            "GITHUB_STEP_SUMMARY": str(meta / "summary.md"),
            "GITHUB_OUTPUT": str(meta / "output.txt"),
            "GITHUB_TOKEN": TOKEN,
            "FAIL_CASES": ",".join(fail),
            "AGENT_EVALS_OUTPUT_DIR": str(meta / "out"),
        }
        return env, meta

    def shard_jobs(
        self, count: int, *, skip: tuple[int, ...] = (), fail: tuple[str, ...] = (), sha: str = HEAD
    ) -> Path:
        """Run the shard jobs (each its own process); their records land in one folder, as
        download-artifact with merge-multiple leaves them."""
        folder = self.tmp / f"shards{self.jobs}"
        folder.mkdir()
        for index in range(1, count + 1):
            if index in skip:
                continue
            env, _ = self.env("pull_request", "refs/pull/5/merge", fail, sha)
            out = folder / f"shard-{index}.json"
            done = subprocess.run(
                [CLI, "run", "bench.yaml", "-q", "--shard", f"{index}/{count}", "-o", str(out)],
                cwd=self.work,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert done.returncode == 0, done.stderr
        return folder

    def ci(
        self,
        *args: str,
        event: str = "pull_request",
        ref: str = "refs/pull/5/merge",
        fail: tuple[str, ...] = (),
    ) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
        env, meta = self.env(event, ref, fail)
        done = subprocess.run(
            [CLI, "ci", "bench.yaml", *args],
            cwd=self.work,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        out = meta / "output.txt"
        return done, parse_outputs(out.read_text()) if out.exists() else {}

    def baseline(self) -> None:
        """A baseline from the default branch: the unsharded run, as the action uploads it."""
        done, outputs = self.ci(event="push", ref="refs/heads/main")
        assert done.returncode == 0, done.stderr
        data = make_zip({"run.json": Path(outputs["run-record"]).read_bytes()})
        self.github.state.add_run(
            workflow="gate.yml", head_sha=MERGE, created_at="2026-01-02T00:00:00Z", artifact=data
        )

    def comments(self) -> list[dict[str, Any]]:
        return list(self.github.state.comments.get(5, []))


@pytest.fixture
def matrix(tmp_path: Path) -> Iterator[Matrix]:
    with GitHubServer() as github:
        github.state.runs["gate.yml"] = []
        github.state.labels[5] = []
        github.state.merge_bases[f"{BASE}...{HEAD}"] = (MERGE, "2026-01-02T00:00:00Z")
        yield Matrix(tmp_path, github)


def test_four_shards_merged__one_comment_and_the_verdict_of_the_whole_run(matrix: Matrix) -> None:
    matrix.baseline()
    folder = matrix.shard_jobs(4)
    done, outputs = matrix.ci("--shards", str(folder))
    assert done.returncode == 0, done.stdout + done.stderr
    assert outputs["status"] == "passed"
    assert outputs["pass-rate"] == "1.0000"
    record = json.loads(Path(outputs["run-record"]).read_text())
    assert "shard" not in record["run"] and record["run"]["complete"] is True
    assert len(record["suites"][0]["cases"]) == len(CASES)
    [comment] = matrix.comments()
    assert "gate passed" in comment["body"]


def test_a_regression_in_one_shard_fails_the_merged_gate(matrix: Matrix) -> None:
    matrix.baseline()
    folder = matrix.shard_jobs(4, fail=tuple(CASES[:8]))
    done, outputs = matrix.ci("--shards", str(folder))
    assert done.returncode == 1, done.stdout + done.stderr
    assert (outputs["status"], outputs["regressions"]) == ("failed", "8")
    [comment] = matrix.comments()
    assert "gate failed" in comment["body"]


def test_a_missing_shard_never_passes__incomplete_exit_3_and_no_baseline_upload(matrix: Matrix) -> None:
    matrix.baseline()
    folder = matrix.shard_jobs(4, skip=(3,))
    done, outputs = matrix.ci("--shards", str(folder))
    assert done.returncode == 3, done.stdout + done.stderr
    assert outputs["status"] == "incomplete"
    assert outputs["upload-baseline"] == "false"
    assert "shard 3/4" in done.stdout + done.stderr
    [comment] = matrix.comments()
    assert "incomplete" in comment["body"]


def test_merged_shards_on_the_default_branch_become_the_baseline_only_when_complete(matrix: Matrix) -> None:
    whole = matrix.shard_jobs(4)
    done, outputs = matrix.ci("--shards", str(whole), event="push", ref="refs/heads/main")
    assert done.returncode == 0, done.stderr
    assert outputs["upload-baseline"] == "true"
    partial = matrix.shard_jobs(4, skip=(1,))
    done, outputs = matrix.ci("--shards", str(partial), event="push", ref="refs/heads/main")
    assert outputs["upload-baseline"] == "false"
    assert done.returncode != 0


def test_overlapping_shards__exit_2_before_any_comment(matrix: Matrix) -> None:
    folder = matrix.shard_jobs(4)
    (folder / "again.json").write_bytes((folder / "shard-2.json").read_bytes())
    done, _ = matrix.ci("--shards", str(folder))
    assert done.returncode == 2
    assert "shard 2/4 was already given" in done.stderr
    assert matrix.comments() == []


def test_no_shard_records__exit_2_saying_so(matrix: Matrix, tmp_path: Path) -> None:
    empty = tmp_path / "none"
    empty.mkdir()
    done, _ = matrix.ci("--shards", str(empty))
    assert done.returncode == 2
    assert "no shard records" in done.stderr


def test_shard_records_of_another_commit__exit_2_before_any_comment(matrix: Matrix) -> None:
    matrix.baseline()
    folder = matrix.shard_jobs(4, sha="a" * 40)  # an older push's passing shards, handed to this job
    done, outputs = matrix.ci("--shards", str(folder))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"was run on commit {'a' * 40}, but this job checks commit {HEAD}" in done.stderr
    assert outputs.get("status") != "passed"
    assert matrix.comments() == []


def test_a_shard_set_lacking_the_last_case__exit_2_before_any_comment(matrix: Matrix) -> None:
    matrix.baseline()
    folder = matrix.shard_jobs(4, fail=(CASES[-1],))
    for path in folder.glob("*.json"):  # the shard holding the failing last case drops it
        record = json.loads(path.read_text())
        [suite] = record["suites"]
        if len(CASES) - 1 in suite["case_positions"]:
            i = suite["case_positions"].index(len(CASES) - 1)
            del suite["cases"][i], suite["case_positions"][i]
            path.write_text(json.dumps(record))
    done, outputs = matrix.ci("--shards", str(folder))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"position {len(CASES)} of the suite" in done.stderr
    assert outputs.get("status") != "passed"
    assert matrix.comments() == []
