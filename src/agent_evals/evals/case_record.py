"""A finished code-first eval case as run-record case data: its spec's parts and its trials' results."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_evals.evals.result import EvalCaseResult
from agent_evals.evals.spec import EvalCaseSpec
from agent_evals.record.trial import Redact, text_data


def case_record(
    spec: EvalCaseSpec,
    results: Mapping[int, EvalCaseResult],
    *,
    suite_id: str,
    label: str,
    stem: str,
    definition: str | None,
    redact: Redact,
) -> dict[str, Any]:
    """The record's case (plain data, validated with the record) of ``spec`` with its trials'
    ``results`` by trial number, in the suite ``suite_id`` of the eval file shown as ``label``
    (``stem``: the group of a case that names no dataset), ``definition`` its digest
    (:func:`evals.definition.spec_definition`). Secrets are masked with ``redact``.
    A field that is None is left out, as the record writes it."""
    input_text, input_json = text_data(spec.input, redact)
    ref_text, ref_json = text_data(spec.reference, redact)
    case: dict[str, Any] = {
        "id": f"{suite_id}::{spec.function_id}",
        "group": spec.dataset or stem,
        "name": spec.function_id,
        "location": {"file": label, "line": spec.line},
        "input": input_text,
        "input_json": input_json,
        "expected": ref_text,
        "reference_json": ref_json,
        "definition": definition,
        "labels": list(spec.labels),
        "trials": [results[t].trial_data(redact) for t in sorted(results)],
    }
    for key in ("input", "input_json", "expected", "reference_json", "definition"):
        if case[key] is None:  # less for the validation to look at
            del case[key]
    return case
