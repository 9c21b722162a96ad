"""Run action.yml's composite steps the way the runner does: inputs to env, bash steps in order, outputs."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent_evals.github.actions_io import parse_outputs
from servers.github_server import TOKEN, GitHubServer

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
BENCH = """benchmark: tiny
agent: tiny_agent:answer
execution: {runs_per_scenario: 1}
capabilities:
  - name: math
    scenarios:
""" + "".join(
    f"      - {{id: c{i}, prompt: c{i}, success: {{output: {{contains: ok}}}}}}\n" for i in range(12)
)
AGENT = 'import os\n\ndef answer(prompt):\n    return "bad" if prompt in os.environ.get("FAIL", "").split(",") else "ok"\n'


@dataclass
class Runner:
    """A minimal composite-action runner: enough of the expression language for action.yml, no more."""

    inputs: dict[str, str]
    contexts: dict[str, Any]
    env: dict[str, str]
    temp: Path
    steps: dict[str, dict[str, str]] = field(default_factory=dict)
    ran: list[str] = field(default_factory=list)
    uploads: list[dict[str, str]] = field(default_factory=list)
    failed: bool = False

    job_env: dict[str, str] = field(default_factory=dict)
    """The job-level `env:` (the `env` context)."""

    setup_python: Path | None = None
    """The bin folder actions/setup-python puts first on PATH when it runs (None: the step changes nothing)."""

    def lookup(self, expr: str) -> str:
        if "||" in expr:  # the first operand that is not empty, as the expression language does
            return next((v for v in (self.lookup(e.strip()) for e in expr.split("||")) if v), "")
        parts = expr.split(".")
        if parts[0] == "env":
            return self.job_env.get(parts[1], "")
        if parts[0] == "inputs":
            return self.inputs[parts[1]]
        if parts[0] == "steps" and parts[2] == "outputs":
            return self.steps.get(parts[1], {}).get(parts[3], "")
        value: Any = self.contexts
        for part in parts:
            value = value[part]
        return str(value)

    def render(self, text: str) -> str:
        return EXPR.sub(lambda m: self.lookup(m.group(1)), text)

    def condition(self, expr: str | None) -> bool:
        if expr is None:
            return not self.failed
        always = False
        result = True
        for term in (t.strip() for t in expr.split("&&")):
            match = re.fullmatch(r"\(?([\w.| -]+?)\)?\s*(==|!=)\s*'([^']*)'", term)
            if term == "always()":
                always = True
            elif match:
                equal = self.lookup(match.group(1)) == match.group(3)
                result = result and (equal if match.group(2) == "==" else not equal)
            else:
                raise AssertionError(f"expression not understood by this test runner: {term!r}")
        return result and (always or not self.failed)

    def run(self, action: Mapping[str, Any]) -> dict[str, str]:
        for step in action["runs"]["steps"]:
            name = step["name"]
            if not self.condition(step.get("if")):
                continue
            self.ran.append(name)
            if "uses" in step:
                if "upload-artifact" in step["uses"]:
                    self.uploads.append(
                        {"uses": step["uses"], **{k: self.render(str(v)) for k, v in step["with"].items()}}
                    )
                if "setup-python" in step["uses"] and self.setup_python is not None:
                    # what setup-python leaves behind (through GITHUB_PATH and GITHUB_ENV)
                    self.env["PATH"] = f"{self.setup_python}:{self.env['PATH']}"
                    self.env["pythonLocation"] = str(self.setup_python.parent)
                continue
            assert "${{" not in step["run"], f"{name}: expression inside run:"
            out, env_file, path_file = (self.temp / f"{f}-{len(self.ran)}" for f in ("out", "env", "path"))
            for file in (out, env_file, path_file):
                file.touch()
            env = {
                **self.env,
                "GITHUB_ENV": str(env_file),
                "GITHUB_PATH": str(path_file),
                **self.job_env,
                **{k: self.render(str(v)) for k, v in step.get("env", {}).items()},
                "GITHUB_OUTPUT": str(out),
            }
            # the runner's default working directory is the workspace (the job's checkout)
            cwd = Path(self.env["GITHUB_WORKSPACE"]) / self.render(step.get("working-directory", "."))
            script = self.temp / f"step-{len(self.ran)}.sh"
            script.write_text(step["run"])
            proc = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                cwd=cwd, env=env, capture_output=True, text=True, timeout=180,
            )  # fmt: skip
            self.env.setdefault("LOG", "")
            self.env["LOG"] += proc.stdout + proc.stderr
            if proc.returncode != 0:
                self.failed = True
            if "id" in step:
                self.steps[step["id"]] = parse_outputs(out.read_text())
            # the file commands apply to the steps after this one, as on the runner
            self.env.update(parse_outputs(env_file.read_text()))
            for folder in path_file.read_text().splitlines():
                self.env["PATH"] = f"{folder}:{self.env['PATH']}"
        return {name: self.render(spec["value"]) for name, spec in action["outputs"].items()}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "evals").mkdir(parents=True)
    (ws / "evals" / "bench.yaml").write_text(BENCH)
    (ws / "evals" / "tiny_agent.py").write_text(AGENT)
    return ws


def _shim(tmp_path: Path) -> Path:
    """`python` that records `-m venv DIR` and `-m pip install ...` instead of installing anything.

    The "virtual environment" it makes holds this shim as its python and the test venv's agent-evals.
    """
    shim = tmp_path / "shim"
    shim.mkdir()
    script = shim / "python"
    cli = Path(sys.executable).parent / "agent-evals"
    script.write_text(
        "#!/bin/sh\n"
        'iso=; if [ "$1" = "-I" ]; then iso=-I; shift; fi\n'
        'if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then echo "$@" >> "$PIP_LOG"; '
        'for d; do :; done; mkdir -p "$d/bin"; '
        f'ln -sf "{script}" "$d/bin/python"; ln -sf "{cli}" "$d/bin/agent-evals"; exit 0; fi\n'
        'if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then echo "$0 $@" >> "$PIP_LOG"; exit 0; fi\n'
        f'exec "{sys.executable}" $iso "$@"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    (shim / "python3").symlink_to(script)
    return shim


def _runner(
    tmp_path: Path,
    workspace: Path,
    inputs: dict[str, str],
    event: str,
    payload: dict[str, Any],
    ref: str,
    api_url: str = "http://127.0.0.1:9",
) -> Runner:
    defaults = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    event_path = tmp_path / "event.json"
    event_path.write_text(json.dumps(payload))
    contexts = {"github": {"token": TOKEN, "action_path": str(ROOT)}, "runner": {"temp": str(temp)}}
    runner = Runner(inputs={}, contexts=contexts, env={}, temp=temp)
    runner.inputs = {k: runner.render(v) for k, v in {**defaults, **inputs}.items()}
    runner.env = {
        "PATH": f"{_shim(tmp_path)}:{Path(sys.executable).parent}:{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "PIP_LOG": str(tmp_path / "pip.log"),
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_REPOSITORY": "octo/demo",
        "GITHUB_API_URL": api_url,
        "GITHUB_REF": ref,
        "GITHUB_SHA": "e" * 40,
        "GITHUB_RUN_ID": "42",
        "GITHUB_JOB": "gate",
        "GITHUB_WORKFLOW_REF": f"octo/demo/.github/workflows/gate.yml@{ref}",
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "RUNNER_TEMP": str(temp),
        # the code under test, when it is not the installed one (a checkout on PYTHONPATH)
        **{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ},
    }
    return runner


def test_action__push_to_main__outputs_and_baseline_upload(tmp_path: Path, workspace: Path) -> None:
    inputs = {
        "path": "bench.yaml",
        "working-directory": "evals",
        "python-version": "",
        "install": 'echo "installing in $PWD with $(command -v python)" > "$RUNNER_TEMP/install.txt"',
    }
    runner = _runner(
        tmp_path, workspace, inputs, "push", {"repository": {"default_branch": "main"}}, "refs/heads/main"
    )
    outputs = runner.run(ACTION)
    assert not runner.failed, runner.env["LOG"]
    assert "Set up Python" not in runner.ran
    venv = runner.temp / "agent-evals-venv"
    assert (tmp_path / "pip.log").read_text().splitlines() == [
        f"-m venv --system-site-packages {venv}",
        f"{venv}/bin/python -m pip install --disable-pip-version-check --quiet {ROOT}",
    ]
    installed = (runner.temp / "install.txt").read_text().strip()
    assert installed == f"installing in {workspace / 'evals'} with {venv}/bin/python"
    assert outputs["status"] == "no-baseline" and outputs["pass-rate"] == "1.0000"
    record = Path(outputs["run-record"])
    assert record.is_file() and record.parent == runner.temp / "agent-evals"
    assert Path(outputs["report"]).read_text().startswith("<!-- agent-evals:gate:gate-")
    gate_id = runner.steps["gate"]["gate-id"]
    names = [u["name"] for u in runner.uploads]
    assert names == [
        f"agent-evals-run-{gate_id}",
        f"agent-evals-report-{gate_id}",
        f"agent-evals-baseline-{gate_id}",
    ]
    assert runner.uploads[0]["path"] == runner.uploads[2]["path"] == str(record)  # the record, alone
    reports = runner.uploads[1]["path"].split()
    assert [Path(r).name for r in reports] == ["report.md", "report.html", "verdict.json", "junit.xml"]
    assert all(Path(r).is_file() for r in reports)
    assert {u["retention-days"] for u in runner.uploads} == {""}
    assert all(re.fullmatch(r"actions/upload-artifact@[0-9a-f]{40}", u["uses"]) for u in runner.uploads)


@pytest.fixture
def github() -> Iterator[GitHubServer]:
    with GitHubServer() as server:
        server.state.runs["gate.yml"] = []
        yield server


def test_action__failing_gate__still_uploads_run_record_not_baseline(
    tmp_path: Path, workspace: Path, github: GitHubServer
) -> None:
    payload = {
        "repository": {"default_branch": "main"},
        "pull_request": {
            "number": 3,
            "base": {"ref": "main", "sha": "b" * 40, "repo": {"full_name": "octo/demo"}},
            "head": {"sha": "e" * 40, "repo": {"full_name": "octo/demo"}},
        },
    }
    inputs = {"path": "bench.yaml", "working-directory": "evals", "min-pass-rate": "0.9", "comment": "always"}
    runner = _runner(
        tmp_path, workspace, inputs, "pull_request", payload, "refs/pull/3/merge", github.api_url
    )
    runner.env["FAIL"] = "c0,c1,c2"
    outputs = runner.run(ACTION)
    assert runner.failed
    assert "Set up Python" not in runner.ran  # by default the gate runs under the job's own Python
    assert outputs["status"] == "failed" and outputs["pass-rate"] == "0.7500"
    assert outputs["comment-url"] == github.state.comments[3][0]["html_url"]
    assert [u["name"].split("-")[2] for u in runner.uploads] == ["run", "report"]
    assert "below" in Path(outputs["report"]).read_text()


def test_action__every_input_is_documented_in_readme_and_docs() -> None:
    readme = (ROOT / "README.md").read_text()
    docs = (ROOT / "docs" / "github-actions.md").read_text()
    for name in ACTION["inputs"]:
        assert f"`{name}`" in docs, f"input {name} missing from docs/github-actions.md"
        assert f"`{name}`" in readme, (
            f"input {name} missing from README.md (paste the 'Use it in GitHub Actions' section)"
        )


def test_action__every_output_the_cli_writes__is_declared(tmp_path: Path, workspace: Path) -> None:
    runner = _runner(
        tmp_path, workspace, {"path": "bench.yaml", "working-directory": "evals", "python-version": ""},
        "push", {"repository": {"default_branch": "main"}}, "refs/heads/main",
    )  # fmt: skip
    runner.run(ACTION)
    assert not runner.failed, runner.env["LOG"]
    assert set(runner.steps["gate"]) == set(ACTION["outputs"])


# `ci` options the action sets itself rather than taking as inputs, and why.
NOT_INPUTS = {
    "output": "the run record goes to runner.temp (the run-record output says where)",
    "output-dir": "runner.temp/agent-evals",
    "paths": "the `path` input, split on spaces",
    "shards": "set by the `merge-shards` input to the folder the shard records are downloaded to",
}


def _ci_options() -> list[str]:
    from agent_evals.cli.ci import ci

    return [str(p.name).replace("_", "-") for p in ci.params if p.name not in ("help",)]


def test_action__every_ci_option__is_an_input_passed_as_its_variable() -> None:
    [gate] = [s for s in ACTION["runs"]["steps"] if s.get("id") == "gate"]
    missing = []
    for name in _ci_options():
        if name in NOT_INPUTS:
            continue
        var = "AGENT_EVALS_" + name.upper().replace("-", "_")
        if name == "github-token":
            var = "GITHUB_TOKEN"
            expected = "${{ inputs.github-token }}"
        else:
            expected = f"${{{{ inputs.{name} || env.{var} }}}}"
        if name not in ACTION["inputs"] or gate["env"].get(var) != expected:
            missing.append(name)
    assert missing == [], f"ci options without an action input wired as `{var}: inputs.x || env.X`"


@pytest.mark.parametrize(
    ("job_env", "inputs", "expected"),
    [
        ({"AGENT_EVALS_MIN_PASS_RATE": "0.9"}, {}, "failed"),  # the job-level variable applies
        ({"AGENT_EVALS_MIN_PASS_RATE": "0.9"}, {"min-pass-rate": "0.5"}, "no-baseline"),  # an input wins
        ({}, {}, "no-baseline"),
    ],
    ids=["job-env-kept", "input-wins", "neither"],
)
def test_action__empty_input__never_overrides_a_job_level_variable(
    tmp_path: Path, workspace: Path, job_env: dict[str, str], inputs: dict[str, str], expected: str
) -> None:
    runner = _runner(
        tmp_path, workspace,
        {"path": "bench.yaml", "working-directory": "evals", "python-version": "", **inputs},
        "push", {"repository": {"default_branch": "main"}}, "refs/heads/main",
    )  # fmt: skip
    runner.job_env = job_env
    runner.env["FAIL"] = "c0,c1"
    outputs = runner.run(ACTION)
    assert outputs["status"] == expected, runner.env["LOG"]


HELD = {
    "INPUT_GITHUB-TOKEN": TOKEN,
    "ACTIONS_RUNTIME_TOKEN": "fake-runtime-token",
    "ACTIONS_ID_TOKEN_REQUEST_URL": "https://token.example/request",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "fake-oidc-request-token",
    "GITHUB_ENV": "/nonexistent/env",
    "GITHUB_PATH": "/nonexistent/path",
    "GITHUB_STATE": "/nonexistent/state",
}
DUMPING_AGENT = (
    "import json, os\n\ndef answer(prompt):\n"
    "    json.dump(dict(os.environ), open(os.path.join(os.environ['RUNNER_TEMP'], 'agent-env.json'), 'w'))\n"
    "    return 'ok'\n"
)


def test_action__shard_and_install_steps__the_projects_code_holds_no_credential(
    tmp_path: Path, workspace: Path
) -> None:
    (workspace / "evals" / "tiny_agent.py").write_text(DUMPING_AGENT)
    inputs = {
        "path": "bench.yaml",
        "working-directory": "evals",
        "python-version": "",
        "shard": "1/1",
        "gate-id": "g",
        "hold-env": "DEPLOY_KEY",
        "install": "python -c \"import json, os; json.dump(dict(os.environ), open('$RUNNER_TEMP/install-env.json', 'w'))\"",
    }
    runner = _runner(
        tmp_path, workspace, inputs, "push", {"repository": {"default_branch": "main"}}, "refs/heads/main"
    )
    runner.job_env = {**HELD, "DEPLOY_KEY": "fake-deploy-key", "OPENAI_API_KEY": "sk-fake"}
    runner.run(ACTION)
    assert not runner.failed, runner.env["LOG"]
    for step in ("install", "agent"):
        seen = json.loads((runner.temp / f"{step}-env.json").read_text())
        leaked = sorted(set(seen) & {*HELD, "DEPLOY_KEY", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"})
        assert leaked == [], f"{step}: {leaked}"
        assert seen["OPENAI_API_KEY"] == "sk-fake" and seen["GITHUB_SHA"] == "e" * 40, step


@pytest.mark.parametrize(
    ("inputs", "job_env", "merges"),
    [
        ({"merge-shards": "true", "gate-id": "g"}, {}, True),
        ({}, {"AGENT_EVALS_MERGE_SHARDS": "true", "AGENT_EVALS_GATE_ID": "g"}, True),  # job-level only
        ({}, {}, False),
    ],
    ids=["input", "job-level-variable", "neither"],
)
def test_action__merge_shards__taken_from_the_input_or_a_job_level_variable_like_every_input(
    tmp_path: Path, workspace: Path, inputs: dict[str, str], job_env: dict[str, str], merges: bool
) -> None:
    runner = _runner(tmp_path, workspace, inputs, "push", {}, "refs/heads/main")
    runner.job_env = job_env
    steps = {step["name"]: step for step in ACTION["runs"]["steps"]}
    download, gate = steps["Download the shard records"], steps["Run the gate"]
    assert runner.condition(download["if"]) is merges
    assert runner.render(gate["env"]["AGENT_EVALS_MERGE_SHARDS"]) == ("true" if merges else "")
    if merges:
        assert runner.render(download["with"]["pattern"]) == "agent-evals-shard-g-*"


@pytest.mark.parametrize(
    ("inputs", "job_env", "shard"),
    [
        ({"shard": "2/3", "gate-id": "g"}, {}, "2/3"),
        ({}, {"AGENT_EVALS_SHARD": "2/3", "AGENT_EVALS_GATE_ID": "g"}, "2/3"),  # job-level only
        ({"shard": "1/3"}, {"AGENT_EVALS_SHARD": "2/3"}, "1/3"),  # the input wins
        ({}, {}, ""),
    ],
    ids=["input", "job-level-variable", "input-over-variable", "neither"],
)
def test_action__shard__taken_from_the_input_or_a_job_level_variable_like_every_input(
    tmp_path: Path, workspace: Path, inputs: dict[str, str], job_env: dict[str, str], shard: str
) -> None:
    runner = _runner(tmp_path, workspace, inputs, "push", {}, "refs/heads/main")
    runner.job_env = job_env
    steps = {step["name"]: step for step in ACTION["runs"]["steps"]}
    one, gate = steps["Run one shard"], steps["Run the gate"]
    # exactly one of the two runs: a shard job never gates, and a gate job never runs a slice
    assert (runner.condition(one["if"]), runner.condition(gate["if"])) == (bool(shard), not shard)
    assert runner.render(one["env"]["AGENT_EVALS_SHARD"]) == shard


TRACED_AGENT = (
    "from opentelemetry import trace\n\ndef answer(prompt):\n"
    "    # ok only inside the trial's own trace (`--trace otel` reached the run)\n"
    "    return 'ok' if getattr(trace.get_current_span(), 'name', '') == 'agent-evals trial' else 'bad'\n"
)


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        ({"trace": "otel"}, "no-baseline"),
        ({}, "failed"),  # untraced, every trial of the agent fails: the gate's min-pass-rate fails
        ({"trace": "otel", "shard": "1/1", "gate-id": "g"}, "shard"),
    ],
    ids=["gate-traced", "gate-untraced", "shard-traced"],
)
def test_action__trace_input__reaches_the_run_of_the_suites(
    tmp_path: Path, workspace: Path, inputs: dict[str, str], expected: str
) -> None:
    pytest.importorskip("opentelemetry.sdk.trace", reason="the otel extra is in the dev extra")
    (workspace / "evals" / "tiny_agent.py").write_text(TRACED_AGENT)
    base = {"path": "bench.yaml", "working-directory": "evals", "python-version": "", "min-pass-rate": "0.9"}
    runner = _runner(
        tmp_path,
        workspace,
        {**base, **inputs},
        "push",
        {"repository": {"default_branch": "main"}},
        "refs/heads/main",
    )
    outputs = runner.run(ACTION)
    if expected != "shard":
        assert outputs["status"] == expected, runner.env["LOG"]
        return
    assert not runner.failed, runner.env["LOG"]
    record = json.loads((runner.temp / "agent-evals" / "shard-1.json").read_text())
    trials = [t for suite in record["suites"] for case in suite["cases"] for t in case["trials"]]
    assert len(trials) == 12 and all(t["passed"] for t in trials), trials
