"""Eval suite ids are relative to the project root, so `cd evals && agent-evals run .` and
`agent-evals run evals` give the same ids."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from agent_evals.evals.suite_ids import project_root, suite_id
from agent_evals.run.session import RunBuilder, run_paths

EVAL = """
from agent_evals import eval, EvalContext

@eval(input="hi")
def test_hi(ctx: EvalContext):
    ctx.output = "hi"
"""


@pytest.mark.parametrize(
    ("marker", "is_dir"),
    [(".git", True), (".git", False), ("pyproject.toml", False), ("agent-evals.yaml", False)],
)
def test_project_root__nearest_marked_folder_above_the_file(
    tmp_path: Path, marker: str, is_dir: bool
) -> None:
    root = tmp_path / "repo"
    (root / "evals" / "deep").mkdir(parents=True)
    (root / marker).mkdir() if is_dir else (root / marker).write_text("", encoding="utf-8")
    file = root / "evals" / "deep" / "eval_x.py"
    assert project_root(file) == root.resolve()
    assert suite_id(file, cwd=root / "evals") == suite_id(file, cwd=tmp_path) == "evals/deep/eval_x.py"


def test_project_root__git_root_wins_over_a_nested_pyproject(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pkg" / "evals").mkdir(parents=True)
    (tmp_path / "pkg" / "pyproject.toml").write_text("", encoding="utf-8")
    assert suite_id(tmp_path / "pkg" / "evals" / "eval_x.py", cwd=tmp_path / "pkg") == "pkg/evals/eval_x.py"


def test_suite_id__outside_any_project__relative_to_the_working_directory_as_before(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    file = tmp_path / "evals" / "eval_x.py"
    if project_root(file) is not None:
        pytest.skip("the temporary folder is inside a project on this machine")
    assert suite_id(file, cwd=tmp_path) == "evals/eval_x.py"
    assert suite_id(file, cwd=tmp_path / "evals") == "eval_x.py"


def test_run_paths__from_the_root_or_from_inside_evals__same_suite_and_case_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "eval_support.py").write_text(textwrap.dedent(EVAL), encoding="utf-8")
    seen = []
    for cwd, path in ((tmp_path, "evals"), (tmp_path / "evals", ".")):
        monkeypatch.chdir(cwd)
        record = run_paths([path], builder=RunBuilder(env={}, cwd=cwd))
        suite = record.suites[0]
        seen.append((suite.id, [c.id for c in suite.cases], record.run.suite_ids))
    assert seen[0] == seen[1] == ("evals/eval_support.py", ["evals/eval_support.py::test_hi"], "project-root")
