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
    """The record's case (plain data, as ``record.model.Case`` would dump it) of ``spec`` with its
    trials' ``results`` by trial number, in the suite ``suite_id`` of the eval file shown as ``label``
    (``stem``: the group of a case that names no dataset), ``definition`` its digest
    (:func:`evals.definition.spec_definition`). Secrets are masked with ``redact``.
    A field that is None is left out, as the record writes it."""
    input_text, input_json = text_data(spec.input, redact)
    ref_text, ref_json = text_data(spec.reference, redact)
    location = {"file": label} if spec.line is None else {"file": label, "line": spec.line}
    case: dict[str, Any] = {
        "id": f"{suite_id}::{spec.function_id}",
        "group": spec.dataset or stem,
        "name": spec.function_id,
        "dimensions": {},
        "critical": False,
        "location": location,
    }
    for key, value in (
        ("input", input_text),
        ("expected", ref_text),
        ("labels", list(spec.labels)),
        ("input_json", input_json),
        ("reference_json", ref_json),
        ("definition", definition),
    ):
        if value is not None:
            case[key] = value
    case["trials"] = [results[t].trial_data(redact) for t in sorted(results)]
    return case
