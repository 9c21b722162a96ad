"""Load a benchmark file: compose `file://` capabilities, validate everything, locate every error."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from agent_evals.benchmark.checkers import CheckerError, compile_scenario
from agent_evals.benchmark.schema import Benchmark, Capability, Scenario
from agent_evals.errors import BenchmarkFileError, did_you_mean
from agent_evals.files.yaml_source import KeyPath, SourceMap, format_path, load_yaml_file

INCLUDE_PREFIX = "file://"
"""Prefix of a capability entry that names another YAML file."""

STATE_COLUMNS = (("success", "state"), ("expected_state",), ("precondition", "state"))
"""CSV column prefixes whose rest is a dotted state path: ``success.state.lights.kitchen.state``."""

MAX_INCLUDE_DEPTH = 16
"""How deep ``file://`` includes may nest."""

MAX_INCLUDES = 1_000
"""How many ``file://`` includes one benchmark may expand in all (the same file counted each time)."""

MAX_INCLUDE_BYTES = 50_000_000
"""How many bytes of included YAML one benchmark may read in all."""


@dataclass
class _Budget:
    """What the includes of one benchmark have used so far."""

    files: int = 0
    bytes: int = 0


@dataclass
class _Located:
    """A raw capability mapping together with where its keys were written."""

    data: Any
    smap: SourceMap
    path: KeyPath
    compact: bool
    rows: dict[int, tuple[SourceMap, KeyPath]] = field(default_factory=dict)
    """Scenario index -> where a scenario read from the ``cases`` file was written."""


def shown_path(path: Path) -> str:
    """A path as messages show it: relative to the working directory when it is below it."""
    absolute = path if path.is_absolute() else Path.cwd() / path
    try:
        return str(absolute.relative_to(Path.cwd()))
    except ValueError:  # outside the working directory
        return str(absolute)


def load_benchmark(path: str | os.PathLike[str]) -> Benchmark:
    """Load, compose and fully validate a benchmark file; raise ``BenchmarkFileError`` on any problem."""
    file = Path(path)
    shown = shown_path(file)
    if not file.is_file():
        raise BenchmarkFileError("no such benchmark file", file=shown)
    data, smap = load_yaml_file(file, shown)
    if not isinstance(data, dict):
        raise smap.error(f"expected a mapping with `benchmark:` at the top, found {_kind(data)}", ())
    real = file.resolve()
    raw_caps = data.get("capabilities")
    capabilities: list[Capability] = []
    problems: list[BenchmarkFileError] = []  # every capability and the top level are checked: all are shown
    if isinstance(raw_caps, list):
        located = _expand(raw_caps, smap, ("capabilities",), real, [real], _Budget(), problems)
        for item in located:
            try:
                capabilities.append(_validate_capability(item))
            except BenchmarkFileError as exc:
                problems.append(exc)
    top = {k: v for k, v in data.items() if k != "capabilities"}
    if "capabilities" in data:
        top["capabilities"] = capabilities if isinstance(raw_caps, list) else raw_caps
    try:
        bench: Benchmark = _validate(Benchmark, top, smap, ())
    except BenchmarkFileError as exc:
        if not problems:
            raise
        # a capability that failed is left out of the list: "capabilities" problems follow from that
        problems += [p for p in exc.problems if not (p.key_path or "").startswith("capabilities")]
    if problems:
        raise _all_of(problems, shown)
    bench._path = shown
    bench._agent_at = smap.position(("agent",))
    if problems := _check_unique(bench, located if isinstance(raw_caps, list) else [], real.parent):
        raise _all_of(problems, shown)
    if bench.gate is not None:
        bench.gate = _validate_gate(bench.gate, smap)
    return bench


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"{type(value).__name__} {value!r}"[:80]


def _expand(
    entries: list[Any],
    smap: SourceMap,
    base: KeyPath,
    including: Path,
    stack: list[Path],
    budget: _Budget,
    problems: list[BenchmarkFileError],
) -> list[_Located]:
    """Turn capability entries into located mappings, splicing ``file://`` includes in place; an entry
    that is neither, or an include that fails, adds to ``problems`` and the others go on (an include
    budget spent stops it all)."""
    out: list[_Located] = []
    for index, entry in enumerate(entries):
        where = (*base, index)
        if isinstance(entry, str) and entry[: len(INCLUDE_PREFIX)].lower() == INCLUDE_PREFIX:
            try:
                out.extend(_include(entry, smap, where, including, stack, budget, problems))
            except BenchmarkFileError as exc:
                if budget.files > MAX_INCLUDES or budget.bytes > MAX_INCLUDE_BYTES:
                    raise
                problems.append(exc)
        elif isinstance(entry, dict):
            compact = _is_compact(entry)
            out.append(_Located(entry, smap, where, compact))
        else:
            problems.append(
                smap.error(
                    f"expected a capability mapping (name + scenarios), a scenario with id + prompt, "
                    f"or 'file://relative/path.yaml'; found {_kind(entry)}",
                    where,
                )
            )
    return out


def _is_compact(entry: dict[str, Any]) -> bool:
    """The seed's short form: a scenario (id + prompt) standing where a capability would."""
    return "scenarios" not in entry and ("prompt" in entry or "id" in entry)


def _include(
    ref: str,
    smap: SourceMap,
    where: KeyPath,
    including: Path,
    stack: list[Path],
    budget: _Budget,
    problems: list[BenchmarkFileError],
) -> list[_Located]:
    rel = ref[len(INCLUDE_PREFIX) :]
    folder = including.parent
    if not rel.strip():
        raise smap.error("empty file:// reference; expected 'file://relative/path.yaml'", where)
    rel_path = Path(rel)
    if rel_path.is_absolute() or rel.startswith(("/", "\\")) or (len(rel) > 1 and rel[1] == ":"):
        raise smap.error(f"{ref!r} is absolute; includes must be relative to the including file", where)
    if ".." in rel_path.parts or ".." in rel.replace("\\", "/").split("/"):
        raise smap.error(
            f"{ref!r} climbs out with '..'; includes must stay inside {shown_path(folder)}/", where
        )
    target = folder / rel_path
    try:
        real = target.resolve()
    except (OSError, RuntimeError) as exc:  # symlink loops
        raise smap.error(f"cannot resolve {ref!r}: {exc}", where) from exc
    if not real.is_relative_to(folder):
        raise smap.error(
            f"{ref!r} resolves to {real}, outside {shown_path(folder)}/ (through a symlink); "
            "includes must stay inside the including file's folder",
            where,
        )
    if real in stack:
        cycle = " -> ".join(shown_path(p) for p in [*stack[stack.index(real) :], real])
        raise smap.error(f"include cycle: {cycle}", where)
    if len(stack) > MAX_INCLUDE_DEPTH:
        raise smap.error(f"includes nest deeper than {MAX_INCLUDE_DEPTH} files", where)
    if not real.is_file():
        raise smap.error(f"included file {shown_path(target)} does not exist", where)
    budget.files += 1
    budget.bytes += real.stat().st_size
    if budget.files > MAX_INCLUDES or budget.bytes > MAX_INCLUDE_BYTES:
        chain = " -> ".join(shown_path(p) for p in [*stack, real])
        raise smap.error(
            f"includes expand too far: over {MAX_INCLUDES:,} file:// includes or {MAX_INCLUDE_BYTES:,} bytes "
            f"in all (the same file counts each time it is included); refused at {chain}",
            where,
        )
    pos = smap.position(where)
    site = f"{smap.file}:{pos[0]}:{pos[1]}" if pos else smap.file
    try:
        data, sub = load_yaml_file(real, shown_path(target))
    except BenchmarkFileError as exc:
        reason = exc.reason
        if reason.startswith("the file is empty"):
            reason = "the included file is empty; it must hold one capability mapping or a list of them"
        raise BenchmarkFileError(
            f"{reason} (included from {site})",
            file=exc.file,
            line=exc.line,
            column=exc.column,
            key_path=exc.key_path,
        ) from exc
    sub.included_from = site
    if isinstance(data, list):
        if not data:
            raise sub.error(
                "the included file holds an empty list: it would add no case; "
                "list capabilities in it or remove the include",
                (),
            )
        return _expand(data, sub, (), real, [*stack, real], budget, problems)
    if isinstance(data, dict):
        compact = _is_compact(data)
        return [_Located(data, sub, (), compact)]
    raise sub.error(
        f"an included file must hold one capability mapping or a list of them; found {_kind(data)}", ()
    )


def _validate_capability(item: _Located) -> Capability:
    raw = item.data
    if item.compact:
        single = dict(raw)
        raw = {"name": str(single.get("id", "")), "scenarios": [single]}
    from_rows: list[Scenario] = []
    if isinstance(raw, dict) and isinstance(raw.get("cases"), str):
        given = raw.get("scenarios")
        inline: list[Any] = given if isinstance(given, list) else []
        from_rows = _scenarios_from_rows(raw["cases"], item, first=len(inline))
        raw = {**raw, "scenarios": [*inline, *from_rows]}
    cap: Capability = _validate(Capability, raw, item.smap, item.path, compact=item.compact)
    for index, scenario in enumerate(cap.scenarios):
        if index in item.rows:
            continue  # located at its row already
        spath = item.path if item.compact else (*item.path, "scenarios", index)
        pos = item.smap.position(spath)
        scenario.locate(item.smap.file, pos[0] if pos else None)
    return cap


def _scenarios_from_rows(ref: str, item: _Located, *, first: int) -> list[Scenario]:
    """The scenarios of a capability's ``cases`` file, each validated and located at its row."""
    from agent_evals.files.rows import RowError, read_rows

    where = (*item.path, "cases")
    rel = Path(ref)
    if not ref.strip() or rel.is_absolute() or ref.startswith(("/", "\\")) or ".." in rel.parts:
        raise item.smap.error(f"cases {ref!r} must be a relative path inside this file's folder", where)
    folder = Path(item.smap.file).resolve().parent
    target = (folder / rel).resolve()
    if not target.is_relative_to(folder):
        raise item.smap.error(f"cases {ref!r} resolves outside {shown_path(folder)}/", where)
    if not target.is_file():
        raise item.smap.error(f"cases file {shown_path(folder / rel)} does not exist", where)
    shown = shown_path(folder / rel)
    try:
        rows = read_rows(target, shown, dotted_under=STATE_COLUMNS)
    except RowError as exc:
        raise BenchmarkFileError(exc.reason, file=exc.file, line=exc.line) from exc
    scenarios = []
    for number, (line, row) in enumerate(rows):
        path: KeyPath = ("row", number + 1)
        smap = SourceMap(file=shown, values={path: (line, 1)})
        scenario: Scenario = _validate(Scenario, row, smap, path)
        scenario.locate(shown, line)
        item.rows[first + number] = (smap, path)
        scenarios.append(scenario)
    return scenarios


def _real_parts(loc: tuple[Any, ...], raw: Any) -> KeyPath:
    """Keep the loc parts that are keys or indexes of ``raw`` (drops pydantic's union-member tags)."""
    parts: list[str | int] = []
    node = raw
    for i, part in enumerate(loc):
        last = i == len(loc) - 1
        if isinstance(node, dict) and isinstance(part, str) and (part in node or last):
            parts.append(part)
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            parts.append(part)
            node = node[part]
        elif last and isinstance(part, (str, int)) and not isinstance(node, (dict, list)):
            continue
    return tuple(parts)


def _map_loc(loc: tuple[Any, ...], base: KeyPath, compact: bool, raw: Any = None) -> KeyPath:
    parts: KeyPath = (
        _real_parts(loc, raw) if raw is not None else tuple(p for p in loc if isinstance(p, (str, int)))
    )
    if compact:
        if parts[:2] == ("scenarios", 0):
            parts = parts[2:]
        elif parts[:1] == ("name",):
            parts = ("id",)
    return (*base, *parts)


def _validate(
    model: type[BaseModel], raw: Any, smap: SourceMap, base: KeyPath, *, compact: bool = False
) -> Any:
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise _located_error(exc, smap, base, compact, raw=raw) from None


def _located_error(
    exc: ValidationError,
    smap: SourceMap,
    base: KeyPath,
    compact: bool,
    known: list[str] | None = None,
    raw: Any = None,
) -> BenchmarkFileError:
    """Every problem pydantic found, each located, in file order (the first leads the message)."""
    problems = [
        _located_one(error, smap, base, compact, known, raw) for error in exc.errors(include_url=False)
    ]
    return BenchmarkFileError.of_all(sorted(problems, key=_file_order))


def _file_order(problem: BenchmarkFileError) -> tuple[int, int]:
    return (problem.line or 1 << 30, problem.column or 0)


def _located_one(
    error: Any, smap: SourceMap, base: KeyPath, compact: bool, known: list[str] | None, raw: Any
) -> BenchmarkFileError:
    path = _map_loc(tuple(error["loc"]), base, compact, raw)
    kind = error["type"]
    if kind == "unknown_key":
        key = error.get("ctx", {}).get("key", "")
        return smap.error(error["msg"], (*path, key), key=True)
    if kind == "missing":
        return smap.error(f"missing required key {path[-1]!r}", path[:-1])
    if kind == "extra_forbidden":
        hint = did_you_mean(str(path[-1]), known or [])
        allowed = f" (allowed: {', '.join(known)})" if known else ""
        return smap.error(f"unknown key {path[-1]!r}{hint}{allowed}", path, key=True)
    message = error["msg"].removeprefix("Value error, ")
    got = error.get("input")
    shown = "" if isinstance(got, (dict, list)) or got is None else f" (found {got!r})"[:120]
    return smap.error(f"{message}{shown}", path)


def _all_of(problems: list[BenchmarkFileError], shown: str) -> BenchmarkFileError:
    """One error with every problem: the file's own lines in file order, then its includes' problems."""
    each = [one for problem in problems for one in problem.problems]
    own = sorted((p for p in each if p.file == shown), key=_file_order)
    return BenchmarkFileError.of_all([*own, *(p for p in each if p.file != shown)])


def _check_unique(bench: Benchmark, located: list[_Located], base_dir: Path) -> list[BenchmarkFileError]:
    """Every repeated capability name or scenario id, and every scenario whose checks do not compile
    (each scenario that compiles keeps its plan)."""
    problems: list[BenchmarkFileError] = []
    seen_caps: dict[str, int] = {}
    for ci, (cap, item) in enumerate(zip(bench.capabilities, located, strict=False)):
        name_path = (*item.path, "id") if item.compact else (*item.path, "name")
        if cap.name in seen_caps:
            problems.append(
                item.smap.error(
                    f"capability {cap.name!r} is declared twice (case ids must be unique); rename one",
                    name_path,
                )
            )
        seen_caps.setdefault(cap.name, ci)
        seen: dict[str, Scenario] = {}
        for si, scenario in enumerate(cap.scenarios):
            smap, spath = item.rows.get(si) or (
                item.smap,
                item.path if item.compact else (*item.path, "scenarios", si),
            )
            first = seen.get(scenario.key)
            if first is not None:
                problems.append(
                    smap.error(
                        f"scenario id {scenario.key!r} is used twice in capability {cap.name!r}: "
                        f"by {_described(first)} and {_described(scenario)}",
                        (*spath, "id"),
                    )
                )
            seen.setdefault(scenario.key, scenario)
            try:
                scenario.keep_plan(compile_scenario(scenario, bench.world, base_dir))
            except CheckerError as err:
                problems.append(smap.error(str(err), (*spath, *err.path)))
    return problems


def _described(scenario: Scenario) -> str:
    """``'kitchen on' (bench.yaml:7)``: the name when it has one, and where it was declared."""
    file, line = scenario.location
    where = f"{file}:{line}" if line is not None else file
    return f"{scenario.name!r} ({where})" if scenario.name else f"the scenario at {where}"


def _validate_gate(gate: dict[str, Any], smap: SourceMap) -> dict[str, Any]:
    from agent_evals.gate.policy import OverrideBlock, PolicyBlock

    try:
        block = PolicyBlock.model_validate(gate)
    except ValidationError as exc:
        nested = "overrides" in exc.errors()[0]["loc"][:-1]
        known = list((OverrideBlock if nested else PolicyBlock).model_fields)
        raise _located_error(exc, smap, ("gate",), False, known, raw=gate) from None
    dumped: dict[str, Any] = block.model_dump(mode="json", exclude_unset=True)
    return dumped


__all__ = ["INCLUDE_PREFIX", "format_path", "load_benchmark", "shown_path"]
