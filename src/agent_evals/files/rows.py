"""Read data-driven cases from a CSV or JSONL file: one mapping per row, each with its line number."""

from __future__ import annotations

import csv
import io
import json
from functools import partial
from pathlib import Path
from typing import Any

from agent_evals.files.bounded import read_bounded
from agent_evals.files.long_numbers import where_too_long

ROW_SUFFIXES = (".csv", ".jsonl")
"""File kinds ``cases:`` may name."""

MAX_ROW_BYTES = 20_000_000
"""Upper bound on the size of one cases file."""


class RowError(ValueError):
    """A cases file or one of its rows that cannot be read; names ``file:line``."""

    def __init__(self, message: str, *, file: str, line: int | None = None) -> None:
        self.file = file
        self.line = line
        self.reason = message
        where = f"{file}:{line}" if line is not None else file
        super().__init__(f"{where}: {message}")


DottedUnder = tuple[tuple[str, ...], ...]
"""Column-name prefixes below which the rest of a CSV column name is one dotted key."""


def _nest(row: dict[str, str], file: str, line: int, dotted_under: DottedUnder = ()) -> dict[str, Any]:
    """``{"success.output.contains": "x"}`` -> ``{"success": {"output": {"contains": "x"}}}``; empty cells skipped.

    Below a prefix in ``dotted_under`` the rest of the name stays one dotted key:
    ``success.state.lights.kitchen`` -> ``{"success": {"state": {"lights.kitchen": ...}}}``.
    """
    out: dict[str, Any] = {}
    for column, value in row.items():
        if value is None or value == "":
            continue
        parts = column.strip().split(".")
        if not all(parts):
            raise RowError(f"column {column!r} is not a name or a dotted path", file=file, line=1)
        for prefix in dotted_under:
            if len(parts) > len(prefix) and tuple(parts[: len(prefix)]) == prefix:
                parts = [*prefix, ".".join(parts[len(prefix) :])]
                break
        node = out
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise RowError(f"column {column!r} conflicts with column {part!r}", file=file, line=line)
            node = child
        if isinstance(node.get(parts[-1]), dict):
            raise RowError(f"column {column!r} conflicts with a dotted column under it", file=file, line=line)
        node[parts[-1]] = value
    return out


def read_rows(path: Path, shown: str, *, dotted_under: DottedUnder = ()) -> list[tuple[int, dict[str, Any]]]:
    """Every row of a ``.csv`` (header row; dotted column names nest) or ``.jsonl`` (one object a line).

    CSV cells stay text (empty cells are left out); JSONL values keep their JSON types. Blank JSONL
    lines are skipped. Raises RowError naming the file and line of the first problem.
    """
    if path.suffix not in ROW_SUFFIXES:
        raise RowError(
            f"cases files are {' or '.join(ROW_SUFFIXES)}, not {path.suffix or 'a file without suffix'}",
            file=shown,
        )
    fail = partial(RowError, file=shown)
    raw = read_bounded(path, MAX_ROW_BYTES, called="the cases file", kind="cases files", fail=fail)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RowError(f"the file is not UTF-8 text ({exc.reason})", file=shown) from exc
    rows = _csv(text, shown, dotted_under) if path.suffix == ".csv" else _jsonl(text, shown)
    if not rows:
        raise RowError("the cases file holds no rows", file=shown)
    return rows


def _csv(text: str, shown: str, dotted_under: DottedUnder) -> list[tuple[int, dict[str, Any]]]:
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    rows = []
    try:
        header = reader.fieldnames or []
        if len(set(header)) != len(header):
            repeated = sorted({h for h in header if header.count(h) > 1})
            raise RowError(f"the header repeats column(s) {', '.join(repeated)}", file=shown, line=1)
        for row in reader:
            line = reader.line_num
            if None in row:
                raise RowError(
                    f"the row has {len(header) + len(row[None])} cells; the header has {len(header)}",
                    file=shown,
                    line=line,
                )
            missing = sum(1 for value in row.values() if value is None)
            if missing:  # a short row: often a line break in an unquoted cell, which splits the row
                raise RowError(
                    f"the row has {len(header) - missing} cells; the header has {len(header)} "
                    "(quote a cell that holds a comma or a line break; leave a cell empty with ,,)",
                    file=shown,
                    line=line,
                )
            rows.append((line, _nest(row, shown, line, dotted_under)))
    except csv.Error as exc:
        raise RowError(f"invalid CSV: {exc}", file=shown, line=reader.line_num) from exc
    return rows


def _jsonl(text: str, shown: str) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RowError(
                f"not valid JSON: {exc.msg} (column {exc.colno})", file=shown, line=number
            ) from exc
        except ValueError as exc:  # a number of more digits than Python reads
            _, column, why = where_too_long(line)
            raise RowError(f"{why} (column {column})", file=shown, line=number) from exc
        if not isinstance(value, dict):
            raise RowError(
                f"each line must be a JSON object, found {type(value).__name__}", file=shown, line=number
            )
        rows.append((number, value))
    return rows
