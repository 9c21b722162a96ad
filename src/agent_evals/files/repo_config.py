"""The repository's config file (agent-evals.yaml, or pyproject.toml's table): found and read in one place."""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

from agent_evals.errors import BenchmarkFileError, PolicyError

REPO_CONFIG_NAMES = ("agent-evals.yaml", "agent-evals.yml")
"""Repo config files looked for (top-level ``gate:`` key), before ``pyproject.toml``."""

Locator = Callable[[tuple[str | int, ...]], str]
"""Key path inside a document -> ``file:line:col`` where it was written."""


def repo_yaml(directory: Path) -> Path | None:
    """The first of ``REPO_CONFIG_NAMES`` that is a file in ``directory``."""
    for name in REPO_CONFIG_NAMES:
        if (directory / name).is_file():
            return directory / name
    return None


def find_repo_config(directory: Path, *, table_keys: Collection[str]) -> Path | None:
    """The repo config file in ``directory``: ``agent-evals.yaml``, else a pyproject.toml whose
    ``[tool.agent-evals]`` table holds one of ``table_keys`` (or a misspelt table, found to be refused)."""
    found = repo_yaml(directory)
    if found is not None:
        return found
    pyproject = directory / "pyproject.toml"
    # parse only a pyproject.toml that mentions us: a project without the table needs no TOML reader
    if _mentions_us(pyproject):
        tool = load_toml(pyproject).get("tool", {})
        # a misspelt [tool.agent_evals] table, or knobs in [tool.agent-evals] itself, is read to be refused
        if isinstance(tool, Mapping) and any(
            k.replace("_", "-").lower() == "agent-evals"
            and isinstance(v, Mapping)
            and (k != "agent-evals" or set(table_keys) & v.keys())
            for k, v in tool.items()
        ):
            return pyproject
    return None


def may_hold_config(directory: Path) -> bool:
    """Whether ``directory`` may hold a repo config (nothing parsed): an ``agent-evals.yaml``, or a
    pyproject.toml that mentions agent-evals. False: :func:`find_repo_config` finds none there."""
    return repo_yaml(directory) is not None or _mentions_us(directory / "pyproject.toml")


def _mentions_us(pyproject: Path) -> bool:
    text = pyproject.read_text(encoding="utf-8", errors="replace") if pyproject.is_file() else ""
    return "agent-evals" in text or "agent_evals" in text


def load_toml(path: Path) -> dict[str, Any]:
    """A TOML config file as a mapping; an unreadable one is a PolicyError that names it."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        try:
            import tomli as tomllib
        except ImportError as exc:
            raise PolicyError(
                f"reading {path} on Python 3.10 needs the 'tomli' package: pip install tomli "
                "(or pip install 'agent-evals[all]'), or put the gate: block in agent-evals.yaml"
            ) from exc
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise PolicyError(f"cannot read policy from {path}: {exc}") from exc


def load_config_yaml(path: Path, *, what: str) -> tuple[Any, Locator]:
    """A YAML config file's document (None when empty) and a locator of its keys; a file that cannot be
    read is a PolicyError ``cannot read {what} from file:line:col: ...``."""
    try:
        data, smap = _load_yaml_file(path, str(path))
    except BenchmarkFileError as exc:
        if exc.reason.startswith("the file is empty"):
            return None, lambda loc: str(path)
        raise PolicyError(f"cannot read {what} from {exc}") from exc

    def locate(loc: tuple[str | int, ...]) -> str:
        pos = smap.position(loc, key=True)
        return f"{path}:{pos[0]}:{pos[1]}" if pos else str(path)

    return data, locate


def _load_yaml_file(path: Path, label: str) -> tuple[Any, Any]:
    """The YAML reader, loaded only where a config file exists (most runs have none to read)."""
    from agent_evals.files.yaml_source import load_yaml_file

    return load_yaml_file(path, label)
