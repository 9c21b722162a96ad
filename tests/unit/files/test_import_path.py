"""search_from: the file's folder first on sys.path, the working directory last, each once."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agent_evals.files.import_path import search_from

CASES = [
    # (situation, sys.path before, with placeholders, sys.path after)
    ("neither there", ["/lib"], ["FOLDER", "/lib", "CWD"]),
    ("both there already", ["CWD", "/lib", "FOLDER"], ["CWD", "/lib", "FOLDER"]),
    ("the working directory searched as ''", ["", "/lib"], ["FOLDER", "", "/lib"]),
    ("the folder is the working directory", ["/lib"], ["CWD", "/lib"]),
]


@pytest.mark.parametrize(("situation", "before", "after"), CASES, ids=[c[0] for c in CASES])
def test_search_from__path_as_it_was__folder_first_working_directory_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, situation: str, before: list[str], after: list[str]
) -> None:
    cwd = tmp_path / "project"
    folder = cwd if situation == "the folder is the working directory" else cwd / "evals"
    folder.mkdir(parents=True, exist_ok=True)
    monkeypatch.chdir(cwd)
    names = {"FOLDER": str(folder.resolve()), "CWD": str(Path.cwd())}
    monkeypatch.setattr(sys, "path", [names.get(p, p) for p in before])
    search_from(folder)
    search_from(folder)  # a second file of the same folder changes nothing
    assert sys.path == [names.get(p, p) for p in after]
