"""Safe YAML composition with positions: tags, duplicates, aliases, booleans, limits."""

from __future__ import annotations

import pytest

from agent_evals.errors import BenchmarkFileError
from agent_evals.files.yaml_source import format_path, load_yaml_text


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
        # more digits than Python reads: an internal error (exit 3) before, with no location
        ("a:\n  b: " + "7" * 4301 + "\n", 2, 6, "a number of 4,301 digits, more than can be read"),
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


def test_load__a_mappings_own_keys_win_over_merged_ones_and_are_located_where_written() -> None:
    data, smap = load_yaml_text("base: &b {x: 1, z: 3}\nuse:\n  <<: *b\n  x: 2\n", "f.yaml")
    assert data["use"] == {"x": 2, "z": 3}
    assert smap.position(("use", "x")) == (4, 6)
    assert smap.position(("use", "z")) == (1, 20)  # the merged value, where it was written


def test_load__of_several_merged_mappings_the_first_listed_wins() -> None:
    data, _ = load_yaml_text("a: &a {x: 1}\nb: &b {x: 2, y: 2}\nuse:\n  <<: [*a, *b]\n", "f.yaml")
    assert data["use"] == {"x": 1, "y": 2}


def test_load__positions_inside_an_alias_are_those_of_the_anchored_text() -> None:
    data, smap = load_yaml_text("a: &a {p: {q: 1}}\nb: *a\n", "f.yaml")
    assert data["b"] == {"p": {"q": 1}}
    assert smap.position(("b", "p", "q")) == (1, 15)
    assert smap.position(("b", "p"), key=True) == (1, 8)


def test_load__each_alias_gets_its_own_copy_of_the_anchored_mapping() -> None:
    data, _ = load_yaml_text("a: &a {p: [1]}\nb: *a\n", "f.yaml")
    data["b"]["p"].append(2)
    assert data["a"] == {"p": [1]}


def test_load__an_anchor_named_again__later_aliases_repeat_the_newer_node() -> None:
    data, _ = load_yaml_text("a: &x 1\nb: &x 2\nc: *x\n", "f.yaml")
    assert data == {"a": 1, "b": 2, "c": 2}


@pytest.mark.parametrize(
    ("text", "line", "column", "fragment"),
    [
        ("a: 1\nb: *nowhere\n", 2, 4, "the alias *nowhere names no anchor"),
        ("a: !custom 1\nb: [1\n", 3, 1, "invalid YAML"),  # the syntax error first, though later
        ("a: {x: 1}\nb:\n  <<: 3\n", 3, 7, "invalid merge key"),
    ],
)
def test_load__alias_merge_and_ordering_problems__located_error(
    text: str, line: int, column: int, fragment: str
) -> None:
    with pytest.raises(BenchmarkFileError) as caught:
        load_yaml_text(text, "f.yaml")
    assert (caught.value.line, caught.value.column) == (line, column), str(caught.value)
    assert fragment in str(caught.value)
