"""Directory discovery: a benchmark is what its YAML parses to, and no YAML file drops out in silence."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CLI = str(Path(sys.executable).with_name("agent-evals"))

AGENT = """
from agent_evals import TaskResult

class Agent:
    def run_case(self, prompt, **context):
        return TaskResult(output="ok", context={"outputs": [], "final_state": context.get("state", {})})
"""

EVAL = """
from agent_evals import eval

@eval()
def test_a():
    return True
"""

QUOTED_KEYS = """
"benchmark": demo
"agent": my_agent:Agent
"capabilities":
  - name: talk
    scenarios:
      - {id: hello, prompt: "say ok", success: {output: {contains: ok}}}
"""

FLOW_STYLE = (
    '{"benchmark": "demo", "agent": "my_agent:Agent", "capabilities": [{"name": "talk", "scenarios": '
    '[{"id": "hello", "prompt": "say ok", "success": {"output": {"contains": "ok"}}}]}]}\n'
)


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False)


def _project(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


@pytest.mark.parametrize("text", [QUOTED_KEYS, FLOW_STYLE], ids=["quoted keys", "flow style"])
def test_run_directory__benchmark_with_quoted_or_flow_style_keys__runs_as_a_suite(
    tmp_path: Path, text: str
) -> None:
    _project(tmp_path, {"suite/eval_x.py": EVAL, "suite/bench.yaml": text, "suite/my_agent.py": AGENT})
    out = tmp_path / "run.json"
    done = _cli("run", "suite", "-q", "-o", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    suites = [s["id"] for s in json.loads(out.read_text(encoding="utf-8"))["suites"]]
    assert "demo" in suites, suites


@pytest.mark.parametrize("command", ["run", "validate", "list"])
def test_directory__quoted_key_benchmark__listed_by_every_command(tmp_path: Path, command: str) -> None:
    _project(tmp_path, {"suite/bench.yaml": QUOTED_KEYS, "suite/my_agent.py": AGENT})
    args = ["-q", "-o", str(tmp_path / "r.json")] if command == "run" else []
    done = _cli(command, "suite", *args, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    if command != "run":
        assert "demo" in done.stdout


BROKEN_BENCHMARKS = {
    "quoted key, bad YAML": (
        "suite/b.yaml",
        '"benchmark": demo\ncapabilities: [\n',
        "suite/b.yaml:3:1: invalid YAML",
    ),
    "flow style, bad YAML": ("suite/b.yml", '{"capabilities": [}\n', "suite/b.yml:1:"),
    "under benchmarks/": (
        "suite/benchmarks/parts.yaml",
        "a: [\n",
        "suite/benchmarks/parts.yaml:2:1: invalid YAML",
    ),
    "not UTF-8": ("suite/b.yaml", "benchmark: d\xe9mo\n", "suite/b.yaml:1:"),
}


@pytest.mark.parametrize("command", ["run", "validate", "list"])
@pytest.mark.parametrize("case", list(BROKEN_BENCHMARKS))
def test_directory__benchmark_yaml_that_does_not_parse__exit_2_with_its_location(
    tmp_path: Path, command: str, case: str
) -> None:
    name, text, where = BROKEN_BENCHMARKS[case]
    _project(tmp_path, {"suite/eval_x.py": EVAL})
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("latin-1") if case == "not UTF-8" else text.encode())
    args = ["-q", "-o", str(tmp_path / "r.json")] if command == "run" else []
    done = _cli(command, "suite", *args, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert where in done.stderr


@pytest.mark.parametrize("command", ["run", "validate", "list"])
def test_directory__other_yaml_that_does_not_parse__named_as_skipped(tmp_path: Path, command: str) -> None:
    _project(tmp_path, {"suite/eval_x.py": EVAL, "suite/config.yaml": "name: [unclosed\n"})
    args = ["-q", "-o", str(tmp_path / "r.json")] if command == "run" else []
    done = _cli(command, "suite", *args, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "skipped: suite/config.yaml:2:1: invalid YAML" in done.stderr


def test_directory__other_yaml_that_parses__is_not_a_benchmark_and_not_mentioned(tmp_path: Path) -> None:
    _project(tmp_path, {"suite/eval_x.py": EVAL, "suite/config.yaml": "name: {benchmark: nested}\n"})
    done = _cli("list", "suite", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "config.yaml" not in done.stdout + done.stderr
