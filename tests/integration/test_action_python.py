"""action.yml runs under the job's Python: its shell steps run in order against real virtual environments."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
import yaml
from test_action_yml import ACTION, BENCH, ROOT, Runner, _runner
from test_workflow_lint import _lint

import agent_evals

AGENT = "import jobdep\n\n\ndef answer(prompt):\n    return jobdep.ANSWER\n"
PUSH = ("push", {"repository": {"default_branch": "main"}}, "refs/heads/main")


def _wheel(folder: Path, name: str, files: dict[str, str], entry_points: str = "") -> Path:
    """A pure-Python wheel built by hand (pip installs it with no index and no build backend)."""
    info = f"{name}-1.0.dist-info"
    files = {
        **files,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        **({f"{info}/entry_points.txt": entry_points} if entry_points else {}),
    }
    path = folder / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as whl:
        for arcname, text in files.items():
            whl.writestr(arcname, text)
        whl.writestr(f"{info}/RECORD", "".join(f"{n},,\n" for n in (*files, f"{info}/RECORD")))
    return path


def _action_checkout(tmp_path: Path) -> Path:
    """A stand-in for the action's checkout that `pip install "$GITHUB_ACTION_PATH"` installs offline.

    Its wheel gives the environment the `agent-evals` command and reaches the code under test and
    its dependencies (click, pydantic, ...) through a .pth file; an in-tree build backend hands pip
    that wheel, so nothing is fetched.
    """
    checkout = tmp_path / "action-checkout"
    checkout.mkdir()
    code = Path(agent_evals.__file__).resolve().parents[1]
    deps = dict.fromkeys([sysconfig.get_path("purelib"), sysconfig.get_path("platlib")])
    wheel = _wheel(
        checkout,
        "agent_evals_standin",
        {"agent_evals_standin.pth": "".join(f"{p}\n" for p in (code, *deps))},
        "[console_scripts]\nagent-evals = agent_evals.cli.main:main\n",
    )
    (checkout / "pyproject.toml").write_text(
        '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n'
    )
    (checkout / "backend.py").write_text(
        "import shutil\n\n\ndef build_wheel(wheel_directory, config_settings=None, metadata_directory=None):\n"
        f"    shutil.copy({str(wheel)!r}, wheel_directory)\n    return {wheel.name!r}\n"
    )
    return checkout


def _python(folder: Path, *, pip: bool = False) -> Path:
    """A Python of the job's (a virtual environment standing in for actions/setup-python's); its bin folder."""
    flags = [] if pip else ["--without-pip"]
    subprocess.run([sys.executable, "-m", "venv", *flags, str(folder)], check=True, timeout=120)
    return folder / "bin"


def _gate(tmp_path: Path, workspace: Path, job_python: Path, inputs: dict[str, str]) -> Runner:
    """The action's steps run in a job whose own steps set up ``job_python`` (first on PATH)."""
    runner = _runner(
        tmp_path, workspace, {"path": "bench.yaml", "working-directory": "evals", **inputs}, *PUSH
    )
    # what the action's own actions/setup-python step (when it runs) puts first on PATH: another Python
    runner.setup_python = _python(tmp_path / "toolcache-python")
    runner.env.update(
        PATH=os.environ["PATH"],
        GITHUB_ACTION_PATH=str(_action_checkout(tmp_path)),
        PIP_NO_INDEX="1",  # nothing is fetched
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    # the job's own set-up step, through the file commands as actions/setup-python does it
    job_step = {
        "name": "the job's Python",
        "shell": "bash",
        "env": {"JOB_PYTHON": str(job_python)},
        "run": 'echo "$JOB_PYTHON" >> "$GITHUB_PATH"\necho "pythonLocation=${JOB_PYTHON%/bin}" >> "$GITHUB_ENV"\n',
    }
    runner.run({"runs": {"steps": [job_step]}, "outputs": {}})
    assert runner.env["PATH"].startswith(f"{job_python}:") and runner.env["pythonLocation"] == str(
        job_python.parent
    )
    runner.ran.clear()
    return runner


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The job's checkout: a benchmark whose agent imports `jobdep`."""
    (tmp_path / "ws" / "evals").mkdir(parents=True)
    (tmp_path / "ws" / "evals" / "bench.yaml").write_text(BENCH)
    (tmp_path / "ws" / "evals" / "tiny_agent.py").write_text(AGENT)
    return tmp_path / "ws"


@pytest.fixture
def jobdep(tmp_path: Path) -> Path:
    """The agent's dependency, as a wheel (the agent imports `jobdep`)."""
    folder = tmp_path / "dist"
    folder.mkdir()
    return _wheel(folder, "jobdep", {"jobdep.py": 'ANSWER = "ok"\n'})


def test_action__job_installed_the_agents_dependencies_under_its_python__the_gate_imports_them(
    tmp_path: Path, workspace: Path, jobdep: Path
) -> None:
    # set-up (a): the job's own steps set up Python and pip-install the agent's dependencies there
    job_python = _python(tmp_path / "job-python", pip=True)
    subprocess.run(
        [job_python / "python", "-m", "pip", "install", "--quiet", "--no-index", str(jobdep)],
        check=True, timeout=120,
    )  # fmt: skip
    runner = _gate(tmp_path, workspace, job_python, {})
    outputs = runner.run(ACTION)
    assert "ModuleNotFoundError" not in runner.env["LOG"], runner.env["LOG"]
    assert not runner.failed, runner.env["LOG"]
    assert "Set up Python" not in runner.ran
    assert f"under {job_python / 'python3'}" in runner.env["LOG"]
    assert outputs["status"] == "no-baseline" and outputs["pass-rate"] == "1.0000"


def test_action__job_python_is_an_installed_python__what_the_job_installed_there_is_imported(
    tmp_path: Path, workspace: Path, jobdep: Path
) -> None:
    # set-up (a) as actions/setup-python gives it: an installed Python, not a virtual environment, whose
    # packages the action's environment reaches through --system-site-packages. The job's package goes
    # to that Python's user site (as `pip install --user` puts it), which needs the same flag.
    base = Path(getattr(sys, "_base_executable", sys.executable))
    if not (base.parent / "python3").is_file() or (base.parent / "python3").resolve() != base.resolve():
        pytest.skip(f"no python3 beside the installed Python {base}")
    userbase = {"PYTHONUSERBASE": str(tmp_path / "userbase")}
    probe = [base, "-c", "import site, sys; print(site.getusersitepackages(), sys.prefix != sys.base_prefix)"]
    user_site, in_venv = subprocess.run(
        probe, env={**os.environ, **userbase}, capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert in_venv == "False"
    with zipfile.ZipFile(jobdep) as whl:
        whl.extractall(user_site)
    runner = _gate(tmp_path, workspace, base.parent, {})
    runner.env.update(userbase)
    outputs = runner.run(ACTION)
    assert not runner.failed, runner.env["LOG"]
    assert f"under {base.parent / 'python3'}" in runner.env["LOG"]
    assert outputs["status"] == "no-baseline" and outputs["pass-rate"] == "1.0000"


def test_action__dependencies_installed_through_the_install_input__the_gate_imports_them(
    tmp_path: Path, workspace: Path, jobdep: Path
) -> None:
    # set-up (b): the job has a Python without the dependencies; `install:` puts them in the action's environment
    job_python = _python(tmp_path / "job-python")
    runner = _gate(
        tmp_path,
        workspace,
        job_python,
        {"install": f"pip install --quiet --no-index {shlex.quote(str(jobdep))}"},
    )
    outputs = runner.run(ACTION)
    assert not runner.failed, runner.env["LOG"]
    assert runner.ran[:2] == ["Install agent-evals", "Install the project"]
    assert outputs["status"] == "no-baseline" and outputs["pass-rate"] == "1.0000"
    # the job's Python is left as it was: the dependency went into agent-evals' environment only
    probe = subprocess.run([job_python / "python", "-c", "import jobdep"], capture_output=True, timeout=60)
    assert probe.returncode == 1


def test_action__explicit_python_version__runs_under_the_python_setup_python_put_first(
    tmp_path: Path, workspace: Path, jobdep: Path
) -> None:
    job_python = _python(tmp_path / "job-python")
    runner = _gate(
        tmp_path,
        workspace,
        job_python,
        {"python-version": "3.12", "install": f"pip install --quiet --no-index {shlex.quote(str(jobdep))}"},
    )
    outputs = runner.run(ACTION)
    assert not runner.failed, runner.env["LOG"]
    assert runner.ran[0] == "Set up Python"
    assert runner.setup_python is not None
    assert f"under {runner.setup_python / 'python3'}" in runner.env["LOG"]
    assert outputs["status"] == "no-baseline"


def test_action__no_python_on_path__the_install_step_fails_saying_what_to_do(
    tmp_path: Path, workspace: Path
) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    bash = shutil.which("bash")
    assert bash is not None
    (bare / "bash").symlink_to(bash)
    runner = _runner(tmp_path, workspace, {"path": "bench.yaml", "working-directory": "evals"}, *PUSH)
    runner.env["PATH"] = str(bare)
    outputs = runner.run(ACTION)
    assert runner.failed and runner.ran == ["Install agent-evals"]
    assert "::error::no python3 or python on PATH" in runner.env["LOG"]
    assert "actions/setup-python" in runner.env["LOG"]
    assert outputs["status"] == ""


SETUPS = "### The agent's dependencies, and the Python the gate runs under"
JOB = """on: push
permissions: {}
jobs:
  gate:
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1
        with:
          persist-credentials: false
"""


@pytest.mark.parametrize("doc", ["README.md", "docs/github-actions.md"])
def test_docs__the_two_set_ups__shown_and_each_a_valid_job(doc: str, tmp_path: Path) -> None:
    section = (ROOT / doc).read_text().split(f"\n{SETUPS}\n", 1)[1].split("\n### ", 1)[0]
    blocks = re.findall(r"```yaml\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 2, f"{doc}: the set-ups (a) and (b), one block each"
    job_installs, action_installs = (yaml.safe_load(JOB + b)["jobs"]["gate"]["steps"] for b in blocks)
    # (a) a step of the job installs the dependencies, then the action runs with no `install`
    assert "pip install" in job_installs[-2]["run"] and "install" not in job_installs[-1]["with"]
    # (b) no step of the job installs anything; the action's `install` does
    assert not any("run" in step for step in action_installs) and action_installs[-1]["with"]["install"]
    files = []
    for i, block in enumerate(blocks):
        path = tmp_path / ".github" / "workflows" / f"setup-{i}.yml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            JOB + block.replace("<owner>/agent-evals@<commit-sha>", "owner/agent-evals@" + "a" * 40)
        )
        files.append(path)
    _lint(files)


def test_action__python_floor__is_the_packages_requires_python() -> None:
    floor = re.search(r'^requires-python = ">=(\d+)\.(\d+)"$', (ROOT / "pyproject.toml").read_text(), re.M)
    assert floor is not None
    [install] = [step for step in ACTION["runs"]["steps"] if step["name"] == "Install agent-evals"]
    major, minor = floor.groups()
    assert f"sys.version_info < ({major}, {minor})" in install["run"]
    assert f"agent-evals needs Python {major}.{minor} or newer" in install["run"]


OLD_PYTHONS = ["python3.9", "python3.8", "python3.7"]


def test_action__job_python_too_old__the_install_step_fails_saying_what_to_do(
    tmp_path: Path, workspace: Path
) -> None:
    found = [shutil.which(name) for name in OLD_PYTHONS]
    works = [p for p in found if p and subprocess.run([p, "-c", ""], capture_output=True).returncode == 0]
    if not works:
        pytest.skip(f"no Python older than 3.10 on PATH ({', '.join(OLD_PYTHONS)})")
    old = tmp_path / "old-python"
    old.mkdir()
    (old / "python3").symlink_to(works[0])
    runner = _runner(tmp_path, workspace, {"path": "bench.yaml", "working-directory": "evals"}, *PUSH)
    runner.env["PATH"] = f"{old}:{os.environ['PATH']}"
    outputs = runner.run(ACTION)
    assert runner.failed and runner.ran == ["Install agent-evals"]
    assert "::error::agent-evals needs Python 3.10 or newer" in runner.env["LOG"]
    assert not (runner.temp / "agent-evals-venv").exists() and outputs["status"] == ""


# Modules of the pull request's tree named like those the action's Python steps run (`python -m venv`,
# `-m pip`, `-m agent_evals.ci.child_env`, what they import): were one imported, it would run outside
# the scrubbed environment, with the file commands (GITHUB_ENV could change the gate's policy). A
# shard runs every such step: the installs, then child_env; the gate step runs `agent-evals ci`, whose
# own child process is ci's business.
SHADOWS = ["venv.py", "ensurepip.py", "pip.py", "glob.py", "agent_evals/__init__.py",
           "agent_evals/ci/__init__.py", "agent_evals/ci/child_env.py"]  # fmt: skip
SHADOW = (
    'import os\nopen(os.path.join(os.environ["RUNNER_TEMP"], "shadowed.txt"), "a").write(__file__ + "\\n")\n'
)


def test_action__pull_requests_tree_names_a_module_like_the_steps__its_python_steps_never_import_it(
    tmp_path: Path, workspace: Path, jobdep: Path
) -> None:
    for folder in (workspace, workspace / "evals"):
        for name in SHADOWS:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(SHADOW)
    inputs = {
        "install": f"pip install --quiet --no-index {shlex.quote(str(jobdep))}",
        "shard": "1/1",
        "gate-id": "g",
    }
    runner = _gate(tmp_path, workspace, _python(tmp_path / "job-python"), inputs)
    runner.run(ACTION)
    shadowed = runner.temp / "shadowed.txt"
    assert not shadowed.exists(), shadowed.read_text()
    assert not runner.failed, runner.env["LOG"]
    assert runner.ran[:3] == ["Install agent-evals", "Install the project", "Run one shard"]
    assert (runner.temp / "agent-evals" / "shard-1.json").is_file()
