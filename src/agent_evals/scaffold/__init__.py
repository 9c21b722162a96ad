"""The files `agent-evals init` writes: a runnable benchmark, an eval file, a policy and the two workflows."""

from __future__ import annotations

import json
import re
from importlib.resources import files

TEMPLATES: tuple[tuple[str, str], ...] = (
    ("benchmarks/todo.yaml", "todo.yaml.tmpl"),
    ("benchmarks/todo_agent.py", "todo_agent.py.tmpl"),
    ("evals/eval_todo.py", "eval_todo.py.tmpl"),
    ("agent-evals.yaml", "agent-evals.yaml.tmpl"),
    (".github/workflows/agent-evals.yml", "workflow.yml.tmpl"),
    (".github/workflows/agent-evals-publish.yml", "publish.yml.tmpl"),
)
"""Where each file lands in the project -> its template in this package (``.tmpl``: not linted here)."""


DEFAULT_BRANCH = "main"
"""The branch the workflow records baselines on when ``init`` finds no repository to ask."""


def template(name: str, *, default_branch: str = DEFAULT_BRANCH) -> str:
    """The text of one template, naming ``default_branch`` as the branch whose pushes record baselines."""
    text = files(__package__).joinpath("templates").joinpath(name).read_text(encoding="utf-8")
    plain = re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._/-]*", default_branch) is not None
    as_yaml = default_branch if plain else json.dumps(default_branch)  # a JSON string is a YAML scalar
    return text.replace("@DEFAULT_BRANCH_YAML@", as_yaml).replace("@DEFAULT_BRANCH@", default_branch)
