"""What to say when a JSON document given as a run record is something else (an EvalResult, ...)."""

from __future__ import annotations

from typing import Any

from agent_evals.record.schema_ids import READABLE_SCHEMAS

_CONVERT = (
    "convert it with EvalResult.to_run_record() and write that "
    "(agent_evals.record.store.write_record(path, result.to_run_record()))"
)


def not_a_run_record(data: dict[str, Any], source: str) -> str:
    """The message for a JSON object whose ``schema`` is not a readable run record schema."""
    schema = data.get("schema")
    known = ", ".join(sorted(READABLE_SCHEMAS))
    if isinstance(schema, str) and schema.startswith("agent-evals/run@"):
        return (
            f"{source}: 'schema' is {schema!r}; this version of agent-evals reads {known}. "
            "Upgrade agent-evals if the record was written by a newer version."
        )
    if isinstance(schema, str) and schema.startswith("agent-evals/local"):
        return (
            f"{source} is the metadata.json of a LocalConfig results folder, not a run record; in the code "
            f"that ran the eval, {_CONVERT}, or run evals with `agent-evals run -o RUN.json`"
        )
    if {"pass_rates", "summary"} <= set(data) and ("examples" in data or "scores" in data):
        kind = "an EvalResult" if "examples" in data else "a LocalConfig summary.json"
        return (
            f"{source} is {kind} of the library layer, not a run record; {_CONVERT}, "
            "or run evals with `agent-evals run -o RUN.json`"
        )
    if isinstance(schema, str) and schema.startswith("agent-evals/verdict"):
        return (
            f"{source} is a `compare --format json` verdict, not a run record; give the RUN.json "
            "that `agent-evals run -o` wrote"
        )
    return (
        f"{source}: 'schema' is {schema!r}: not an agent-evals run record (those have 'schema': {known}). "
        "Write one with `agent-evals run -o RUN.json`, or EvalResult.to_run_record() in the library"
    )
