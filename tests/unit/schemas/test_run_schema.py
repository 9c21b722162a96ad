"""The shipped run record JSON Schema: valid draft 2020-12, and in step with record/model.py."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel

from agent_evals.record import model as record_module
from agent_evals.record.model import RunRecord
from agent_evals.schemas import load_run_schema

MODELS: dict[str, type[BaseModel]] = {
    name: obj
    for name, obj in vars(record_module).items()
    if isinstance(obj, type)
    and issubclass(obj, BaseModel)
    and obj.__module__ == record_module.__name__
    and not name.startswith("_")
}


def test_schema__is_a_valid_draft_2020_12_schema() -> None:
    schema = load_run_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_schema__properties_match_record_model_fields(name: str) -> None:
    definition: dict[str, Any] = load_run_schema()["$defs"][name]
    fields = {f.alias or key for key, f in MODELS[name].model_fields.items()}
    assert set(definition["properties"]) == fields
    required = {f.alias or key for key, f in MODELS[name].model_fields.items() if f.is_required()}
    assert set(definition.get("required", [])) == required
    assert definition.get("additionalProperties") is True  # newer writers may add fields


def test_schema__every_model_has_a_definition() -> None:
    assert set(load_run_schema()["$defs"]) == set(MODELS)


def test_schema__rejects_a_record_missing_its_skeleton() -> None:
    validator = jsonschema.Draft202012Validator(load_run_schema())
    assert not validator.is_valid({"schema": "agent-evals/run@1", "suites": []})
    assert not validator.is_valid(
        {"schema": "agent-evals/run@2", "run": {"tool_version": "x", "started_at": "y"}}
    )
    bad_kind = {
        "schema": "agent-evals/run@1",
        "run": {"tool_version": "x", "started_at": "y"},
        "suites": [{"id": "s", "kind": "other", "source": "s"}],
    }
    assert not validator.is_valid(bad_kind)


def test_schema__accepts_a_minimal_record_written_by_the_model() -> None:
    record = RunRecord.model_validate({"run": {"tool_version": "0", "started_at": "2026-01-01T00:00:00Z"}})
    jsonschema.validate(record.model_dump(mode="json", by_alias=True), load_run_schema())
