"""Import lightness: the package, the native scorers and `agent-evals --help` load no heavy dependency."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

HEAVY = (
    "langchain",
    "langchain_core",
    "langgraph",
    "autoevals",
    "agentevals",
    "jinja2",
    "requests",
    "openai",
    # agent frameworks TaskResult.from_run reads by shape, never by import
    "agents",
    "pydantic_ai",
    "strands",
    "opentelemetry",
)


def imported_modules(code: str) -> set[str]:
    """Run ``code`` in a fresh interpreter with -X importtime and list every module it imported."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    names = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name and name != "package":
                names.add(name)
    return names


def heavy_in(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


@pytest.mark.parametrize(
    "code",
    [
        "import agent_evals",
        "import agent_evals.adapters.scorers",
        "from agent_evals import run_eval_async, TaskResult, ExampleData, Score, EvalConfig",
        "from agent_evals.adapters.scorers import StateMatch, ToolCallExactMatch, ToolCallAnyMatch",
        "from agent_evals.adapters.platforms.local import LocalConfig",
        "from agent_evals.core.scorer import call_scorer, scorer_name",
    ],
)
def test_import__core_paths__pull_in_no_heavy_dependency(code: str) -> None:
    modules = imported_modules(code)
    assert "agent_evals" in modules  # the probe saw our own imports
    assert heavy_in(modules) == []


def test_import__scorers_package__does_not_load_wrapper_modules() -> None:
    modules = imported_modules("import agent_evals.adapters.scorers")
    assert "agent_evals.adapters.scorers.autoevals" not in modules
    assert "agent_evals.adapters.scorers.agentevals" not in modules


def test_cli_help__imports_no_heavy_dependency() -> None:
    code = "import sys; from agent_evals.cli.main import main; sys.argv = ['agent-evals', '--help']; main()"
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Usage" in proc.stdout
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert heavy_in(modules) == []


def test_scorers_package__every_exported_name__resolves_to_a_callable() -> None:
    pytest.importorskip("autoevals")
    pytest.importorskip("agentevals")
    import agent_evals.adapters.scorers as scorers

    unresolved = [name for name in scorers.__all__ if not callable(getattr(scorers, name, None))]
    assert unresolved == []
    assert scorers.ValidJSON is importlib.import_module("agent_evals.adapters.scorers.autoevals").ValidJSON


def test_scorers_package__unknown_name__attribute_error() -> None:
    import agent_evals.adapters.scorers as scorers

    with pytest.raises(AttributeError, match="no attribute 'NotAScorer'"):
        scorers.NotAScorer  # noqa: B018
