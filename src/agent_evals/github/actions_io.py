"""Workflow I/O: the job summary, step outputs and workflow-command annotations.

See https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

MAX_ANNOTATIONS = 10
AnnotationLevel = Literal["error", "warning", "notice"]


def escape_data(text: str) -> str:
    """Escape a workflow-command message (``%``, CR and LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow-command property value (message escapes plus ``:`` and ``,``)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


@dataclass(frozen=True)
class Annotation:
    """One ``::error``/``::warning``/``::notice`` workflow command."""

    level: AnnotationLevel
    """Severity."""
    message: str
    """The text shown in the annotation."""
    file: str | None = None
    """Repository-relative file path."""
    line: int | None = None
    """1-based line."""
    title: str | None = None
    """Short title."""

    def render(self) -> str:
        """The workflow command line."""
        props = []
        if self.file:
            props.append(f"file={escape_property(self.file)}")
        if self.line is not None:
            props.append(f"line={int(self.line)}")
        if self.title:
            props.append(f"title={escape_property(self.title)}")
        head = f"::{self.level}" + (" " + ",".join(props) if props else "")
        return f"{head}::{escape_data(self.message)}"


def render_annotations(annotations: Iterable[Annotation], *, cap: int = MAX_ANNOTATIONS) -> list[str]:
    """Render at most ``cap`` annotations, plus one notice saying how many were left out."""
    items = list(annotations)
    lines = [a.render() for a in items[:cap]]
    if len(items) > cap:
        lines.append(
            Annotation(
                "notice", f"{len(items) - cap} more annotation(s) left out; see the job summary"
            ).render()
        )
    return lines


def append_summary(path: str | Path, markdown: str) -> None:
    """Append Markdown to the job summary file (``GITHUB_STEP_SUMMARY``)."""
    with Path(path).open("a", encoding="utf-8", errors="replace") as fh:
        fh.write(markdown)
        if not markdown.endswith("\n"):
            fh.write("\n")


def format_outputs(outputs: Mapping[str, str]) -> str:
    """Render step outputs in the ``name<<DELIMITER`` form, which is safe for any value."""
    chunks = []
    for name, value in outputs.items():
        if not name or any(c in name for c in "\r\n=<"):
            raise ValueError(f"invalid output name {name!r}")
        delimiter = f"ghadelimiter_{uuid.uuid4().hex}"
        while delimiter in value:
            delimiter = f"ghadelimiter_{uuid.uuid4().hex}"
        chunks.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    return "".join(chunks)


def write_outputs(path: str | Path, outputs: Mapping[str, str]) -> None:
    """Append step outputs to the ``GITHUB_OUTPUT`` file."""
    with Path(path).open("a", encoding="utf-8", errors="replace") as fh:
        fh.write(format_outputs(outputs))


def parse_outputs(text: str) -> dict[str, str]:
    """Read a ``GITHUB_OUTPUT`` file back (both ``name=value`` and heredoc forms), as the runner does."""
    result: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body: list[str] = []
            while i < len(lines) and lines[i] != delimiter:
                body.append(lines[i])
                i += 1
            if i >= len(lines):
                raise ValueError(f"output {name!r}: delimiter {delimiter!r} never closed")
            i += 1
            result[name] = "\n".join(body)
        else:
            name, _, value = line.partition("=")
            result[name] = value
    return result
