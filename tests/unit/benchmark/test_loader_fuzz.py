"""Fuzzing the loader: thousands of malformed documents, each a BenchmarkFileError (never another error, never a hang)."""

from __future__ import annotations

import copy
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_evals.benchmark.loader import load_benchmark
from agent_evals.benchmark.schema import Benchmark, Scenario
from agent_evals.errors import BenchmarkFileError
from agent_evals.files.yaml_source import load_yaml_text

TOKENS = [
    "benchmark: ", "capabilities:", "\n", "\n  - ", "\n    ", "- ", ": ", "name: ", "scenarios:", "id: ",
    "prompt: ", "success:", "state: ", "tool_use:", "calls: ", "match_calls: ", "output:", "regex: ", "scorers:",
    "type: ", "file://", "file://../x.yaml", "file://caps.yaml", "gate:", "world:", "precondition:", "execution:",
    "&a ", "*a", "<<: *a", "!!python/object:os.system ", "!tag ", "!!binary ", "!!bool ", "!!int ", "!!float ", "[", "]", "{", "}", ",", "'", '"',
    "|", ">", "#", "%YAML 1.1\n", "---\n", "...\n", "?", "@", "`", "\t", "~", "null", "true", "on", "1", "-1", "1e9",
    "0x1F", "2024-01-01", "StateMatch", "ToolCallExactMatch", "x", "é", "\x00", "\ufeff",
]  # fmt: skip

yaml_like = st.lists(st.sampled_from(TOKENS), max_size=60).map("".join)

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**12), 10**12), st.floats(allow_nan=True), st.text(max_size=12)
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(["id", "name", "prompt", "type", "state", "x", "calls", "args"]),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=12,
)

VALID: dict[str, Any] = {
    "benchmark": "fuzz",
    "execution": {"runs_per_scenario": 2},
    "world": {"a": {"b": 1}},
    "gate": {"max_drop": 0.1},
    "capabilities": [
        {
            "name": "c",
            "dimensions": {"difficulty": "easy"},
            "scenarios": [
                {
                    "id": 1,
                    "prompt": "p",
                    "precondition": {"state": {"a": {"b": 2}}},
                    "success": {
                        "state": {"a.b": 3},
                        "tool_use": {"calls": [{"name": "t", "args": {"k": 1}}], "match_calls": "exact"},
                        "output": {"contains": "x"},
                    },
                }
            ],
        },
        {"id": "compact", "prompt": "q", "expected_state": {"a.b": 1}},
    ],
}


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*prefix, index))


ALL_PATHS = [p for p in _paths(VALID) if p]
REQUIRED = {"benchmark", "capabilities", "name", "scenarios", "prompt", "calls", "type"}
STRICT: list[tuple[Any, ...]] = [
    (),
    ("execution",),
    ("gate",),
    ("capabilities", 0),
    ("capabilities", 1),
    ("capabilities", 0, "scenarios", 0),
    ("capabilities", 0, "scenarios", 0, "precondition"),
    ("capabilities", 0, "scenarios", 0, "success"),
    ("capabilities", 0, "scenarios", 0, "success", "tool_use"),
    ("capabilities", 0, "scenarios", 0, "success", "tool_use", "calls", 0),
    ("capabilities", 0, "scenarios", 0, "success", "output"),
]
"""Mappings validated by a model that forbids unknown keys."""


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


def _load(folder: Path, text: str) -> Benchmark | BenchmarkFileError:
    path = folder / "fuzz.yaml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        return load_benchmark(path)
    except BenchmarkFileError as err:
        assert err.file is not None and str(err)
        return err


@settings(max_examples=1000, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(text=yaml_like)
def test_fuzz__yaml_like_text__benchmark_file_error_or_valid(text: str) -> None:
    try:
        load_yaml_text(text, "fuzz.yaml")
    except BenchmarkFileError as err:
        assert str(err).startswith("fuzz.yaml")


@settings(max_examples=400, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(text=yaml_like)
def test_fuzz__yaml_like_files__only_benchmark_file_errors(folder: Path, text: str) -> None:
    outcome = _load(folder, "benchmark: fuzz\n" + text)
    assert isinstance(outcome, (Benchmark, BenchmarkFileError))


@settings(max_examples=500, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(ALL_PATHS), delete=st.booleans(), value=values)
def test_fuzz__mutated_valid_document__benchmark_file_error_with_a_line(
    folder: Path, path: tuple[Any, ...], delete: bool, value: Any
) -> None:
    doc = copy.deepcopy(VALID)
    parent = doc
    for part in path[:-1]:
        parent = parent[part]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    outcome = _load(folder, yaml.safe_dump(doc, allow_unicode=True))
    assert isinstance(outcome, (Benchmark, BenchmarkFileError))
    if delete and path[-1] in REQUIRED:
        assert isinstance(outcome, BenchmarkFileError)
        assert outcome.line is not None


@settings(max_examples=250, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(STRICT), key=st.text(min_size=1, max_size=10), value=values)
def test_fuzz__unknown_key_anywhere__benchmark_file_error_at_that_key(
    folder: Path, path: tuple[Any, ...], key: str, value: Any
) -> None:
    doc = copy.deepcopy(VALID)
    target = doc
    for part in path:
        target = target[part]
    if key in target or (
        path == ("capabilities", 1) and (key == "scenarios" or key in Scenario.model_fields)
    ):
        return  # capabilities[1] is the seed's short form, a scenario: each of its fields is known there
    if path[:1] == ("capabilities",) and len(path) == 2 and key == "cases":  # a known key (data-driven cases)
        return
    target[key] = value
    outcome = _load(folder, yaml.safe_dump(doc, allow_unicode=True))
    assert isinstance(outcome, BenchmarkFileError)
    assert outcome.line is not None


def test_fuzz__valid_document__loads(folder: Path) -> None:
    assert isinstance(_load(folder, yaml.safe_dump(VALID)), Benchmark)


GOOD_YAML = (
    "benchmark: fuzz\ncapabilities:\n  - name: c\n    scenarios:\n      - id: a\n"
    '        prompt: "hello"\n        success: {output: {contains: ok}}\n'
)
HOSTILE_BYTES = [
    b"\xff",
    b"\xfe\xff",
    b"\xc3",
    b"\x80",
    b"\x07",
    b"\x1b",
    b"\x00",
    b"\x7f",
    b"\x0c",
    b"\xed\xa0\x80",
]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(offset=st.integers(min_value=0, max_value=len(GOOD_YAML)), junk=st.sampled_from(HOSTILE_BYTES))
def test_fuzz__a_non_utf8_or_control_byte_anywhere__error_at_file_line_col(
    tmp_path: Path, offset: int, junk: bytes
) -> None:
    raw = GOOD_YAML.encode()[:offset] + junk + GOOD_YAML.encode()[offset:]
    path = tmp_path / "b.yaml"
    path.write_bytes(raw)
    try:
        load_benchmark(path)
    except BenchmarkFileError as exc:
        assert exc.file and exc.line is not None and exc.column is not None, str(exc)
        assert str(exc).startswith(f"{exc.file}:{exc.line}:{exc.column}: ")
        return
    # only bytes YAML accepts can load: form feed as whitespace, DEL inside a quoted string
    assert junk in (b"\x0c", b"\x7f", b"\x1b") and raw.decode("utf-8")


@pytest.mark.parametrize(
    ("junk", "line", "column", "words"),
    [(b"\xff", 6, 19, "not UTF-8"), (b"\x07", 6, 19, "U+0007"), (b"\x00", 6, 19, "U+0000")],
    ids=["invalid-utf8", "bell", "nul"],
)
def test_bad_byte_in_a_prompt__named_with_its_line_and_column(
    tmp_path: Path, junk: bytes, line: int, column: int, words: str
) -> None:
    raw = GOOD_YAML.encode().replace(b"hello", b"h" + junk + b"ello")
    path = tmp_path / "b.yaml"
    path.write_bytes(raw)
    with pytest.raises(BenchmarkFileError) as caught:
        load_benchmark(path)
    assert (caught.value.line, caught.value.column) == (line, column) and words in str(caught.value)
