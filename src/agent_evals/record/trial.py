"""Turn eval results into run-record data: text and JSON renderings, scores, usage, redaction."""

from __future__ import annotations

import json
import math
from typing import Any

from agent_evals.core.redact import Redactor
from agent_evals.cost.meter import record_usage
from agent_evals.evals.result import EvalCaseResult, record_keys

TEXT_LIMIT = 100_000
"""Longest input/output/reference text kept in the record (characters)."""


class TrialWriter:
    """Converts eval results to record data, masking secret values on the way."""

    def __init__(self, redact: Redactor) -> None:
        """Use ``redact`` on every string that reaches the record."""
        self.redact = redact

    def text(self, value: Any) -> tuple[str | None, Any]:
        """Text for reports plus the JSON value when it is not text, both redacted."""
        if value is None:
            return None, None
        if isinstance(value, str):
            return self.redact(value[:TEXT_LIMIT]), None
        if isinstance(value, bool):
            return ("true" if value else "false"), value
        if isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)):
            return self.redact(repr(value)), value  # what json.dumps would write, without its overhead
        try:
            dumped = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            return self.redact(repr(value)[:TEXT_LIMIT]), None
        if not self.redact.active:
            return dumped[:TEXT_LIMIT], value
        return self.redact(dumped[:TEXT_LIMIT]), json.loads(self.redact(dumped))

    def _opt(self, text: str | None) -> str | None:
        return None if text is None else self.redact(text)

    def trial(self, result: EvalCaseResult) -> dict[str, Any]:
        """The run-record trial (as plain data) of one eval result."""
        # Plain dicts, validated once per record: constructing 10,000 models one by one dominates
        # the time of a large run.
        scores = {
            key: {
                "value": s.value,
                "passed": s.passed,
                "notes": self._opt(s.notes),
                "source": result.score_sources.get(key),
            }
            for key, s in zip(record_keys(result.scores), result.scores, strict=True)
        }
        usage = record_usage(result.usage)
        output, output_json = self.text(result.output)
        return {
            "passed": result.passed,
            "error": self._opt(result.error),
            "scores": scores,
            "duration_s": round(result.duration, 6),
            "usage": usage,
            "output": output,
            "output_json": output_json,
            "graded": result.graded,
            "traceback": self._opt(result.traceback),
            "attempts": [{**a, "error": self._opt(a["error"])} for a in result.attempts] or None,
            "cache": result.cache,
        }
