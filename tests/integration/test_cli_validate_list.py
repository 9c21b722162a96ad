"""`agent-evals validate` and `list`: they refuse what `run` refuses, and list exactly what `run` executes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CLI = str(Path(sys.executable).with_name("agent-evals"))

AGENT = """
from agent_evals import TaskResult

class Agent:
    def run_case(self, prompt, **context):
        return TaskResult(output="ok", context={"outputs": [], "final_state": context.get("state", {})})
"""

GOOD_YAML = """
benchmark: demo
agent: my_agent:Agent
capabilities:
  - name: talk
    scenarios:
      - {id: hello, prompt: "say ok", success: {output: {contains: ok}}}
"""


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False)


def _project(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


BROKEN_PROJECTS: dict[str, tuple[dict[str, str], str]] = {
    "invalid YAML": (
        {"b.yaml": "benchmark: demo\ncapabilities: [\n", "my_agent.py": AGENT},
        "b.yaml:3:1: invalid YAML",
    ),
    "unknown scorer": (
        {
            "b.yaml": GOOD_YAML.replace(
                "success: {output: {contains: ok}}", "scorers: [{type: Factuallity}]"
            ),
            "my_agent.py": AGENT,
        },
        "Did you mean 'Factuality'",
    ),
    "custom scorer fails to import": (
        {
            "b.yaml": GOOD_YAML.replace(
                "success: {output: {contains: ok}}", "scorers: [{type: 'my_checks:ok'}]"
            ),
            "my_agent.py": AGENT,
            "my_checks.py": "import not_installed_qq\n",
        },
        "b.yaml:6:49: capabilities[0].scenarios[0].scorers[0]: scorer 'my_checks:ok': cannot import module",
    ),
    "agent module missing": ({"b.yaml": GOOD_YAML}, "cannot import module 'my_agent'"),
    "agent attribute missing": (
        {"b.yaml": GOOD_YAML.replace("my_agent:Agent", "my_agent:Nope"), "my_agent.py": AGENT},
        "has no attribute 'Nope'",
    ),
    "agent constructor raises": (
        {
            "b.yaml": GOOD_YAML,
            "my_agent.py": "class Agent:\n    def __init__(self):\n        raise RuntimeError('no key')\n",
        },
        "cannot be created: no key",
    ),
    "no agent anywhere": (
        {"b.yaml": GOOD_YAML.replace("agent: my_agent:Agent\n", ""), "my_agent.py": AGENT},
        "no agent to run",
    ),
    "world but agent takes no state": (
        {
            "b.yaml": GOOD_YAML.replace("capabilities:", "world: {x: 1}\ncapabilities:"),
            "my_agent.py": "def Agent(prompt):\n    return 'ok'\n",
        },
        "cannot receive the scenario state",
    ),
    "eval file fails to import": (
        {"eval_x.py": "import not_a_module_qq\n"},
        "eval_x.py: failed to import: ModuleNotFoundError",
    ),
    "bad EVAL_DEFAULTS": (
        {
            "eval_x.py": """
            from agent_evals import eval
            EVAL_DEFAULTS = {"trails": 3}

            @eval
            def test_a():
                assert True
            """
        },
        "unknown key(s) trails",
    ),
    "directory without evals": ({"notes.txt": "nothing here"}, "no evals found"),
}


AGENT_PROBLEMS = {
    "agent module missing",
    "agent attribute missing",
    "agent constructor raises",
    "no agent anywhere",
    "world but agent takes no state",
}
"""Problems only a run (or validate) sees: `list` does not import agents."""


@pytest.mark.parametrize(
    ("command", "case"),
    [
        (command, case)
        for case in sorted(BROKEN_PROJECTS)
        for command in ("validate", "run", "list")
        if command != "list" or case not in AGENT_PROBLEMS
    ],
)
def test_broken_project__validate_list_and_run_all_exit_2_naming_the_problem(
    tmp_path: Path, case: str, command: str
) -> None:
    files, message = BROKEN_PROJECTS[case]
    _project(tmp_path, files)
    done = _cli(command, ".", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr


def test_validate__reports_every_bad_file_not_only_the_first(tmp_path: Path) -> None:
    _project(
        tmp_path,
        {
            "eval_a.py": "import nope_a\n",
            "eval_b.py": "import nope_b\n",
            "b.yaml": GOOD_YAML,
            "my_agent.py": AGENT,
        },
    )
    done = _cli("validate", ".", cwd=tmp_path)
    assert done.returncode == 2
    assert "nope_a" in done.stderr and "nope_b" in done.stderr
    assert "ok  b.yaml (benchmark demo: 1 case, 1 trial, agent my_agent:Agent)" in done.stdout
    assert "2 problem(s)" in done.stderr


def test_validate__bad_agent_evals_yaml_policy__exit_2(tmp_path: Path) -> None:
    _project(
        tmp_path, {"b.yaml": GOOD_YAML, "my_agent.py": AGENT, "agent-evals.yaml": "gate:\n  max_drop: 7\n"}
    )
    done = _cli("validate", "b.yaml", cwd=tmp_path)
    assert done.returncode == 2
    assert "agent-evals.yaml" in done.stderr and "max_drop" in done.stderr


def test_validate__good_project__exit_0_and_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    agent = AGENT.replace(
        "return TaskResult", f'open({str(marker)!r}, "w").close()\n        return TaskResult'
    )
    _project(tmp_path, {"b.yaml": GOOD_YAML, "my_agent.py": agent})
    done = _cli("validate", "b.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Valid: 1 file(s), 1 case, 1 trial" in done.stdout
    assert not marker.exists()


@pytest.mark.parametrize(
    "selection",
    [(), ("--filter", "lookup"), ("--label", "smoke"), ("--dataset", "support"), ("--trials", "2")],
)
def test_list_json__names_exactly_the_cases_and_trials_run_executes(
    tmp_path: Path, selection: tuple[str, ...]
) -> None:
    listed = _cli("list", "examples/", "--json", *selection, cwd=REPO)
    assert listed.returncode == 0, listed.stderr
    inventory = json.loads(listed.stdout)
    out = tmp_path / "run.json"
    ran = _cli("run", "examples/", "-q", "-o", str(out), *selection, cwd=REPO)
    assert ran.returncode == 0, ran.stderr
    record = json.loads(out.read_text(encoding="utf-8"))
    run_trials = {c["id"]: len(c["trials"]) for s in record["suites"] for c in s["cases"]}
    listed_trials = {c["id"]: c["trials"] for s in inventory["suites"] for c in s["cases"]}
    assert listed_trials == run_trials
    assert inventory["trials"] == sum(run_trials.values())


def test_list__benchmark_cases_with_group_dimensions_and_trials(tmp_path: Path) -> None:
    done = _cli("list", "benchmarks/home.yaml", "--filter", "lights/kitchen-on", cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "benchmarks/home.yaml (benchmark home)",
        "  lights/kitchen-on  (dataset lights; labels difficulty=easy, phrasing=direct; trials 3)",
        "1 case, 3 trials in 1 suite(s)",
    ]


def test_list__selection_matching_nothing__exit_2_with_what_there_is() -> None:
    done = _cli("list", "examples/", "--label", "no-such-label", cwd=REPO)
    assert done.returncode == 2
    assert "no evals in examples match --label 'no-such-label'" in done.stderr
    assert "labels smoke" in done.stderr


def test_validate__override_glob_matching_no_case__warned_not_refused(tmp_path: Path) -> None:
    _project(
        tmp_path,
        {
            "b.yaml": GOOD_YAML,
            "my_agent.py": AGENT,
            "agent-evals.yaml": "gate:\n  overrides:\n    demo/tlak:\n      min_pass_rate: 1.0\n",
        },
    )
    done = _cli("validate", "b.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "warning: agent-evals.yaml: override 'demo/tlak' matches no suite or group" in done.stderr
    assert "did you mean 'demo/talk'?" in done.stderr


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize(
    ("ref", "message"),
    [
        pytest.param(
            "my_agent:Agen",
            "b.yaml:2:8: agent 'my_agent:Agen': module 'my_agent' has no attribute 'Agen'; did you mean 'Agent'?",
            id="attribute-misspelt",
        ),
        pytest.param(
            "my_agnt:Agent",
            "b.yaml:2:8: agent 'my_agnt:Agent': cannot import module 'my_agnt'",
            id="module-misspelt",
        ),
    ],
)
def test_validate_and_run__agent_reference_misspelt__names_the_yaml_line_and_the_close_name(
    tmp_path: Path, command: str, ref: str, message: str
) -> None:
    _project(tmp_path, {"b.yaml": GOOD_YAML.replace("my_agent:Agent", ref), "my_agent.py": AGENT})
    done = _cli(command, "b.yaml", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr, done.stderr
    if ref.startswith("my_agnt"):
        assert done.stderr.rstrip().splitlines()[0].endswith("; did you mean 'my_agent'?"), done.stderr


SEVERAL_PROBLEMS = """
benchmark: demo
agent: my_agent:Agent
execution:
  runs_per_scenario: zero
  timeout_s: -1
capabilities:
  - name: talk
    scenarios:
      - {id: hello, prompt: "say ok", success: {output: {contanis: ok}}}
  - name: greet
    scenarios:
      - {id: hi, prompt: "say ok", success: {outptu: {contains: ok}}}
"""


def test_validate__file_with_several_problems__lists_every_one_at_its_line(tmp_path: Path) -> None:
    _project(tmp_path, {"b.yaml": SEVERAL_PROBLEMS, "my_agent.py": AGENT})
    done = _cli("validate", "b.yaml", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.splitlines()
    assert lines[0].startswith("error: b.yaml:4:22: execution.runs_per_scenario: "), done.stderr
    assert lines[1].startswith("  b.yaml:5:14: execution.timeout_s: "), done.stderr
    assert lines[2].startswith("  b.yaml:9:58: capabilities[0].scenarios[0].success.output.contanis: "), lines
    assert "did you mean 'contains'?" in lines[2]
    assert lines[3].startswith("  b.yaml:12:46: capabilities[1].scenarios[0].success.outptu: "), lines
    assert "more problem" not in done.stderr
    assert lines[-1] == "Validation failed: 4 problem(s) in 1 file(s) checked"


def test_validate__more_problems_than_the_cap__lists_fifty_and_counts_the_rest(tmp_path: Path) -> None:
    caps = "".join(
        f"  - name: c{i}\n    scenarios:\n      - {{id: s, prompt: hi, success: {{output: {{equalz: x}}}}}}\n"
        for i in range(60)
    )
    (tmp_path / "b.yaml").write_text(
        f"benchmark: demo\nagent: my_agent:Agent\ncapabilities:\n{caps}", "utf-8"
    )
    _project(tmp_path, {"my_agent.py": AGENT})
    done = _cli("validate", "b.yaml", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    listed = [line for line in done.stderr.splitlines() if "unknown key 'equalz'" in line]
    assert len(listed) == 50, done.stderr
    assert "  ... and 10 more problem(s) in this file" in done.stderr
    assert done.stderr.splitlines()[-1] == "Validation failed: 60 problem(s) in 1 file(s) checked"
