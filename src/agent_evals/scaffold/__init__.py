"""The files `agent-evals init` writes: a runnable benchmark, an eval file, a policy and the two workflows."""

from __future__ import annotations

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


def template(name: str) -> str:
    """The text of one template."""
    return files(__package__).joinpath("templates").joinpath(name).read_text(encoding="utf-8")
