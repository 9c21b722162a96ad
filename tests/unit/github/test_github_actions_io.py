"""Workflow commands, step outputs and the job summary, written as the runner reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_evals.github.actions_io import (
    Annotation,
    append_summary,
    escape_data,
    escape_property,
    parse_outputs,
    render_annotations,
    write_outputs,
)


@pytest.mark.parametrize(
    ("raw", "data", "prop"),
    [
        ("50% drop", "50%25 drop", "50%25 drop"),
        ("a\nb\r", "a%0Ab%0D", "a%0Ab%0D"),
        ("x: y, z", "x: y, z", "x%3A y%2C z"),
        ("%0A", "%250A", "%250A"),
    ],
)
def test_escape__special_characters__encoded_as_runner_expects(raw: str, data: str, prop: str) -> None:
    assert escape_data(raw) == data
    assert escape_property(raw) == prop


def test_annotation__file_line_title__rendered_with_escaped_properties() -> None:
    line = Annotation(
        "error", "regressed:\nwas 100%", file="bench/a,b.yaml", line=12, title="cap: x"
    ).render()
    assert line == "::error file=bench/a%2Cb.yaml,line=12,title=cap%3A x::regressed:%0Awas 100%25"


def test_render_annotations__more_than_cap__capped_with_notice() -> None:
    lines = render_annotations([Annotation("error", f"m{i}") for i in range(13)], cap=10)
    assert len(lines) == 11
    assert lines[-1] == "::notice::3 more annotation(s) left out; see the job summary"


def test_write_outputs__multiline_and_tricky_values__round_trip(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.write_text("earlier=1\n")
    values = {"status": "passed", "report": "line 1\nline2\n\nEOF\n", "x": "a=b<<c"}
    write_outputs(out, values)
    assert parse_outputs(out.read_text()) == {"earlier": "1", **values}


def test_append_summary__twice__appends(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    append_summary(path, "# one")
    append_summary(path, "two\n")
    assert path.read_text() == "# one\ntwo\n"
