"""A user's module that raises any BaseException at import (or its class at creation) is refused as
that file's error (exit 2), never taken for the end of the run; a real signal still stops it."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agent_evals.adapters.scorers.registry import custom_factory
from agent_evals.benchmark.agent import AgentHandle
from agent_evals.core.signals import forget_signal, note_signal
from agent_evals.errors import AgentLoadError, EvalFileError, UnknownScorer
from agent_evals.evals.discovery import import_eval_file

RAISES = {
    "custom": "class PluginAbort(BaseException):\n    pass\n\nraise PluginAbort('missing OPENAI_API_KEY')\n",
    "sys-exit": "import sys\nsys.exit('no API key configured')\n",
    "keyboard-interrupt": "raise KeyboardInterrupt('raised by code, not a signal')\n",
    "generator-exit": "raise GeneratorExit\n",
}

Load = Callable[[Path, str], object]


def _eval_file(folder: Path, name: str) -> object:
    return import_eval_file(folder / f"{name}.py")


def _agent(folder: Path, name: str) -> object:
    return AgentHandle(f"{name}:agent", base_dir=folder)


def _scorer(folder: Path, name: str) -> object:
    return custom_factory(f"{name}:score", where="bench.yaml:3:5", base_dir=folder)


LOADERS: dict[str, tuple[Load, type[Exception]]] = {
    "eval-file": (_eval_file, EvalFileError),
    "agent-module": (_agent, AgentLoadError),
    "scorer-module": (_scorer, UnknownScorer),
}


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("mod_")]:
        del sys.modules[name]
    forget_signal()


@pytest.mark.parametrize("loader", LOADERS)
@pytest.mark.parametrize("raised", RAISES)
def test_import_raising_a_base_exception__that_files_error_naming_it(
    folder: Path, loader: str, raised: str
) -> None:
    name = f"mod_{loader.replace('-', '_')}_{raised.replace('-', '_')}"
    (folder / f"{name}.py").write_text(RAISES[raised])
    load, error = LOADERS[loader]
    with pytest.raises(error) as caught:
        load(folder, name)
    assert name in str(caught.value)


@pytest.mark.parametrize("loader", LOADERS)
def test_import_interrupted_by_a_real_signal__the_interrupt_goes_through(folder: Path, loader: str) -> None:
    name = f"mod_signal_{loader.replace('-', '_')}"
    (folder / f"{name}.py").write_text(RAISES["keyboard-interrupt"])
    note_signal(2)  # as the CLI's handler notes a Ctrl-C
    load, _ = LOADERS[loader]
    with pytest.raises(KeyboardInterrupt):
        load(folder, name)


def test_agent_class_raising_a_base_exception_when_created__agent_load_error(folder: Path) -> None:
    (folder / "mod_cls.py").write_text("class Agent:\n    def __init__(self):\n        raise SystemExit(3)\n")
    with pytest.raises(AgentLoadError, match="cannot be created"):
        AgentHandle("mod_cls:Agent", base_dir=folder)
