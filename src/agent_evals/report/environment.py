"""The jinja2 environment for report templates: packaged templates, user block overrides, strict undefined."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agent_evals.core.redact import Redactor, secret_values
from agent_evals.errors import UsageError
from agent_evals.report.filters import make_untrusted_filter, plain_filters

if TYPE_CHECKING:
    import jinja2

TEMPLATES_DIR = Path(__file__).resolve().parent / "templates"
"""Where the packaged templates live (shipped in the wheel as package data)."""

BUILTIN_PREFIX = "builtin"
"""Prefix under which a user template reaches the packaged one it extends: ``builtin/comment.md.j2``."""


def build_environment(
    *,
    kind: Literal["markdown", "html"],
    template_dir: Path | None = None,
    redactor: Redactor | None = None,
    env: Mapping[str, str] | None = None,
) -> jinja2.Environment:
    """A jinja2 environment with the report filters.

    Templates are looked up in ``template_dir`` first (when given), then among the packaged ones, so a
    user file named like a packaged template replaces it; to override only some named blocks it starts
    with ``{% extends "builtin/comment.md.j2" %}``. Undefined variables raise (``StrictUndefined``).
    Autoescaping is on for HTML; Markdown output is escaped by the ``escape_untrusted`` filter instead.
    ``redactor`` masks secrets in untrusted values (default: built from ``env``, i.e. ``os.environ``).
    Environments built from ``env`` are cached, so templates are compiled once per process.
    """
    if template_dir is not None and not template_dir.is_dir():
        raise UsageError(
            f"template directory {template_dir} does not exist or is not a folder; "
            "pass a folder holding templates such as comment.md.j2"
        )
    if redactor is not None:
        return _build(kind, template_dir, redactor)
    secrets = tuple(secret_values(env))
    return _cached(kind, None if template_dir is None else str(template_dir.resolve()), secrets)


@lru_cache(maxsize=16)
def _cached(
    kind: Literal["markdown", "html"], template_dir: str | None, secrets: tuple[str, ...]
) -> jinja2.Environment:
    return _build(kind, None if template_dir is None else Path(template_dir), Redactor(secrets))


def _build(
    kind: Literal["markdown", "html"], template_dir: Path | None, redactor: Redactor
) -> jinja2.Environment:
    import jinja2

    packaged = jinja2.FileSystemLoader(str(TEMPLATES_DIR))
    loaders: list[jinja2.BaseLoader] = []
    if template_dir is not None:
        loaders.append(jinja2.FileSystemLoader(str(template_dir)))
    loaders.append(jinja2.PrefixLoader({BUILTIN_PREFIX: packaged}))
    loaders.append(packaged)
    environment = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        undefined=jinja2.StrictUndefined,
        autoescape=kind == "html",
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters.update(plain_filters())
    untrusted = make_untrusted_filter(redactor, markdown=kind == "markdown")
    environment.filters["escape_untrusted"] = untrusted
    environment.filters["u"] = untrusted
    return environment
