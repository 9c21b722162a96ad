"""The package promises a small core: exactly five runtime dependencies, everything else in extras."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # the dev extra installs tomli on 3.10
    import tomli as tomllib

PYPROJECT = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0].lower() for r in requirements}


def test_core_dependencies__are_exactly_the_five_promised() -> None:
    assert _names(PYPROJECT["project"]["dependencies"]) == {
        "click",
        "pydantic",
        "pyyaml",
        "jinja2",
        "requests",
    }


def test_extras__all_pulls_every_user_facing_extra() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    user_facing = set(extras) - {"all", "dev"}
    assert user_facing == {"autoevals", "agentevals", "langchain", "otel", "speed", "toml"}
    (all_requirement,) = extras["all"]
    inside = set(re.search(r"\[(.*)\]", all_requirement).group(1).split(","))  # type: ignore[union-attr]
    assert inside == user_facing
