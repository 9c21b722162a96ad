"""The code under test holds no credential: `agent-evals ci` runs it with the job's tokens, the action's
inputs, the Actions runtime and OIDC variables and the workflow file-command paths held back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

CLI = str(Path(sys.executable).with_name("agent-evals"))
SHA = "a" * 40

# The agent (code of the pull request) writes the environment it and a process it starts see.
AGENT = """
import json, os, subprocess, sys

DUMP = (
    "import json, os, sys; "
    "json.dump(dict(os.environ), open(os.path.join(os.environ['DUMP_DIR'], 'grandchild.json'), 'w'))"
)


def answer(prompt):
    with open(os.path.join(os.environ["DUMP_DIR"], "agent.json"), "w") as fh:
        json.dump(dict(os.environ), fh)
    subprocess.run([sys.executable, "-c", DUMP], check=True)
    return "ok"
"""
BENCH = (
    "benchmark: w\nagent: w_agent:answer\ncapabilities:\n  - name: t\n    scenarios:\n"
    "      - id: a\n        prompt: a\n        success: {output: {contains: ok}}\n"
)
TOKEN = "ghs_FAKEjobTOKEN0123456789abcdefghijklmn"
CREDENTIALS = {
    "GITHUB_TOKEN": TOKEN,
    "AGENT_EVALS_GITHUB_TOKEN": "ghp_FAKEagentEvalsToken0123456789abcdef",
    "INPUT_GITHUB-TOKEN": TOKEN,
    "INPUT_PATH": "w.yaml",
    "ACTIONS_RUNTIME_TOKEN": "FAKE-runtime-token-eyJhbGciOi",
    "ACTIONS_ID_TOKEN_REQUEST_URL": "https://pipelines.example/idtoken?api-version=2.0",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "FAKE-oidc-request-token-eyJ0eXAi",
    "ACTIONS_CACHE_URL": "https://artifactcache.example/FAKE/",
    "ACTIONS_RESULTS_URL": "https://results-receiver.example/",
}
FILE_COMMANDS = ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_STATE")
PASSING = {
    "OPENAI_API_KEY": "sk-FAKE-model-key-0123456789",
    "UNRELATED_SETTING": "kept",
    "AWS_SECRET_ACCESS_KEY": "FAKEawsSecret0123456789",
    # what the record's git and ci blocks are made of: context, no credential
    "GITHUB_SHA": SHA,
    "GITHUB_REF": "refs/heads/main",
    "GITHUB_RUN_ID": "4242",
    "GITHUB_REPOSITORY": "octo/demo",
}


def _ci(
    tmp: Path,
    *args: str,
    extra_env: dict[str, str] | None = None,
    agent: str = AGENT,
    files: dict[str, str] | None = None,
    path: str = "w.yaml",
) -> tuple[subprocess.CompletedProcess[str], Path]:
    work, dump = tmp / "ws", tmp / "dump"
    work.mkdir()
    dump.mkdir()
    for name, text in (files or {}).items():  # more files of the pull request's tree
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text, encoding="utf-8")
    (work / "w.yaml").write_text(BENCH, encoding="utf-8")
    (work / "w_agent.py").write_text(agent, encoding="utf-8")
    event = tmp / "event.json"
    event.write_text(json.dumps({"repository": {"full_name": "octo/demo", "default_branch": "main"}}))
    env = {
        "PATH": os.environ["PATH"],
        # the code under test, when it is not the installed one (a checkout on PYTHONPATH)
        **{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ},
        "HOME": str(tmp),
        "DUMP_DIR": str(dump),
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_API_URL": "http://127.0.0.1:9",
        "GITHUB_WORKFLOW_REF": "octo/demo/.github/workflows/gate.yml@refs/heads/main",
        "GITHUB_WORKSPACE": str(work),
        **{name: str(tmp / name.lower()) for name in FILE_COMMANDS},
        **CREDENTIALS,
        **PASSING,
        **(extra_env or {}),
    }
    done = subprocess.run(
        [CLI, "ci", path, "--output-dir", str(tmp / "out"), *args],
        cwd=work, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    return done, dump


def _seen(dump: Path) -> dict[str, dict[str, Any]]:
    return {who: json.loads((dump / f"{who}.json").read_text()) for who in ("agent", "grandchild")}


def test_ci_child_env__agent_and_its_subprocess__hold_no_credential_nor_file_command(tmp_path: Path) -> None:
    done, dump = _ci(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    for who, env in _seen(dump).items():
        leaked = sorted(set(env) & {*CREDENTIALS, *FILE_COMMANDS})
        assert leaked == [], f"the {who} sees {leaked}"
        # model keys, other variables and the run's context pass
        assert {k: env.get(k) for k in PASSING} == PASSING, who
    record = json.loads((tmp_path / "out" / "run.json").read_text())
    assert record["run"]["git"]["sha"] == SHA and record["run"]["ci"]["run_id"] == "4242"
    # the parent still writes the workflow's files
    assert "upload-baseline" in (tmp_path / "github_output").read_text()


@pytest.mark.parametrize(
    ("args", "extra_env", "held"),
    [
        (
            ("--hold-env", "UNRELATED_SETTING", "--hold-env", "OPENAI_API_KEY"),
            {},
            {"UNRELATED_SETTING", "OPENAI_API_KEY"},
        ),
        (
            (),
            {"AGENT_EVALS_HOLD_ENV": "UNRELATED_SETTING, AWS_*"},
            {"UNRELATED_SETTING", "AWS_SECRET_ACCESS_KEY"},
        ),
    ],
    ids=["flag", "variable-with-prefix"],
)
def test_ci_child_env__hold_env__holds_the_named_variables_back_too(
    tmp_path: Path, args: tuple[str, ...], extra_env: dict[str, str], held: set[str]
) -> None:
    done, dump = _ci(tmp_path, *args, extra_env=extra_env)
    assert done.returncode == 0, done.stdout + done.stderr
    for who, env in _seen(dump).items():
        assert set(env) & (held | set(CREDENTIALS)) == set(), who
        assert {k: env.get(k) for k in set(PASSING) - held} == {
            k: v for k, v in PASSING.items() if k not in held
        }


def test_ci_child_env__malformed_hold_env__exit_2_before_any_case_runs(tmp_path: Path) -> None:
    done, dump = _ci(tmp_path, "--hold-env", "A=B")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--hold-env" in done.stderr and "'A=B'" in done.stderr
    assert not (dump / "agent.json").exists()


LEAKER = """
import os


def _token():
    # a same-user process can read an ancestor's environment (docs/security.md): walk up to the gate's
    pid = os.getppid()
    while pid > 1:
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                items = fh.read().split(b"\\0")
            with open(f"/proc/{pid}/stat") as fh:
                parent = int(fh.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            return ""
        for item in items:
            if item.startswith(b"GITHUB_TOKEN="):
                return item.split(b"=", 1)[1].decode()
        pid = parent
    return ""


def answer(prompt):
    token = _token()
    print("stolen:", token, flush=True)
    return "ok " + token
"""


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
def test_ci_child_env__token_read_from_the_gate_process__masked_in_the_log_and_the_record(
    tmp_path: Path,
) -> None:
    done, _ = _ci(tmp_path, agent=LEAKER)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "stolen: ***" in done.stdout, done.stdout
    record = (tmp_path / "out" / "run.json").read_text()
    assert TOKEN not in done.stdout + done.stderr + record
    assert '"ok ***"' in record


def test_ci_child_run__a_folder_named_agent_evals_in_the_tree__does_not_stand_in_for_the_tool(
    tmp_path: Path,
) -> None:
    # the suite runs in a child process started in the pull request's tree: a package of that name
    # there (a vendored copy, a module of the project) must not replace the installed tool in it,
    # while the tree's own packages stay importable from a benchmark in a sub-folder, as before
    shadow = "raise SystemExit('SHADOWED: the tree\\'s agent_evals ran instead of the tool')\n"
    files = {
        "agent_evals/__init__.py": shadow,
        "agent_evals/__main__.py": shadow,
        "app/__init__.py": "",
        "app/agent.py": AGENT,
        "evals/app.yaml": BENCH.replace("w_agent:answer", "app.agent:answer"),
    }
    done, dump = _ci(tmp_path, files=files, path="evals/app.yaml")
    assert "SHADOWED" not in done.stdout + done.stderr, done.stdout + done.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    assert (dump / "agent.json").is_file()  # the tree's agent ran, under the tool
