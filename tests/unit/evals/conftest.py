"""Fixtures for code-first eval tests: write an eval file into a temporary folder and import it."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from agent_evals.evals.discovery import import_eval_file


@pytest.fixture
def eval_file(tmp_path: Path) -> Callable[..., Path]:
    """Write ``source`` (dedented) to ``tmp_path/name`` and return the path."""

    def write(source: str, name: str = "eval_sample.py") -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        return path

    return write


@pytest.fixture
def eval_module(eval_file: Callable[..., Path]) -> Callable[..., ModuleType]:
    """Write an eval file and import it; returns the module."""

    def load(source: str, name: str = "eval_sample.py") -> ModuleType:
        return import_eval_file(eval_file(source, name))

    return load
