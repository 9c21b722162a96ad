"""Eval suite ids: an eval file's path relative to its project root, the same from any working directory."""

from __future__ import annotations

from pathlib import Path

ROOT_MARKERS = ("agent-evals.yaml", "agent-evals.yml", "pyproject.toml")
"""Files that mark a project's root folder when the file is not in a git work tree."""

ID_BASE = "project-root"  # the same value as record.legacy_ids.NEW_IDS
"""``run.suite_ids`` of records whose eval suite ids are made by :func:`suite_id`; records written
before it have no such field, and their eval suite ids are relative to the working directory."""


def project_root(file: Path) -> Path | None:
    """The root of the project ``file`` belongs to: the nearest folder above it holding ``.git`` (a
    work tree's root; a file there for a linked work tree or submodule), else the nearest holding
    one of :data:`ROOT_MARKERS`; None when there is neither."""
    folder = file.resolve().parent
    above = [folder, *folder.parents]
    for candidate in above:
        if (candidate / ".git").exists():
            return candidate
    for candidate in above:
        if any((candidate / name).is_file() for name in ROOT_MARKERS):
            return candidate
    return None


def suite_id(file: Path, cwd: Path) -> str:
    """The suite id of an eval file: its POSIX path relative to :func:`project_root`, the same from any
    working directory. Outside any project it is as it always was: relative to ``cwd`` when below
    it, else absolute."""
    resolved = file.resolve()
    root = project_root(resolved)
    if root is not None:
        return resolved.relative_to(root).as_posix()
    try:
        return resolved.relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return resolved.as_posix()
