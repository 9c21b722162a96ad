"""Safe YAML loading that remembers the line and column of every key and value."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agent_evals.errors import BenchmarkFileError

KeyPath = tuple[str | int, ...]
"""A path into a document: mapping keys and list indexes."""

MAX_NODES = 200_000
"""Upper bound on values built from one file (guards against alias expansion bombs)."""

MAX_BYTES = 5_000_000
"""Upper bound on the size of one benchmark file."""

_SCALAR_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null"))

# Plain scalars whose tag we keep as their source text rather than construct (dates stay strings).
_TEXT_TAGS = frozenset({"tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:binary"})


_SafeBase: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when built in


class _Loader(_SafeBase):  # type: ignore[valid-type,misc]
    """Safe loader with YAML 1.2 booleans: only true/false are booleans, so `on`/`off`/`yes`/`no` stay text."""


_BOOL_TAG = "tag:yaml.org,2002:bool"
_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != _BOOL_TAG]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(_BOOL_TAG, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


@dataclass
class SourceMap:
    """Where each value (and each mapping key) of a document was written."""

    file: str
    """The file the document came from, as shown in messages."""
    values: dict[KeyPath, tuple[int, int]] = field(default_factory=dict)
    """Key path -> 1-based (line, column) of the value."""
    keys: dict[KeyPath, tuple[int, int]] = field(default_factory=dict)
    """Key path -> 1-based (line, column) of the mapping key that introduces it."""

    def position(self, path: KeyPath, *, key: bool = False) -> tuple[int, int] | None:
        """The closest known position of ``path`` (walking up to its parents when needed)."""
        probe = tuple(path)
        if key and probe in self.keys:
            return self.keys[probe]
        while True:
            if probe in self.values:
                return self.values[probe]
            if not probe:
                return None
            probe = probe[:-1]

    def error(self, message: str, path: KeyPath, *, key: bool = False) -> BenchmarkFileError:
        """A located error for ``path``: file:line:col, dotted key path, message."""
        pos = self.position(path, key=key)
        return BenchmarkFileError(
            message,
            file=self.file,
            line=pos[0] if pos else None,
            column=pos[1] if pos else None,
            key_path=format_path(path) or None,
        )


def format_path(path: KeyPath) -> str:
    """Render ``("capabilities", 1, "scenarios", 3)`` as ``capabilities[1].scenarios[3]``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def load_yaml_file(path: Path, shown_as: str) -> tuple[Any, SourceMap]:
    """Read and compose one YAML file into plain Python values plus its source map."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise BenchmarkFileError(f"cannot read the file: {exc.strerror or exc}", file=shown_as) from exc
    if len(raw) > MAX_BYTES:
        raise BenchmarkFileError(
            f"the file is {len(raw)} bytes; benchmark files are limited to {MAX_BYTES} bytes", file=shown_as
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise BenchmarkFileError(
            f"the file is not UTF-8 text: byte 0x{raw[exc.start]:02x} ({exc.reason}); save it as UTF-8",
            file=shown_as,
            line=line,
            column=column,
        ) from exc
    return load_yaml_text(text, shown_as)


def load_yaml_text(text: str, shown_as: str) -> tuple[Any, SourceMap]:
    """Compose YAML text safely (no object tags) into plain values plus a source map."""
    smap = SourceMap(file=shown_as)
    try:
        loader = _Loader(text)
        try:
            root = loader.get_single_node()
            if root is None:
                raise BenchmarkFileError(
                    "the file is empty; expected a mapping with `benchmark:`", file=shown_as
                )
            builder = _Builder(loader, smap)
            value = builder.build(root, ())
        finally:
            dispose = getattr(loader, "dispose", None)
            if dispose is not None:
                dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        raise BenchmarkFileError(
            f"invalid YAML: {problem}",
            file=shown_as,
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
        ) from exc
    except yaml.reader.ReaderError as exc:  # a control or other unprintable character
        before = text[: exc.position]
        code = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "\0")
        raise BenchmarkFileError(
            f"invalid YAML: the control character U+{code:04X} is not allowed in YAML; remove it, or write "
            "it as an escape in a double-quoted string",
            file=shown_as,
            line=before.count("\n") + 1,
            column=exc.position - (before.rfind("\n") + 1) + 1,
        ) from exc
    except yaml.YAMLError as exc:
        raise BenchmarkFileError(f"invalid YAML: {exc}", file=shown_as) from exc
    except RecursionError as exc:
        raise BenchmarkFileError("the YAML document is nested too deeply", file=shown_as) from exc
    return value, smap


class _Builder:
    """Turns composed nodes into dicts/lists/scalars, recording positions as it goes."""

    def __init__(self, loader: _Loader, smap: SourceMap) -> None:
        self.loader = loader
        self.smap = smap
        self.count = 0
        self.active: set[int] = set()

    def _mark(self, node: yaml.Node) -> tuple[int, int]:
        return (node.start_mark.line + 1, node.start_mark.column + 1)

    def build(self, node: yaml.Node, path: KeyPath) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise self.smap.error(
                f"the document expands to more than {MAX_NODES} values (too many aliases?)", path
            )
        self.smap.values.setdefault(path, self._mark(node))
        if isinstance(node, yaml.ScalarNode):
            if node.tag in _TEXT_TAGS:
                return node.value
            if node.tag not in _SCALAR_TAGS:
                raise self.smap.error(
                    f"unsupported YAML tag {node.tag!r}; only plain values, lists and mappings are allowed",
                    path,
                )
            try:
                return self.loader.yaml_constructors[node.tag](self.loader, node)
            except (
                Exception
            ) as exc:  # the constructors raise KeyError, IndexError, ValueError ... on bad text
                raise self.smap.error(
                    f"invalid {node.tag.rsplit(':', 1)[-1]} value {node.value!r}", path
                ) from exc
        if id(node) in self.active:
            raise self.smap.error("a YAML alias refers to its own ancestor (recursive structure)", path)
        self.active.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                self._check_tag(node, "tag:yaml.org,2002:seq", path)
                return [self.build(child, (*path, i)) for i, child in enumerate(node.value)]
            if isinstance(node, yaml.MappingNode):
                self._check_tag(node, "tag:yaml.org,2002:map", path)
                return self._mapping(node, path)
        finally:
            self.active.discard(id(node))
        raise self.smap.error(f"unsupported YAML node {type(node).__name__}", path)

    def _check_tag(self, node: yaml.Node, expected: str, path: KeyPath) -> None:
        if node.tag != expected:
            raise self.smap.error(
                f"unsupported YAML tag {node.tag!r}; only plain values, lists and mappings are allowed", path
            )

    def _mapping(self, node: yaml.MappingNode, path: KeyPath) -> dict[str, Any]:
        try:
            self.loader.flatten_mapping(node)  # resolves `<<: *anchor` merge keys
        except yaml.constructor.ConstructorError as exc:
            raise self.smap.error(f"invalid merge key: {exc.problem}", path) from exc
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise BenchmarkFileError(
                    "mapping keys must be plain strings, not lists or mappings",
                    file=self.smap.file,
                    line=self._mark(key_node)[0],
                    column=self._mark(key_node)[1],
                    key_path=format_path(path) or None,
                )
            key = self.build(key_node, (*path, "<key>"))
            self.smap.values.pop((*path, "<key>"), None)
            if isinstance(key, bool) or key is None or isinstance(key, float):
                key = key_node.value
            key = str(key)
            child = (*path, key)
            if key in out:
                raise BenchmarkFileError(
                    f"duplicate key {key!r} (first given at line {self.smap.keys[child][0]})",
                    file=self.smap.file,
                    line=self._mark(key_node)[0],
                    column=self._mark(key_node)[1],
                    key_path=format_path(child),
                )
            self.smap.keys[child] = self._mark(key_node)
            out[key] = self.build(value_node, child)
        return out
