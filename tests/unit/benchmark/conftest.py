"""Fixtures for benchmark tests: write YAML files (and agent modules) into a temporary folder."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

Writer = Callable[..., Path]


@pytest.fixture
def write(tmp_path: Path) -> Writer:
    """Write dedented text to ``tmp_path / name`` (folders created) and return the path."""

    def _write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    return _write


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Error messages show paths relative to the working directory; keep them short and stable.
    monkeypatch.chdir(tmp_path)
