"""`file://` composition: splicing, containment (no '..', absolute paths or symlink escapes) and cycles."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agent_evals.benchmark.loader import load_benchmark
from agent_evals.errors import BenchmarkFileError

Writer = Callable[..., Path]

CAPABILITY = """
name: {name}
scenarios:
  - id: 1
    prompt: p
    success: {{output: {{contains: x}}}}
"""


def _main(write: Writer, *entries: str) -> Path:
    lines = "".join(f"  - {entry}\n" for entry in entries)
    return write("suite/main.yaml", "benchmark: demo\ncapabilities:\n" + lines)


def test_include__one_capability_file__is_spliced_in_place(write: Writer) -> None:
    write("suite/caps/doors.yaml", CAPABILITY.format(name="doors"))
    write("suite/caps/lights.yaml", CAPABILITY.format(name="lights"))
    path = _main(write, "file://caps/doors.yaml", "file://caps/lights.yaml")
    bench = load_benchmark(path)
    assert [c.name for c in bench.capabilities] == ["doors", "lights"]
    assert bench.capabilities[0].scenarios[0].location == (str(Path("suite/caps/doors.yaml")), 3)


def test_include__list_file__splices_every_capability_and_nested_includes(write: Writer) -> None:
    write("suite/caps/a.yaml", CAPABILITY.format(name="a"))
    write("suite/caps/more/b.yaml", CAPABILITY.format(name="b"))
    write(
        "suite/caps/all.yaml",
        "- file://a.yaml\n- file://more/b.yaml\n- {id: c, prompt: p, success: {output: {equals: x}}}\n",
    )
    bench = load_benchmark(_main(write, "file://caps/all.yaml"))
    assert [c.name for c in bench.capabilities] == ["a", "b", "c"]


def test_include__error_inside_included_file__names_that_file_and_line(write: Writer) -> None:
    write("suite/caps/bad.yaml", "name: bad\nscenarios:\n  - id: 1\n    promt: p\n")
    with pytest.raises(BenchmarkFileError) as caught:
        load_benchmark(_main(write, "file://caps/bad.yaml"))
    err = caught.value
    assert (err.file, err.line, err.column) == (str(Path("suite/caps/bad.yaml")), 4, 5)
    assert err.key_path == "scenarios[0].promt"
    assert "did you mean 'prompt'?" in str(err)


@pytest.mark.parametrize(
    ("ref", "fragment"),
    [
        ("file://../outside.yaml", "climbs out with '..'"),
        ("file://caps/../../outside.yaml", "climbs out with '..'"),
        ("file:///etc/passwd", "is absolute"),
        ("file://", "empty file:// reference"),
        ("file://caps/missing.yaml", "does not exist"),
    ],
)
def test_include__reference_outside_or_missing__is_refused_with_location(
    write: Writer, ref: str, fragment: str
) -> None:
    write("outside.yaml", CAPABILITY.format(name="outside"))
    with pytest.raises(BenchmarkFileError) as caught:
        load_benchmark(_main(write, ref))
    err = caught.value
    assert fragment in str(err)
    assert (err.file, err.line, err.column, err.key_path) == (
        str(Path("suite/main.yaml")),
        3,
        5,
        "capabilities[0]",
    )


def test_include__symlink_pointing_outside_the_folder__is_refused(write: Writer, tmp_path: Path) -> None:
    secret = write("secret/cap.yaml", CAPABILITY.format(name="secret"))
    (tmp_path / "suite" / "caps").mkdir(parents=True)
    (tmp_path / "suite" / "caps" / "link.yaml").symlink_to(secret)
    with pytest.raises(BenchmarkFileError, match=r"outside suite/ \(through a symlink\)"):
        load_benchmark(_main(write, "file://caps/link.yaml"))


def test_include__symlinked_folder_pointing_outside__is_refused(write: Writer, tmp_path: Path) -> None:
    write("secret/cap.yaml", CAPABILITY.format(name="secret"))
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "caps").symlink_to(tmp_path / "secret", target_is_directory=True)
    with pytest.raises(BenchmarkFileError, match="through a symlink"):
        load_benchmark(_main(write, "file://caps/cap.yaml"))


def test_include__symlink_that_stays_inside__is_allowed(write: Writer, tmp_path: Path) -> None:
    real = write("suite/caps/real.yaml", CAPABILITY.format(name="real"))
    (tmp_path / "suite" / "caps" / "alias.yaml").symlink_to(real)
    bench = load_benchmark(_main(write, "file://caps/alias.yaml"))
    assert [c.name for c in bench.capabilities] == ["real"]


def test_include__cycle__is_an_error_that_shows_the_cycle(write: Writer) -> None:
    write("suite/a.yaml", "- file://b.yaml\n")
    write("suite/b.yaml", "- file://a.yaml\n")
    with pytest.raises(BenchmarkFileError) as caught:
        load_benchmark(_main(write, "file://a.yaml"))
    message = str(caught.value)
    a, b = str(Path("suite/a.yaml")), str(Path("suite/b.yaml"))
    assert f"include cycle: {a} -> {b} -> {a}" in message
    assert caught.value.file == b


def test_include__file_including_itself__is_a_cycle(write: Writer) -> None:
    with pytest.raises(BenchmarkFileError, match=r"include cycle: suite/main\.yaml -> suite/main\.yaml"):
        load_benchmark(_main(write, "file://main.yaml"))


def test_include__same_capability_twice__is_a_duplicate_name_not_a_cycle(write: Writer) -> None:
    write("suite/caps/a.yaml", CAPABILITY.format(name="a"))
    with pytest.raises(BenchmarkFileError, match="capability 'a' is declared twice"):
        load_benchmark(_main(write, "file://caps/a.yaml", "file://caps/a.yaml"))


def test_include__scalar_file__says_what_an_included_file_must_hold(write: Writer) -> None:
    write("suite/caps/x.yaml", "just text\n")
    with pytest.raises(BenchmarkFileError, match="one capability mapping or a list"):
        load_benchmark(_main(write, "file://caps/x.yaml"))


def test_include__fan_out_bomb__refused_early_with_the_chain(tmp_path: Path) -> None:
    # ten includes of ten includes ... eight levels deep would be 10**8 capabilities
    (tmp_path / "main.yaml").write_text(
        "benchmark: bomb\ncapabilities:\n" + "  - file://l1.yaml\n" * 10, encoding="utf-8"
    )
    for level in range(1, 8):
        (tmp_path / f"l{level}.yaml").write_text(f"- file://l{level + 1}.yaml\n" * 10, encoding="utf-8")
    (tmp_path / "l8.yaml").write_text(
        "name: c\nscenarios:\n  - id: a\n    prompt: p\n    success: {output: {contains: ok}}\n",
        encoding="utf-8",
    )
    with pytest.raises(BenchmarkFileError, match="includes expand too far") as caught:
        load_benchmark(tmp_path / "main.yaml")
    assert "main.yaml -> " in str(caught.value) and "l8.yaml" in str(caught.value)
    assert len(caught.value.problems) == 1  # a spent budget stops the expansion, it is not listed per include


def test_include__the_same_file_many_times_within_the_budget__loads(tmp_path: Path) -> None:
    (tmp_path / "main.yaml").write_text(
        "benchmark: many\ncapabilities:\n" + "".join(f"  - file://c{i}.yaml\n" for i in range(50)),
        encoding="utf-8",
    )
    for i in range(50):
        (tmp_path / f"c{i}.yaml").write_text(
            f"name: c{i}\nscenarios:\n  - id: a\n    prompt: p\n    success: {{output: {{contains: ok}}}}\n",
            encoding="utf-8",
        )
    assert len(load_benchmark(tmp_path / "main.yaml").capabilities) == 50


INCLUDED_FILE_ERRORS = [
    pytest.param("", ("x.yaml", None, None, "the included file is empty"), id="empty-file"),
    pytest.param("[]\n", ("x.yaml", 1, 1, "holds an empty list: it would add no case"), id="empty-list"),
    pytest.param("name: a\nscenarios: [oops:\n", ("x.yaml", 3, 1, "invalid YAML"), id="broken-yaml"),
    pytest.param(
        "name: a\nscenarios:\n  - {id: 1, promt: p}\n", ("x.yaml", 3, 13, "unknown key 'promt'"), id="bad-key"
    ),
]


@pytest.mark.parametrize(("text", "expected"), INCLUDED_FILE_ERRORS)
def test_include__problem_in_included_file__names_that_file_and_the_including_entry(
    write: Writer, text: str, expected: tuple[str, int | None, int | None, str]
) -> None:
    name, line, column, fragment = expected
    write(f"suite/caps/{name}", text)
    with pytest.raises(BenchmarkFileError) as caught:
        load_benchmark(
            _main(write, "{id: first, prompt: p, success: {output: {equals: x}}}", "file://caps/x.yaml")
        )
    err = caught.value
    assert (err.file, err.line, err.column) == (str(Path("suite/caps") / name), line, column)
    assert fragment in err.reason
    assert err.reason.endswith(f"(included from {Path('suite/main.yaml')}:4:5)")


def test_include__empty_list_next_to_other_capabilities__is_refused_not_skipped(write: Writer) -> None:
    # before: the other capability ran alone and the suite could pass with the included cases gone
    write("suite/caps/gone.yaml", "[]\n")
    write("suite/caps/a.yaml", CAPABILITY.format(name="a"))
    with pytest.raises(BenchmarkFileError, match="holds an empty list"):
        load_benchmark(_main(write, "file://caps/a.yaml", "file://caps/gone.yaml"))


def test_include__nested_include_error__names_the_entry_that_included_it(write: Writer) -> None:
    write("suite/caps/all.yaml", "- file://inner.yaml\n")
    write("suite/caps/inner.yaml", "[]\n")
    with pytest.raises(BenchmarkFileError) as caught:
        load_benchmark(_main(write, "file://caps/all.yaml"))
    assert caught.value.file == str(Path("suite/caps/inner.yaml"))
    assert caught.value.reason.endswith(f"(included from {Path('suite/caps/all.yaml')}:1:3)")


def test_include__duplicate_scenario_id__names_both_scenarios_and_where(write: Writer) -> None:
    write(
        "suite/caps/a.yaml",
        "name: a\nscenarios:\n"
        "  - {id: 1, name: kitchen on, prompt: p, success: {output: {equals: x}}}\n"
        "  - {id: 1, name: kitchen off, prompt: q, success: {output: {equals: y}}}\n",
    )
    with pytest.raises(BenchmarkFileError) as caught:
        load_benchmark(_main(write, "file://caps/a.yaml"))
    shown = Path("suite/caps/a.yaml")
    assert caught.value.reason == (
        f"scenario id '1' is used twice in capability 'a': by 'kitchen on' ({shown}:3) and "
        f"'kitchen off' ({shown}:4) (included from {Path('suite/main.yaml')}:3:5)"
    )


@pytest.mark.parametrize("scheme", ["FILE://", "File://"])
def test_include__scheme_in_any_case__is_an_include(write: Writer, scheme: str) -> None:
    # URI schemes are case-insensitive (RFC 3986), as the seed reads them
    write("suite/caps/a.yaml", CAPABILITY.format(name="a"))
    bench = load_benchmark(_main(write, f"{scheme}caps/a.yaml"))
    assert [c.name for c in bench.capabilities] == ["a"]


def test_include__several_entries_wrong__every_one_is_reported_and_the_rest_checked(write: Writer) -> None:
    # a missing file, an absolute path, an entry that is no capability, and a typo in a capability
    # that loads: one message names all four, so the file is not fixed one `validate` at a time
    write("suite/caps/a.yaml", CAPABILITY.format(name="a").replace("prompt", "promt"))
    path = _main(write, "file://caps/gone.yaml", "file:///etc/caps.yaml", "42", "file://caps/a.yaml")
    with pytest.raises(BenchmarkFileError) as caught:
        load_benchmark(path)
    found = [(p.file, p.line, p.key_path) for p in caught.value.problems]
    main, included = str(Path("suite/main.yaml")), str(Path("suite/caps/a.yaml"))
    assert found == [
        (main, 3, "capabilities[0]"),
        (main, 4, "capabilities[1]"),
        (main, 5, "capabilities[2]"),
        (included, 4, "scenarios[0].promt"),
    ]
    text = str(caught.value)
    assert "does not exist" in text and "is absolute" in text and "found int 42" in text
