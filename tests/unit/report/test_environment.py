"""The report templates are package data and the environment is strict."""

from __future__ import annotations

from importlib import resources

import jinja2
import pytest

from agent_evals.report.environment import build_environment


@pytest.mark.parametrize("name", ["comment.md.j2", "report.html.j2"])
def test_packaged_templates__are_package_resources(name: str) -> None:
    assert (resources.files("agent_evals.report") / "templates" / name).is_file()


def test_build_environment__undefined_variable__raises() -> None:
    env = build_environment(kind="markdown", env={})
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ missing }}").render()


def test_build_environment__autoescape_only_for_html() -> None:
    md = build_environment(kind="markdown", env={}).from_string("{{ x }}|{{ x|u }}").render(x="<b>")
    html = build_environment(kind="html", env={}).from_string("{{ x }}|{{ x|u }}").render(x="<b>")
    assert md == "<b>|&lt;b&gt;"
    assert html == "&lt;b&gt;|&lt;b&gt;"
