"""An ``EvalResult`` (the library layer) as a run record, so ``compare`` and the gate can read it."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from agent_evals.core.definition import definition_digest
from agent_evals.core.redact import Redactor
from agent_evals.record.model import (
    AgentInfo,
    Case,
    RunInfo,
    RunRecord,
    Suite,
    Trial,
    TrialScore,
    Usage,
    distinct_key,
    fingerprint,
)

if TYPE_CHECKING:
    from agent_evals.core.types import EvalResult, ExampleResult, Score

TEXT_LIMIT = 500
"""Longest input, output or expected text kept in the record."""


def _text(value: Any) -> tuple[str | None, Any]:
    """Short text for reports, plus the JSON value when it is not text."""
    if value is None:
        return None, None
    if isinstance(value, str):
        return value[:TEXT_LIMIT], None
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)[:TEXT_LIMIT], value
    except (TypeError, ValueError):
        return repr(value)[:TEXT_LIMIT], None


def input_key(value: Any) -> str:
    """A stable id for an example without ``metadata['id']``: a hash of its input."""
    try:
        canonical = json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        canonical = repr(value)
    return "input-" + hashlib.sha256(canonical.encode()).hexdigest()[:12]


def case_ids(examples: list[ExampleResult]) -> list[str]:
    """Each example's case id: ``metadata['id']``, else a hash of its input; repeats get ``#2``, ``#3``."""
    seen: dict[str, int] = {}
    out = []
    for example in examples:
        given = example.metadata.get("id")
        base = str(given) if given is not None and str(given).strip() else input_key(example.input)
        count = seen.get(base, 0) + 1
        seen[base] = count
        out.append(base if count == 1 else f"{base}#{count}")
    return out


def _all_scores(example: ExampleResult) -> dict[str, Score]:
    """Every score, a replaced one too: ``Name`` for the first of a name, ``Name#2`` for the next."""
    out: dict[str, Score] = {}
    replaced = list(example.replaced_scores)
    for key, kept in example.scores.items():
        earlier = [s for s in replaced if s.name == key]
        replaced = [s for s in replaced if s.name != key]
        for score in [*earlier, kept]:
            out[distinct_key(key, out)] = score
    for score in replaced:  # never dropped, whatever its name
        out[distinct_key(score.name, out)] = score
    return out


def _trial(example: ExampleResult) -> Trial:
    every = _all_scores(example)
    scores = {
        key: TrialScore(
            value=score.value,
            passed=score.passed if score.error is None else False,
            error=score.error,
            notes=score.reasoning,
        )
        for key, score in every.items()
    }
    error = example.error
    errored = [key for key, score in every.items() if score.error is not None]
    if error is None and errored:
        error = f"scorer {errored[0]!r} errored: {every[errored[0]].error}"
    parsed_usage = _usage(example)
    return Trial(
        # the library's own rule (ExampleResult.passed): no error, at least one score, all passed
        passed=error is None and example.passed,
        error=error,
        scores=scores,
        duration_s=round(example.duration, 4),
        usage=parsed_usage,
        output=None if example.output is None else example.output[:TEXT_LIMIT],
        attempts=example.attempts or None,
        cache=example.cache,
    )


def _iso(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def eval_result_to_run_record(
    result: EvalResult,
    *,
    suite_id: str = "library",
    group: str | None = None,
    agent_name: str | None = None,
    agent_version: str | None = None,
    env: Mapping[str, str] | None = None,
) -> RunRecord:
    """A run record with one ``evals`` suite, one case per example and one trial per case.

    See :meth:`agent_evals.core.types.EvalResult.to_run_record`.
    """
    if not suite_id.strip():
        raise ValueError("suite_id must be a non-empty name")
    redact = Redactor.from_env(os.environ if env is None else env)
    ids = case_ids(result.examples)
    cases = []
    for case_id, example in zip(ids, result.examples, strict=True):
        input_text, input_json = _text(example.input)
        expected = example.expected
        trial = _trial(example)
        meta_group = example.metadata.get("dataset") or example.metadata.get("group")
        labels = example.metadata.get("labels")
        cases.append(
            Case(
                id=case_id,
                group=str(meta_group or group or suite_id),
                input=input_text,
                input_json=input_json,
                expected=expected or None,
                definition=definition_digest(
                    {"input": example.input, "expected": expected, "context": example.expected_context}
                ),
                labels=[str(x) for x in labels] if isinstance(labels, (list, tuple)) else [],
                trials=[trial],
            )
        )
    suite = Suite(
        id=suite_id,
        kind="evals",
        source=suite_id,
        agent=AgentInfo(name=agent_name, version=agent_version),
        cases=cases,
    )
    suite.fingerprint = fingerprint(suite, {"scorers": sorted(result.pass_rates)})
    if redact.active:
        digests = [case.definition for case in suite.cases]
        suite = Suite.model_validate_json(redact(suite.model_dump_json()))
        for case, digest in zip(suite.cases, digests, strict=True):
            case.definition = digest  # a short secret value inside a hex digest must not mask it
    started = result.started_at or datetime.now(timezone.utc)
    run = RunInfo(
        tool_version=_version(),
        started_at=_iso(started),
        finished_at=_iso(started + timedelta(seconds=max(result.duration, 0.0))),
        complete=True,
    )
    return RunRecord(run=run, suites=[suite])


def _version() -> str:
    from agent_evals.version import __version__

    return __version__


def _usage(example: ExampleResult) -> Usage | None:
    """What the run measured (``EvalExample.usage``: the task's metered model calls under its
    ``context["usage"]``), else, for a result built by hand, the ``context["usage"]`` (malformed
    values ignored) over the tokens its returned messages report, priced with the price table."""
    from agent_evals.cost.meter import combine, explicit_usage, record_usage, usage_of_messages
    from agent_evals.cost.prices import active_table

    measured = getattr(example, "usage", None)
    if measured is None:
        context = example.context or {}
        combined = combine(explicit_usage(context), usage_of_messages(context.get("outputs")))
        measured = active_table().priced(combined) if combined is not None else None
    if measured is None:
        return None
    try:
        return Usage.model_validate(record_usage(measured))
    except (ValueError, TypeError):
        return None
