"""Safe YAML loading straight from libyaml's events, remembering the line and column of every key and value."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import SafeConstructor

from agent_evals.errors import BenchmarkFileError
from agent_evals.files.bounded import read_bounded
from agent_evals.files.long_numbers import where_too_long

try:  # libyaml's parser, when PyYAML was built with it; the pure-Python one yields the same events
    from yaml._yaml import CParser as _Parser
except ImportError:  # pragma: no cover - PyYAML without libyaml
    from yaml import Loader as _Parser  # type: ignore[assignment]

KeyPath = tuple[str | int, ...]
"""A path into a document: mapping keys and list indexes."""

Position = tuple[int, int]
"""1-based (line, column)."""

MAX_NODES = 200_000
"""Upper bound on values built from one file (guards against alias expansion bombs)."""

MAX_BYTES = 5_000_000
"""Upper bound on the size of one benchmark file."""

_TAG = "tag:yaml.org,2002:"
_STR, _INT, _SEQ, _MAP, _MERGE, _VALUE = (
    f"{_TAG}{n}" for n in ("str", "int", "seq", "map", "merge", "value")
)

_SCALAR, _MAPPING_END = yaml.ScalarEvent, yaml.MappingEndEvent

# Plain scalars whose tag we keep as their source text rather than construct (dates stay strings).
_TEXT_TAGS = frozenset({f"{_TAG}timestamp", f"{_TAG}binary"})

_SAFE = SafeConstructor()
_CONSTRUCTORS: dict[str, Callable[[SafeConstructor, yaml.ScalarNode], Any]] = {
    f"{_TAG}{name}": SafeConstructor.yaml_constructors[f"{_TAG}{name}"]
    for name in ("null", "bool", "int", "float")
}
"""PyYAML's own safe constructors for the scalar tags we build (int forms, .inf, ~ ...)."""

_BOOL = f"{_TAG}bool"
_BOOL_TEXT = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_IMPLICIT: dict[str, tuple[tuple[str, re.Pattern[str]], ...]] = {
    first: tuple((tag, regexp) for tag, regexp in resolvers if tag != _BOOL)
    + (((_BOOL, _BOOL_TEXT),) if first in "tTfF" else ())
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    if first is not None
}
"""First character of a plain scalar -> the tags it may resolve to: PyYAML's table with YAML 1.2
booleans (only true/false are booleans, so `on`/`off`/`yes`/`no` stay text)."""


def _resolve(text: str) -> str:
    """The tag of a plain (unquoted, untagged) scalar."""
    for tag, regexp in _IMPLICIT.get(text[:1], ()):
        if regexp.match(text):
            return tag
    return _STR


@dataclass
class SourceMap:
    """Where each value (and each mapping key) of a document was written."""

    file: str
    """The file the document came from, as shown in messages."""
    values: dict[KeyPath, Position] = field(default_factory=dict)
    """Key path -> 1-based (line, column) of the value."""
    keys: dict[KeyPath, Position] = field(default_factory=dict)
    """Key path -> 1-based (line, column) of the mapping key that introduces it."""
    links: dict[KeyPath, KeyPath] = field(default_factory=dict)
    """An alias's or merged key's path -> the path whose text it repeats (positions below it are there)."""
    included_from: str | None = None
    """``file:line:col`` of the ``file://`` entry that brought this document in (None: not included)."""

    def _find(self, table: dict[KeyPath, Position], path: KeyPath) -> Position | None:
        hops = 0
        while path not in table and hops < 64:  # each link points to text earlier in the file
            linked = next((i for i in range(len(path) + 1) if path[:i] in self.links), None)
            if linked is None:
                return None
            path = (*self.links[path[:linked]], *path[linked:])
            hops += 1
        return table.get(path)

    def position(self, path: KeyPath, *, key: bool = False) -> Position | None:
        """The closest known position of ``path`` (walking up to its parents when needed)."""
        probe = tuple(path)
        if key and (found := self._find(self.keys, probe)):
            return found
        while True:
            if found := self._find(self.values, probe):
                return found
            if not probe:
                return None
            probe = probe[:-1]

    def error(self, message: str, path: KeyPath, *, key: bool = False) -> BenchmarkFileError:
        """A located error for ``path``: file:line:col, dotted key path, message."""
        pos = self.position(path, key=key)
        if self.included_from:
            message = f"{message} (included from {self.included_from})"
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
    """Read and build one YAML file into plain Python values plus its source map."""
    fail = partial(BenchmarkFileError, file=shown_as)
    raw = read_bounded(path, MAX_BYTES, called="the file", kind="benchmark files", fail=fail)
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
    """Build YAML text safely (no object tags) into plain values plus a source map."""
    smap = SourceMap(file=shown_as)
    parser = _Parser(text)
    try:
        try:
            value = _Builder(parser, smap).document()
        except BenchmarkFileError:
            while parser.get_event() is not None:
                pass  # a syntax error further on is reported first: the file must parse before anything else
            raise
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


@dataclass
class _Anchor:
    """A node named with ``&name``: where it was written and, once built, its value."""

    path: KeyPath
    position: Position
    built: bool = False
    value: Any = None
    size: int = 1
    """How many values it counts for each time an alias repeats it."""
    text: str | None = None
    """A scalar's source text (what a mapping key made from it is called); None for collections."""


class _Builder:
    """Turns parser events into dicts/lists/scalars, recording positions as it goes (one pass, no nodes)."""

    def __init__(self, parser: Any, smap: SourceMap) -> None:
        self.next: Callable[[], Any] = parser.get_event
        self.smap = smap
        self.values = smap.values
        self.keys = smap.keys
        self.count = 0
        self.anchors: dict[str, _Anchor] = {}

    def _fail(self, message: str, pos: Position, path: KeyPath) -> BenchmarkFileError:
        return BenchmarkFileError(
            message, file=self.smap.file, line=pos[0], column=pos[1], key_path=format_path(path) or None
        )

    def document(self) -> Any:
        self.next()  # stream start
        if type(self.next()) is yaml.StreamEndEvent:
            raise BenchmarkFileError(
                "the file is empty; expected a mapping with `benchmark:`", file=self.smap.file
            )
        value = self.value(self.next(), ())
        self.next()  # document end
        extra = self.next()
        if type(extra) is not yaml.StreamEndEvent:
            mark = extra.start_mark
            raise BenchmarkFileError(
                "invalid YAML: a second document starts here; a benchmark file holds one document "
                "(remove the `---` line or split the file)",
                file=self.smap.file,
                line=mark.line + 1,
                column=mark.column + 1,
            )
        return value

    def value(self, event: Any, path: KeyPath) -> Any:
        """Build the value that ``event`` starts, at ``path``."""
        self.count += 1
        if self.count > MAX_NODES:
            raise self.smap.error(
                f"the document expands to more than {MAX_NODES} values (too many aliases?)", path
            )
        mark = event.start_mark
        pos = (mark.line + 1, mark.column + 1)
        self.values[path] = pos
        kind = type(event)
        if kind is yaml.ScalarEvent:
            if event.tag is None and event.anchor is None:
                text: str = event.value
                if not event.implicit[0] or not _IMPLICIT.get(text[:1]):
                    return text  # quoted, or plain text no other type can claim (the common case)
            out = self._scalar(event, pos, path)
            if event.anchor is not None:
                self.anchors[event.anchor] = _Anchor(path, pos, True, out, 1, event.value)
            return out
        if kind is yaml.AliasEvent:
            return self._alias(event, pos, path)
        anchor = None
        if event.anchor is not None:
            anchor = self.anchors[event.anchor] = _Anchor(path, pos)
            before = self.count
        if kind is yaml.SequenceStartEvent:
            self._check_tag(event.tag, _SEQ, path)
            out = self._sequence(path)
        elif kind is yaml.MappingStartEvent:
            self._check_tag(event.tag, _MAP, path)
            out = self._mapping(path)
        else:  # pragma: no cover - the parser yields nothing else where a value belongs
            raise self.smap.error(f"unexpected YAML event {kind.__name__}", path)
        if anchor is not None:
            anchor.built, anchor.value, anchor.size = True, out, self.count - before + 1
        return out

    def _scalar(self, event: Any, pos: Position, path: KeyPath) -> Any:
        tag, text = event.tag, event.value
        if tag is None or tag == "!":
            if not event.implicit[0]:
                return text  # quoted: always text
            tag = _resolve(text)
        if tag == _STR or tag in _TEXT_TAGS:
            return text
        if tag == _INT and text.isascii() and text.isdigit() and (text[0] != "0" or text == "0"):
            try:  # plain decimal (a leading 0 is octal in YAML 1.1: the constructor decides)
                return int(text)
            except ValueError as exc:  # more digits than Python reads
                raise self._fail(where_too_long(text)[2], pos, path) from exc
        construct = _CONSTRUCTORS.get(tag)
        if construct is None:
            raise self._fail(
                f"unsupported YAML tag {tag!r}; only plain values, lists and mappings are allowed", pos, path
            )
        try:
            return construct(_SAFE, yaml.ScalarNode(tag, text))
        except Exception as exc:  # the constructors raise KeyError, IndexError, ValueError ... on bad text
            raise self._fail(f"invalid {tag.rsplit(':', 1)[-1]} value {text!r}", pos, path) from exc

    def _alias(self, event: Any, pos: Position, path: KeyPath) -> Any:
        anchor = self.anchors.get(event.anchor)
        if anchor is None:
            raise self._fail(
                f"invalid YAML: the alias *{event.anchor} names no anchor; define `&{event.anchor}` before it",
                pos,
                path,
            )
        self.values[path] = anchor.position  # as if its text were written here
        if not anchor.built:
            raise self.smap.error("a YAML alias refers to its own ancestor (recursive structure)", path)
        self.count += anchor.size - 1
        if self.count > MAX_NODES:
            raise self.smap.error(
                f"the document expands to more than {MAX_NODES} values (too many aliases?)", path
            )
        self.smap.links[path] = anchor.path
        value = anchor.value
        return copy.deepcopy(value) if isinstance(value, (dict, list)) else value

    def _check_tag(self, tag: str | None, expected: str, path: KeyPath) -> None:
        if tag is not None and tag != "!" and tag != expected:
            raise self.smap.error(
                f"unsupported YAML tag {tag!r}; only plain values, lists and mappings are allowed", path
            )

    def _sequence(self, path: KeyPath) -> list[Any]:
        out: list[Any] = []
        next_event = self.next
        while (event := next_event()).__class__ is not yaml.SequenceEndEvent:
            out.append(self.value(event, (*path, len(out))))
        return out

    def _mapping(self, path: KeyPath) -> dict[str, Any]:
        out: dict[str, Any] = {}
        merged: dict[str, Any] | None = None
        next_event = self.next
        keys, values, links = self.keys, self.values, self.smap.links
        implicit = _IMPLICIT.get
        while (event := next_event()).__class__ is not _MAPPING_END:
            mark = event.start_mark
            pos = (mark.line + 1, mark.column + 1)
            if (
                event.__class__ is _SCALAR
                and event.tag is None
                and event.anchor is None
                and event.implicit[0]
                and not implicit(event.value[:1])
            ):  # plain text such as `prompt` (the common case, done here)
                self.count += 1
                key: str = event.value
            else:
                named = self._key(event, pos, path)
                if named is None:  # `<<: *defaults`
                    merged = self._merge(path, merged, out)
                    continue
                key = named
            child = (*path, key)
            if key in out:
                raise self._fail(f"duplicate key {key!r} (first given at line {keys[child][0]})", pos, child)
            keys[child] = pos
            if links:
                links.pop(child, None)  # it no longer repeats a merged mapping's key
            item: Any = next_event()
            if (
                item.__class__ is _SCALAR
                and item.tag is None
                and item.anchor is None
                and (not item.implicit[0] or not implicit(item.value[:1]))
            ):  # text, quoted or plain, as in value() (the common case, done here)
                self.count += 1
                if self.count > MAX_NODES:
                    raise self.smap.error(
                        f"the document expands to more than {MAX_NODES} values (too many aliases?)", child
                    )
                spot: Any = item.start_mark
                values[child] = (spot.line + 1, spot.column + 1)
                out[key] = item.value
            else:
                out[key] = self.value(item, child)
        if merged:  # merged keys come first; the mapping's own keys win
            merged.update(out)
            return merged
        return out

    def _key(self, event: Any, pos: Position, path: KeyPath) -> str | None:
        """A mapping key as text (None for the merge key ``<<``)."""
        self.count += 1
        kind = type(event)
        text: str
        if kind is yaml.AliasEvent:
            anchor = self.anchors.get(event.anchor)
            if anchor is not None and anchor.built and anchor.text is not None:
                key, text = anchor.value, anchor.text
            elif anchor is None:
                raise self._fail(f"invalid YAML: the alias *{event.anchor} names no anchor", pos, path)
            else:
                raise self._fail("mapping keys must be plain strings, not lists or mappings", pos, path)
        elif kind is yaml.ScalarEvent:
            text = event.value
            if event.tag is None and event.implicit[0]:
                tag = _resolve(text)
                if tag == _MERGE:
                    return None
                if tag == _VALUE:
                    return text
            key = self._scalar(event, pos, (*path, "<key>"))
            if event.anchor is not None:
                self.anchors[event.anchor] = _Anchor((*path, "<key>"), pos, True, key, 1, text)
        else:
            raise self._fail("mapping keys must be plain strings, not lists or mappings", pos, path)
        if isinstance(key, bool) or key is None or isinstance(key, float):
            return text
        return str(key)

    def _merge(self, path: KeyPath, merged: dict[str, Any] | None, own: dict[str, Any]) -> dict[str, Any]:
        """Add the mapping(s) a ``<<`` key names to ``merged``; an earlier one wins over a later one."""
        where = (*path, "<<")
        value = self.value(self.next(), where)
        if isinstance(value, dict):
            sources = [(value, where)]
        elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            sources = [(item, (*where, i)) for i, item in enumerate(value)]
        else:
            raise self.smap.error(
                "invalid merge key: `<<` takes a mapping or a list of mappings (such as `<<: *defaults`)",
                where,
            )
        merged = {} if merged is None else merged
        for source, at in sources:
            for key, item in source.items():
                if key not in merged:
                    merged[key] = item
                    if key not in own:
                        linked: KeyPath = (*path, key)
                        self.smap.links[linked] = (*at, key)
        return merged
