"""An ``EvalResult`` (the library layer) as a run record, so ``compare`` and the gate can read it."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any, Protocol

from agent_evals.clock import iso_utc
from agent_evals.core.definition import definition_digest
from agent_evals.core.redact import Redactor
from agent_evals.record.model import (
    AgentInfo,
    Case,
    RunInfo,
    RunRecord,
    Suite,
    SuiteModels,
    Trial,
    fingerprint,
)
from agent_evals.record.models import agent_models, names_of, suite_models
from agent_evals.record.text import bytes_text, model_json
from agent_evals.record.trial import ScoreData, distinct_key, trial_data
from agent_evals.version import __version__

INPUT_LIMIT = 500
"""Longest input text a case keeps (a trial's output keeps ``record.trial.TEXT_LIMIT``)."""


class LibraryScore(Protocol):
    """What the record reads of a ``core.types.Score``."""

    @property
    def name(self) -> str: ...
    @property
    def value(self) -> float: ...
    @property
    def passed(self) -> bool: ...
    @property
    def error(self) -> str | None: ...
    @property
    def reasoning(self) -> str | None: ...


class LibraryExample(Protocol):
    """What the record reads of a ``core.types.ExampleResult``."""

    @property
    def input(self) -> Any: ...
    @property
    def output(self) -> str: ...
    @property
    def expected(self) -> str | None: ...
    @property
    def expected_context(self) -> dict[str, Any] | None: ...
    @property
    def context(self) -> dict[str, Any] | None: ...
    @property
    def metadata(self) -> dict[str, Any]: ...
    @property
    def scores(self) -> Mapping[str, LibraryScore]: ...
    @property
    def replaced_scores(self) -> Sequence[LibraryScore]: ...
    @property
    def error(self) -> str | None: ...
    @property
    def passed(self) -> bool: ...
    @property
    def duration(self) -> float: ...
    @property
    def usage(self) -> dict[str, Any] | None: ...
    @property
    def attempts(self) -> list[dict[str, Any]]: ...
    @property
    def cache(self) -> dict[str, Any] | None: ...


class LibraryResult(Protocol):
    """What the record reads of a ``core.types.EvalResult`` (read through this, so this module need
    not import the types that import it)."""

    @property
    def examples(self) -> Sequence[LibraryExample]: ...
    @property
    def pass_rates(self) -> Mapping[str, float]: ...
    @property
    def started_at(self) -> datetime | None: ...
    @property
    def duration(self) -> float: ...


def _text(value: Any) -> tuple[str | None, Any]:
    """Short text for reports, plus the JSON value when it is not text."""
    if value is None:
        return None, None
    if isinstance(value, str):
        return value[:INPUT_LIMIT], None
    if isinstance(value, (bytes, bytearray)):  # no JSON value: its text, by the record's rule
        return bytes_text(value[:INPUT_LIMIT]), None
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)[:INPUT_LIMIT], value
    except (TypeError, ValueError):
        return repr(value)[:INPUT_LIMIT], None


def input_key(value: Any) -> str:
    """A stable id for an example without ``metadata['id']``: a hash of its input."""
    try:
        canonical = json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        canonical = repr(value)
    return "input-" + hashlib.sha256(canonical.encode()).hexdigest()[:12]


def case_ids(examples: Sequence[LibraryExample]) -> list[str]:
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


def _all_scores(example: LibraryExample) -> dict[str, LibraryScore]:
    """Every score, a replaced one too: ``Name`` for the first of a name, ``Name#2`` for the next."""
    out: dict[str, LibraryScore] = {}
    replaced = list(example.replaced_scores)
    for key, kept in example.scores.items():
        earlier = [s for s in replaced if s.name == key]
        replaced = [s for s in replaced if s.name != key]
        for score in [*earlier, kept]:
            out[distinct_key(key, out)] = score
    for score in replaced:  # never dropped, whatever its name
        out[distinct_key(score.name, out)] = score
    return out


def _trial(example: LibraryExample) -> Trial:
    """The run-record trial of one example (``record.trial``); secrets are masked in the whole suite."""
    every = _all_scores(example)
    error = example.error
    errored = [key for key, score in every.items() if score.error is not None]
    if error is None and errored:
        error = f"scorer {errored[0]!r} errored: {every[errored[0]].error}"
    scores = {
        key: ScoreData(value=s.value, passed=s.passed, error=s.error, notes=s.reasoning)
        for key, s in every.items()
    }
    data = trial_data(
        # the library's own rule (ExampleResult.passed): no error, at least one score, all passed
        passed=example.passed,
        error=error,
        scores=scores,
        duration_s=example.duration,
        output=example.output,
        usage=_usage(example),
        attempts=example.attempts,
        cache=example.cache,
    )
    return Trial.model_validate(data)


def _iso(moment: datetime) -> str:
    # a moment with no time zone is taken as UTC here (datetime.utcnow() style)
    return iso_utc(moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment)


def eval_result_to_run_record(
    result: LibraryResult,
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
    agent: set[str] = set()
    for case_id, example in zip(ids, result.examples, strict=True):
        input_text, input_json = _text(example.input)
        expected = example.expected
        trial = _trial(example)
        agent |= agent_models(example.context)
        if trial.usage is not None and trial.usage.models:
            agent |= names_of(list(trial.usage.models))
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
    models = suite_models(agent, getattr(result, "judge_models", ()))
    suite.models = SuiteModels.model_validate(models) if models else None
    suite.fingerprint = fingerprint(suite, {"scorers": sorted(result.pass_rates)})
    if redact.active:
        digests = [case.definition for case in suite.cases]
        # any text kept: a lone surrogate is written as U+FFFD (record.text), not a failed write
        suite = Suite.model_validate_json(redact(model_json(suite, by_alias=False, exclude_none=False)))
        for case, digest in zip(suite.cases, digests, strict=True):
            case.definition = digest  # a short secret value inside a hex digest must not mask it
    started = result.started_at or datetime.now(timezone.utc)
    run = RunInfo(
        tool_version=__version__,
        started_at=_iso(started),
        finished_at=_iso(started + timedelta(seconds=max(result.duration, 0.0))),
        complete=True,
    )
    return RunRecord(run=run, suites=[suite])


def _usage(example: LibraryExample) -> dict[str, Any] | None:
    """What the run measured (``EvalExample.usage``: the task's metered model calls under its
    ``context["usage"]``), else, for a result built by hand, the ``context["usage"]`` (malformed
    values ignored) over the tokens its returned messages report, priced with the price table."""
    from agent_evals.cost.meter import combine, explicit_usage, record_usage, usage_of_messages
    from agent_evals.cost.prices import active_table

    measured = example.usage
    if measured is None:
        context = example.context or {}
        combined = combine(explicit_usage(context), usage_of_messages(context.get("outputs")))
        measured = active_table().priced(combined) if combined is not None else None
    if measured is None:
        return None
    try:
        return record_usage(measured)
    except (ValueError, TypeError, AttributeError):
        return None
