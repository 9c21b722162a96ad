"""JSON Schemas of the files agent-evals writes, shipped as package data."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

RUN_SCHEMA_FILE = "run.schema.json"
"""File name of the run record schema inside this package."""


def load_run_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the run record, ``agent-evals/run@1``."""
    text = resources.files(__package__).joinpath(RUN_SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
