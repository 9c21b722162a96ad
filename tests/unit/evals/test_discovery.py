"""Finding eval files and benchmark YAML, and importing eval files by path."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agent_evals.errors import EvalFileError, UsageError
from agent_evals.evals.discovery import collect, eval_functions, import_eval_file


def _touch(root: Path, rel: str, text: str = "") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_collect_directory__finds_eval_patterns_recursively_and_benchmark_yaml(tmp_path: Path) -> None:
    for rel in [
        "eval_a.py",
        "sub/b_eval.py",
        "sub/deep/evals.py",
        "helpers.py",
        "test_x.py",
        ".hidden/eval_h.py",
    ]:
        _touch(tmp_path, rel)
    _touch(tmp_path, "bench.yaml", "benchmark:\n  id: x\n")
    _touch(tmp_path, "sub/caps.yml", "# comment\ncapabilities: []\n")
    _touch(tmp_path, "config.yaml", "name: not a benchmark\n")
    found = collect([tmp_path])
    assert [p.relative_to(tmp_path).as_posix() for p in found.eval_files] == [
        "eval_a.py",
        "sub/b_eval.py",
        "sub/deep/evals.py",
    ]
    assert [p.relative_to(tmp_path).as_posix() for p in found.benchmark_files] == [
        "bench.yaml",
        "sub/caps.yml",
    ]


def test_collect_explicit_file__accepts_any_python_name_once(tmp_path: Path) -> None:
    path = _touch(tmp_path, "checks.py")
    assert collect([path, path]).eval_files == [path]


@pytest.mark.parametrize(
    ("rel", "message"), [("missing.py", "no such file"), ("notes.txt", "not an eval file")]
)
def test_collect_bad_path__is_a_usage_error(tmp_path: Path, rel: str, message: str) -> None:
    if rel.endswith(".txt"):
        _touch(tmp_path, rel)
    with pytest.raises(UsageError, match=message):
        collect([tmp_path / rel])


@pytest.mark.parametrize(
    ("source", "fragment"),
    [
        ("import does_not_exist_xyz\n", "ModuleNotFoundError: No module named 'does_not_exist_xyz'"),
        ("def broken(:\n", "SyntaxError"),
        ("raise SystemExit(3)\n", "SystemExit: 3"),
        ("from agent_evals import eval\n@eval(trials=0)\ndef f():\n    pass\n", "trials= must be"),
    ],
)
def test_import_failure__raises_eval_file_error_naming_file_and_cause(
    eval_file: Callable[..., Path], source: str, fragment: str
) -> None:
    path = eval_file(source, "eval_broken.py")
    with pytest.raises(EvalFileError) as info:
        import_eval_file(path)
    assert str(path) in str(info.value) and fragment in str(info.value)


def test_import__sibling_modules_are_importable_and_a_helper_module_s_eval_runs_in_the_file(
    eval_file: Callable[..., Path],
) -> None:
    eval_file("from agent_evals import eval\n\n@eval\ndef shared():\n    pass\n", "shared_lib_mod.py")
    path = eval_file(
        "from shared_lib_mod import shared\nfrom agent_evals import eval\n\n@eval\ndef own():\n    pass\n",
        "eval_uses_sibling.py",
    )
    module = import_eval_file(path)
    # an eval bound in the eval file runs there unless another eval file holds it (issue 28): a
    # helper module's eval imported into the file is the file's
    assert [fn.name for fn in eval_functions(module)] == ["shared", "own"]


def test_import__evals_imported_from_another_eval_file__left_to_that_file(
    eval_file: Callable[..., Path],
) -> None:
    eval_file("from agent_evals import eval\n\n@eval\ndef theirs():\n    pass\n", "eval_sibling_src.py")
    path = eval_file(
        "from eval_sibling_src import theirs\nfrom agent_evals import eval\n\n@eval\ndef own():\n    pass\n",
        "eval_uses_eval_sibling.py",
    )
    module = import_eval_file(path)
    assert [fn.name for fn in eval_functions(module)] == ["own"]
