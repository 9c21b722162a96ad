"""The opt-in pytest plugin: each @eval case is a pytest test, run with a real EvalContext."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from importlib.metadata import entry_points
from pathlib import Path

import pytest

EVALS = """
from agent_evals import EvalContext, eval

CAPITALS = {"France": "Paris", "Japan": "Tokyo"}

@eval(cases=[
    {"id": "fr", "input": "France", "reference": "Paris"},
    {"id": "jp", "input": "Japan", "reference": "Kyoto"},
])
def test_capital(ctx: EvalContext) -> None:
    ctx.output = CAPITALS.get(ctx.input)
    assert ctx.output == ctx.reference, f"expected {ctx.reference}, got {ctx.output}"

@eval(input="x")
def test_tool_down(ctx: EvalContext) -> None:
    raise ConnectionError("tool server down")

RUNS: list[int] = []

@eval(input="x", trials=3)
def test_flaky(ctx: EvalContext) -> None:
    RUNS.append(1)
    ctx.store(scores={"key": "ok", "passed": len(RUNS) != 2})

@eval(input="x")
def test_numeric(ctx: EvalContext) -> None:
    ctx.store(scores={"key": "latency", "value": 0.3})
"""

TESTS = """
from agent_evals import EvalContext, eval

def test_plain():
    assert 1 + 1 == 2

@eval(input="hello")
def test_echo(ctx: EvalContext) -> None:
    ctx.output = ctx.input.upper()
    assert ctx.output == "HELLO"
"""


def _pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "-v", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("plugin")
    (root / "eval_geo.py").write_text(textwrap.dedent(EVALS), encoding="utf-8")
    (root / "test_mixed.py").write_text(textwrap.dedent(TESTS), encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def with_plugin(project: Path) -> subprocess.CompletedProcess[str]:
    return _pytest(project, "-p", "agent_evals.pytest_plugin")


@pytest.mark.parametrize(
    ("test_id", "outcome"),
    [
        ("eval_geo.py::test_capital[fr]", "PASSED"),
        ("eval_geo.py::test_capital[jp]", "FAILED"),
        ("eval_geo.py::test_tool_down", "FAILED"),
        ("eval_geo.py::test_flaky", "FAILED"),
        ("eval_geo.py::test_numeric", "SKIPPED"),
        ("test_mixed.py::test_plain", "PASSED"),
        ("test_mixed.py::test_echo", "PASSED"),
    ],
)
def test_plugin__each_case_is_a_test_with_its_outcome(
    with_plugin: subprocess.CompletedProcess[str], test_id: str, outcome: str
) -> None:
    done = with_plugin
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{test_id} {outcome}" in done.stdout, done.stdout


def test_plugin__failures_say_why_in_the_eval_s_own_words(
    with_plugin: subprocess.CompletedProcess[str],
) -> None:
    out = with_plugin.stdout
    assert "pass: expected Kyoto, got Tokyo" in out
    assert "error: ConnectionError: tool server down" in out
    assert "2/3 trials passed" in out


def test_plugin__all_passing_selection__exit_0(project: Path) -> None:
    done = _pytest(project, "-p", "agent_evals.pytest_plugin", "-k", "fr or plain or echo")
    assert done.returncode == 0, done.stdout
    assert "3 passed" in done.stdout


def test_without_the_plugin__eval_files_are_not_collected_and_ctx_is_unknown(project: Path) -> None:
    done = _pytest(project)
    assert "eval_geo.py" not in done.stdout
    assert "fixture 'ctx' not found" in done.stdout


def test_plugin__is_never_registered_for_every_pytest_run() -> None:
    registered = [ep.value for ep in entry_points(group="pytest11")]
    assert not any(value.startswith("agent_evals") for value in registered)


GEO_CASES = [
    "eval_geo.py::test_capital[fr]",
    "eval_geo.py::test_capital[jp]",
    "eval_geo.py::test_tool_down",
    "eval_geo.py::test_flaky",
    "eval_geo.py::test_numeric",
]
MIXED_TESTS = ["test_mixed.py::test_plain", "test_mixed.py::test_echo"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param(["eval_geo.py"], GEO_CASES, id="named-file"),
        pytest.param(
            ["eval_geo.py::test_capital[jp]"], ["eval_geo.py::test_capital[jp]"], id="named-node-id"
        ),
        pytest.param(["eval_geo.py::test_capital"], GEO_CASES[:2], id="named-function"),
        pytest.param(["eval_geo.py", "test_mixed.py"], GEO_CASES + MIXED_TESTS, id="two-named-files"),
        pytest.param(["."], GEO_CASES + MIXED_TESTS, id="folder"),
        pytest.param([], GEO_CASES + MIXED_TESTS, id="no-args"),
    ],
)
def test_plugin__collect_by_file_node_id_or_folder__each_case_once(
    project: Path, args: list[str], expected: list[str]
) -> None:
    done = _pytest(
        project, "-p", "agent_evals.pytest_plugin", "--collect-only", "-qq", *args
    )  # -v -qq: node ids
    collected = [line for line in done.stdout.splitlines() if "::" in line]
    assert sorted(collected) == sorted(expected), done.stdout + done.stderr


def test_plugin__rerun_one_failing_case_by_node_id__reports_one_failure(project: Path) -> None:
    done = _pytest(project, "-p", "agent_evals.pytest_plugin", "eval_geo.py::test_capital[jp]")
    assert done.returncode == 1, done.stdout
    assert "1 failed in" in done.stdout and "2 failed" not in done.stdout, done.stdout
