"""Safe YAML composition with positions: tags, duplicates, aliases, booleans, limits."""

from __future__ import annotations

import pytest

from agent_evals.benchmark.yaml_source import format_path, load_yaml_text
from agent_evals.errors import BenchmarkFileError


def test_load__records_value_and_key_positions() -> None:
    data, smap = load_yaml_text("a:\n  b: [1, 2]\n", "f.yaml")
    assert data == {"a": {"b": [1, 2]}}
    assert smap.values[("a", "b", 1)] == (2, 10)
    assert smap.keys[("a", "b")] == (2, 3)


def test_load__on_off_yes_no_stay_text_while_true_false_are_booleans() -> None:
    data, _ = load_yaml_text("a: on\nb: off\nc: yes\nd: true\ne: False\n", "f.yaml")
    assert data == {"a": "on", "b": "off", "c": "yes", "d": True, "e": False}


def test_load__dates_stay_text() -> None:
    data, _ = load_yaml_text("d: 2024-01-02\n", "f.yaml")
    assert data == {"d": "2024-01-02"}


def test_load__merge_keys_and_aliases_are_resolved() -> None:
    data, _ = load_yaml_text("base: &b {x: 1}\nuse:\n  <<: *b\n  y: 2\n", "f.yaml")
    assert data["use"] == {"x": 1, "y": 2}


@pytest.mark.parametrize(
    ("text", "line", "column", "fragment"),
    [
        ("a: !!python/object:os.system x\n", 1, 4, "unsupported YAML tag"),
        ("a: !custom 3\n", 1, 4, "unsupported YAML tag"),
        ("a: !!set {x}\n", 1, 4, "unsupported YAML tag"),
        ("a: 1\na: 2\n", 2, 1, "duplicate key 'a' (first given at line 1)"),
        ("a: [1\n", 2, 1, "invalid YAML"),
        ("a: &x [*x]\n", 1, 4, "refers to its own ancestor"),
        ("? [1]\n: 2\n", 1, 3, "mapping keys must be plain strings"),
        ("a: 1\n---\nb: 2\n", 2, 1, "invalid YAML"),
    ],
)
def test_load__malformed_yaml__raises_located_error(text: str, line: int, column: int, fragment: str) -> None:
    with pytest.raises(BenchmarkFileError) as caught:
        load_yaml_text(text, "f.yaml")
    assert (caught.value.line, caught.value.column) == (line, column)
    assert fragment in str(caught.value)
    assert str(caught.value).startswith(f"f.yaml:{line}:{column}: ")


def test_load__empty_document__says_what_was_expected() -> None:
    with pytest.raises(BenchmarkFileError, match="the file is empty"):
        load_yaml_text("# only a comment\n", "f.yaml")


def test_load__alias_bomb__is_refused_not_expanded() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 7)]
    with pytest.raises(BenchmarkFileError, match="expands to more than"):
        load_yaml_text("\n".join(lines) + "\n", "bomb.yaml")


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        (("capabilities", 1, "scenarios", 3, "success"), "capabilities[1].scenarios[3].success"),
        ((), ""),
        (("gate",), "gate"),
    ],
)
def test_format_path__renders_dotted_key_path_with_indexes(path: tuple[str | int, ...], shown: str) -> None:
    assert format_path(path) == shown


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("a: !!int x\n", "invalid int value 'x'"),
        ("a: !!float y\n", "invalid float value 'y'"),
        ("a: !!bool maybe\n", "invalid bool value 'maybe'"),
        ("a: !!map x\n", "unsupported YAML tag"),
    ],
)
def test_load__explicit_scalar_tag_with_a_bad_value__located_error(text: str, fragment: str) -> None:
    with pytest.raises(BenchmarkFileError, match=r"^f\.yaml:1:4: a: ") as caught:
        load_yaml_text(text, "f.yaml")
    assert fragment in str(caught.value)


def test_load__explicit_scalar_tags_and_number_forms() -> None:
    data, _ = load_yaml_text("a: !!str 3\nb: 0x1F\nc: 1_000\nd: !!null x\n", "f.yaml")
    assert data == {"a": "3", "b": 31, "c": 1000, "d": None}
