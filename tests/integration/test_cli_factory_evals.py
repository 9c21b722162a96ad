"""`run`, `list` and the pytest plugin run an ``@eval`` made by a factory and bound in the eval file;
only an eval imported from another eval file of the run is left to that file."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

CLI = str(Path(sys.executable).with_name("agent-evals"))

HELPERS = """
from agent_evals import EvalContext, eval

def make_eval(name, answer):
    @eval(input=name)
    def check(ctx: EvalContext) -> None:
        assert answer == 4, f"{name}: expected 4, got {answer}"
    check.__name__ = name
    return check
"""

EVAL_MATH = """
from agent_evals import eval
from helpers import make_eval

@eval()
def test_plain():
    return True

test_sum = make_eval("test_sum", 2 + 2)
test_broken = make_eval("test_broken", 2 + 3)
"""


def _project(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def _run(root: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    out = root / "run.json"
    done = subprocess.run(
        [CLI, "run", *args, "-q", "-o", str(out)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    record = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    return done, record


def _cases(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for s in record.get("suites", []) for c in s["cases"]}


def test_run__factory_made_eval_bound_in_the_eval_file__runs_and_its_failure_fails_the_run(
    tmp_path: Path,
) -> None:
    _project(tmp_path, {"evals/helpers.py": HELPERS, "evals/eval_math.py": EVAL_MATH})
    done, record = _run(tmp_path, "evals", "--fail-under", "1")
    assert done.returncode == 1, done.stdout + done.stderr
    cases = _cases(record)
    assert sorted(cases) == [
        "evals/eval_math.py::test_broken",
        "evals/eval_math.py::test_plain",
        "evals/eval_math.py::test_sum",
    ]
    assert [t["passed"] for t in cases["evals/eval_math.py::test_broken"]["trials"]] == [False]
    assert cases["evals/eval_math.py::test_broken"]["location"] == {"file": "evals/eval_math.py", "line": 9}
    assert list(cases) == [  # in the order the file binds them
        "evals/eval_math.py::test_plain",
        "evals/eval_math.py::test_sum",
        "evals/eval_math.py::test_broken",
    ]


def test_list__factory_made_evals_are_listed_like_run_runs_them(tmp_path: Path) -> None:
    _project(tmp_path, {"evals/helpers.py": HELPERS, "evals/eval_math.py": EVAL_MATH})
    done = subprocess.run(
        [CLI, "list", "evals", "--json"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    listed = [c["id"] for s in json.loads(done.stdout)["suites"] for c in s["cases"]]
    assert "evals/eval_math.py::test_broken" in listed and len(listed) == 3


EVAL_A = """
from agent_evals import eval
from helpers import make_eval

@eval()
def test_a():
    return True

test_made = make_eval("test_made", 4)
"""

EVAL_B = """
from agent_evals import eval
from eval_a import test_a, test_made

@eval()
def test_b():
    return True
"""


def test_run__eval_imported_from_another_eval_file_of_the_run__runs_only_there(tmp_path: Path) -> None:
    _project(tmp_path, {"evals/helpers.py": HELPERS, "evals/eval_a.py": EVAL_A, "evals/eval_b.py": EVAL_B})
    done, record = _run(tmp_path, "evals")
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(_cases(record)) == [
        "evals/eval_a.py::test_a",
        "evals/eval_a.py::test_made",
        "evals/eval_b.py::test_b",
    ]


def test_run__eval_imported_from_an_eval_file_outside_the_run__runs_in_the_file_that_binds_it(
    tmp_path: Path,
) -> None:
    _project(tmp_path, {"evals/helpers.py": HELPERS, "evals/eval_a.py": EVAL_A, "evals/eval_b.py": EVAL_B})
    done, record = _run(tmp_path, "evals/eval_b.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(_cases(record)) == [
        "evals/eval_b.py::test_a",
        "evals/eval_b.py::test_b",
        "evals/eval_b.py::test_made",
    ]


@pytest.mark.parametrize(
    ("body", "outcome"),
    [
        (
            'test_x = make_eval("same", 4)\ntest_y = make_eval("same", 4)\n',
            "two evals have the case id 'same'",
        ),
        ('test_x = make_eval("test_x", 4)\ntest_alias = test_x\n', None),
    ],
    ids=["two factory evals, one case id", "one eval, two names"],
)
def test_run__factory_evals_keep_the_case_id_rules(tmp_path: Path, body: str, outcome: str | None) -> None:
    _project(
        tmp_path, {"evals/helpers.py": HELPERS, "evals/eval_f.py": "from helpers import make_eval\n" + body}
    )
    done, record = _run(tmp_path, "evals")
    if outcome is None:
        assert done.returncode == 0, done.stdout + done.stderr
        assert list(_cases(record)) == ["evals/eval_f.py::test_x"]
    else:
        assert done.returncode == 2, done.stdout + done.stderr
        assert outcome in done.stderr


TEST_MODULE = """
from helpers import make_eval

def test_plain():
    assert True

test_made = make_eval("test_made", 2 + 3)
"""


def test_pytest_plugin__factory_made_evals_in_eval_files_and_test_modules__run(tmp_path: Path) -> None:
    _project(
        tmp_path,
        {
            "helpers.py": HELPERS,
            "eval_math.py": EVAL_MATH,
            "test_mod.py": TEST_MODULE,
            "pytest.ini": "[pytest]\n",
        },
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "agent_evals.pytest_plugin",
            "-rA",
            "-v",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    for test_id, outcome in [
        ("eval_math.py::test_plain", "PASSED"),
        ("eval_math.py::test_sum", "PASSED"),
        ("eval_math.py::test_broken", "FAILED"),
        ("test_mod.py::test_plain", "PASSED"),
        ("test_mod.py::test_made", "FAILED"),
    ]:
        assert f"{test_id} {outcome}" in done.stdout, done.stdout
    assert done.stdout.count("test_mod.py::test_made FAILED") == 1
