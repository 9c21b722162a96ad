"""``@eval(cases="file.csv")``: an eval's cases read from a CSV or JSONL file next to the eval file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TypeGuard

from agent_evals.evals.spec import CASE_KEYS
from agent_evals.files.rows import RowError, read_rows

LABEL_SEPARATOR = ";"
"""Separates several labels in one CSV cell (``smoke;fast``)."""


def is_case_file(value: Any) -> TypeGuard[str | os.PathLike[str]]:
    """Whether ``cases=`` names a file rather than listing the cases."""
    return isinstance(value, (str, os.PathLike))


def read_case_file(ref: str | os.PathLike[str], declared_in: str) -> list[dict[str, Any]]:
    """The cases of a ``.csv`` / ``.jsonl`` file, relative to the folder of ``declared_in`` (the eval file).

    CSV columns are the case keys (``id``, ``input``, ``reference``, ``dataset``, ``labels`` with
    several labels separated by ``;``, and ``metadata.<key>``); JSONL lines are case dicts. Raises
    ValueError naming ``file:line`` for an unreadable file, an unknown column or a repeated id.
    """
    path = Path(ref)
    if not path.is_absolute() and declared_in:
        path = Path(declared_in).resolve().parent / path
    shown = str(ref)
    if not path.is_file():
        raise ValueError(f"cases file {shown} does not exist (looked for {path})")
    try:
        rows = read_rows(path, shown)
    except RowError as exc:
        raise ValueError(str(exc)) from exc
    cases: list[dict[str, Any]] = []
    lines: dict[str, int] = {}
    for line, row in rows:
        unknown = sorted(str(k) for k in row if k not in CASE_KEYS)
        if unknown:
            raise ValueError(
                f"{shown}:{line}: unknown key(s) {', '.join(unknown)}; accepted: {', '.join(CASE_KEYS)}"
            )
        case = dict(row)
        if path.suffix == ".csv" and isinstance(case.get("labels"), str):
            case["labels"] = [p.strip() for p in case["labels"].split(LABEL_SEPARATOR) if p.strip()]
        if "id" in case:
            key = str(case["id"])
            if key in lines:
                raise ValueError(f"{shown}:{line}: id {key!r} is used twice (first at line {lines[key]})")
            lines[key] = line
        cases.append(case)
    return cases
