"""`agent-evals init`: the scaffold matches its golden copy, passes `run` right after, never overwrites.

Set UPDATE_GOLDEN=1 to rewrite tests/golden/init/scaffold.txt after an intended change, then review it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "init" / "scaffold.txt"
BIN = Path(sys.executable).parent
CLI = str(BIN / "agent-evals")
SCAFFOLD = [
    "benchmarks/todo.yaml",
    "benchmarks/todo_agent.py",
    "evals/eval_todo.py",
    "agent-evals.yaml",
    ".github/workflows/agent-evals.yml",
    ".github/workflows/agent-evals-publish.yml",
]


def _git_env(home: Path, **config: str) -> dict[str, str]:
    """An environment whose git reads no user or system config but ``config``, and no repository above ``home``."""
    gitconfig = Path(os.devnull)
    if config:
        gitconfig = home / ".gitconfig-for-test"
        lines = [f"[{key.split('.')[0]}]\n\t{key.split('.')[1]} = {value}\n" for key, value in config.items()]
        gitconfig.write_text("".join(lines), encoding="utf-8")
    env = dict(os.environ, GIT_CONFIG_GLOBAL=str(gitconfig), GIT_CONFIG_NOSYSTEM="1")
    env["GIT_CEILING_DIRECTORIES"] = str(home)
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t")
    env["GIT_COMMITTER_EMAIL"] = "t@example.com"
    return env


def _cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = env if env is not None else _git_env(cwd)  # a developer's init.defaultBranch must not leak in
    return subprocess.run(
        [CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False, env=env
    )


def _git(*args: str, cwd: Path, env: dict[str, str]) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True, timeout=60)


def _snapshot(stdout: str, root: Path) -> str:
    parts = [f"=== stdout ===\n{stdout}"]
    files = sorted(p for p in root.rglob("*") if p.is_file())
    parts += [f"=== {p.relative_to(root).as_posix()} ===\n{p.read_text(encoding='utf-8')}" for p in files]
    return "".join(parts)


def test_init__output_and_files_match_the_golden_scaffold(tmp_path: Path) -> None:
    done = _cli("init", "proj", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = _snapshot(done.stdout, tmp_path / "proj")
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8"), f"run UPDATE_GOLDEN=1 pytest {__file__} and review"


def test_init__then_run_validate_list_without_arguments__find_the_suites_and_pass(tmp_path: Path) -> None:
    assert _cli("init", cwd=tmp_path).returncode == 0
    ran = _cli("run", "--fail-under", "1.0", "-o", "run.json", cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    record = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    assert sorted(s["id"] for s in record["suites"]) == ["evals/eval_todo.py", "todo"]
    trials = [t for s in record["suites"] for c in s["cases"] for t in c["trials"]]
    assert len(trials) == 11 and all(t["passed"] for t in trials)
    validated = _cli("validate", cwd=tmp_path)
    assert validated.returncode == 0, validated.stderr
    assert "Valid: 2 file(s), 5 cases, 11 trials" in validated.stdout
    listed = json.loads(_cli("list", "--json", cwd=tmp_path).stdout)
    assert {c["id"] for s in listed["suites"] for c in s["cases"]} == {
        c["id"] for s in record["suites"] for c in s["cases"]
    }


def test_init__scaffolded_benchmark_fails_a_broken_agent(tmp_path: Path) -> None:
    assert _cli("init", cwd=tmp_path).returncode == 0
    agent = tmp_path / "benchmarks" / "todo_agent.py"
    source = agent.read_text(encoding="utf-8")
    assert 'items[item] = "done"' in source
    agent.write_text(source.replace('items[item] = "done"', 'items[item] = "open"'), encoding="utf-8")
    ran = _cli("run", "benchmarks", "--fail-under", "1.0", cwd=tmp_path)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "FAIL complete/complete-milk" in ran.stdout


def test_init__python_files_pass_ruff_and_the_workflow_runs_the_scaffold(tmp_path: Path) -> None:
    assert _cli("init", cwd=tmp_path).returncode == 0
    lint = subprocess.run(
        [str(BIN / "ruff"), "check", "--isolated", "--select", "E,F,W,I,B,UP", "--line-length", "110", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert lint.returncode == 0, lint.stdout
    workflow = yaml.safe_load((tmp_path / ".github/workflows/agent-evals.yml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["gate"]["steps"]
    assert steps[-1]["with"]["path"].split() == ["benchmarks", "evals"]
    assert workflow["permissions"] == {}


def test_init__never_overwrites_existing_files(tmp_path: Path) -> None:
    mine = {"agent-evals.yaml": "gate:\n  max_drop: 0.1\n", "benchmarks/todo.yaml": "# my own benchmark\n"}
    for rel, text in mine.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    done = _cli("init", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for rel, text in mine.items():
        assert (tmp_path / rel).read_text(encoding="utf-8") == text
        assert f"kept     {rel} (it exists; not overwritten)" in done.stdout
    assert all((tmp_path / rel).is_file() for rel in SCAFFOLD)
    before = {rel: (tmp_path / rel).read_bytes() for rel in SCAFFOLD}
    again = _cli("init", cwd=tmp_path)
    assert again.returncode == 0 and "created" not in again.stdout
    assert {rel: (tmp_path / rel).read_bytes() for rel in SCAFFOLD} == before


def test_init__dir_that_is_a_file__exit_2_writing_nothing(tmp_path: Path) -> None:
    (tmp_path / "a-file.txt").write_text("x", encoding="utf-8")
    done = _cli("init", "a-file.txt", cwd=tmp_path)
    assert done.returncode == 2
    assert "exists and is not a folder" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file.txt"]


def _repo_on_master(root: Path, env: dict[str, str]) -> Path:
    _git("init", "-q", "-b", "master", str(root / "proj"), cwd=root, env=env)
    return root / "proj"


def _clone_of_trunk_on_a_feature_branch(root: Path, env: dict[str, str]) -> Path:
    upstream = root / "upstream"
    _git("init", "-q", "-b", "trunk", str(upstream), cwd=root, env=env)
    _git("commit", "-q", "--allow-empty", "-m", "first", cwd=upstream, env=env)
    _git("clone", "-q", str(upstream), str(root / "proj"), cwd=root, env=env)
    _git("checkout", "-q", "-b", "my-feature", cwd=root / "proj", env=env)
    return root / "proj"


def _no_repository(root: Path, env: dict[str, str]) -> Path:
    (root / "proj").mkdir()
    return root / "proj"


@pytest.mark.parametrize(
    ("make_project", "config", "branch", "found_by"),
    [
        pytest.param(_repo_on_master, {}, "master", "the branch checked out here", id="git-init-b-master"),
        pytest.param(
            _clone_of_trunk_on_a_feature_branch, {}, "trunk", "origin's HEAD", id="origin-head-trunk"
        ),
        pytest.param(
            _no_repository, {"init.defaultBranch": "develop"}, "develop", "init.defaultBranch", id="no-repo"
        ),
        pytest.param(_no_repository, {}, "main", "no git repository", id="no-repo-no-config"),
    ],
)
def test_init__in_a_repository__workflow_records_baselines_on_its_default_branch(
    tmp_path: Path, make_project: Any, config: dict[str, str], branch: str, found_by: str
) -> None:
    env = _git_env(tmp_path, **config)
    project = make_project(tmp_path, env)
    done = _cli("init", cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    workflow_text = (project / ".github/workflows/agent-evals.yml").read_text(encoding="utf-8")
    workflow = yaml.safe_load(workflow_text)
    assert workflow[True]["push"]["branches"] == [branch]  # YAML 1.1 reads the key `on` as True
    assert f"pushes to {branch} record" in workflow_text
    assert f"records baselines on pushes to {branch} ({found_by})" in done.stdout, done.stdout


def test_init__closing_lines__say_what_to_edit_in_the_workflows_before_pushing(tmp_path: Path) -> None:
    done = _cli("init", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Before you push" in done.stdout, done.stdout
    assert "<owner>/agent-evals@<commit-sha>" in done.stdout
    for rel in (".github/workflows/agent-evals.yml", ".github/workflows/agent-evals-publish.yml"):
        assert rel in done.stdout.split("Before you push")[1]
        assert "<owner>/agent-evals@<commit-sha>" in (tmp_path / rel).read_text(encoding="utf-8")
