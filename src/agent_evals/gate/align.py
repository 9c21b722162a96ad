"""Align cases by (suite id, case id), summarise their trials and classify each case."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from agent_evals.gate.model import CaseClass, CaseDiff, CaseSide, ScorerFailure, UsageDiff, UsageTotals

SNIPPET_CHARS = 2_000
"""Untrusted text kept per field in a case diff (reports escape and truncate further)."""

CLASS_ORDER: tuple[CaseClass, ...] = (
    "regressed",
    "errored",
    "flaky",
    "improved",
    "new",
    "removed",
    "stable-fail",
    "stable-pass",
)
"""Order of cases in a report: regressions first, then what else needs a look."""


M = TypeVar("M", bound=BaseModel)


def construct(cls: type[M], **values: Any) -> M:
    """Build a model from values already known valid, with every field given: pydantic's
    ``model_construct`` minus its per-call default handling, for the per-case hot path
    (hundreds of thousands of objects on a large run)."""
    obj = cls.__new__(cls)
    object.__setattr__(obj, "__dict__", values)
    object.__setattr__(obj, "__pydantic_fields_set__", set(values))
    object.__setattr__(obj, "__pydantic_extra__", None)
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj


@dataclass(slots=True)
class CaseView:
    """One side of one case, summarised once (the raw case object is kept for details)."""

    raw: dict[str, Any]
    trials: int
    passes: int
    errors: int
    critical: bool

    @property
    def id(self) -> str:
        """Case id."""
        return str(self.raw["id"])

    @property
    def group(self) -> str:
        """Capability or dataset."""
        return str(self.raw["group"])

    @property
    def valid(self) -> int:
        """Trials that did not error."""
        return self.trials - self.errors

    @property
    def fraction(self) -> float | None:
        """Pass fraction over valid trials; None when all trials errored (or there are none)."""
        valid = self.trials - self.errors
        return self.passes / valid if valid else None


def view_cases(suite: dict[str, Any], critical_globs: Sequence[str] = ()) -> dict[str, CaseView]:
    """Summarise every case of a suite document, keyed by case id."""
    views: dict[str, CaseView] = {}
    for case in suite.get("cases", []):
        trials = case.get("trials", [])
        errors = 0
        passes = 0
        for trial in trials:
            if trial.get("error") is not None:
                errors += 1
            elif trial["passed"]:
                passes += 1
        critical = bool(case.get("critical", False))
        if not critical and critical_globs:
            critical = any(fnmatch.fnmatchcase(case["id"], g) for g in critical_globs)
        views[case["id"]] = CaseView(case, len(trials), passes, errors, critical)
    return views


def _state(x: float) -> str:
    return "pass" if x == 1.0 else "fail" if x == 0.0 else "flaky"


def classify(base: CaseView | None, cand: CaseView | None) -> CaseClass:
    """Trial-aware class of a case from its two sides."""
    if base is None:
        return "new"
    if cand is None:
        return "removed"
    xb, xc = base.fraction, cand.fraction
    if xb is None or xc is None:
        return "errored"
    sb, sc = _state(xb), _state(xc)
    if sb == "flaky" or sc == "flaky":
        return "flaky"
    if sb == sc:
        return "stable-pass" if sb == "pass" else "stable-fail"
    return "regressed" if sb == "pass" else "improved"


def usage_totals(trial_lists: Sequence[Sequence[dict[str, Any]]]) -> UsageTotals:
    """Sum tokens, cost and duration over trials (fields stay None when no trial recorded them)."""
    inp: int | None = None
    out: int | None = None
    cost: float | None = None
    duration = 0.0
    count = 0
    for trials in trial_lists:
        for trial in trials:
            count += 1
            duration += trial.get("duration_s") or 0.0
            usage = trial.get("usage")
            if not usage:
                continue
            if usage.get("input_tokens") is not None:
                inp = (inp or 0) + usage["input_tokens"]
            if usage.get("output_tokens") is not None:
                out = (out or 0) + usage["output_tokens"]
            if usage.get("cost_usd") is not None:
                cost = (cost or 0.0) + usage["cost_usd"]
    return construct(
        UsageTotals,
        input_tokens=inp,
        output_tokens=out,
        cost_usd=cost,
        duration_s=duration if count else None,
        mean_latency_s=duration / count if count else None,
        trials=count,
    )


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def usage_diff(base: UsageTotals | None, cand: UsageTotals) -> UsageDiff:
    """Usage on both sides with the difference of every field both sides recorded."""
    delta = None
    if base is not None:
        tokens_in = _minus(cand.input_tokens, base.input_tokens)
        tokens_out = _minus(cand.output_tokens, base.output_tokens)
        delta = construct(
            UsageTotals,
            input_tokens=int(tokens_in) if tokens_in is not None else None,
            output_tokens=int(tokens_out) if tokens_out is not None else None,
            cost_usd=_minus(cand.cost_usd, base.cost_usd),
            duration_s=_minus(cand.duration_s, base.duration_s),
            mean_latency_s=_minus(cand.mean_latency_s, base.mean_latency_s),
            trials=cand.trials - base.trials,
        )
    return construct(UsageDiff, baseline=base, candidate=cand, delta=delta)


def _snippet(value: Any) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    return text[:SNIPPET_CHARS]


def _side(view: CaseView) -> CaseSide:
    return construct(
        CaseSide,
        trials=view.trials,
        passes=view.passes,
        errors=view.errors,
        pass_fraction=view.fraction,
        usage=None,
    )


def failing_scorers(trials: Sequence[dict[str, Any]]) -> list[ScorerFailure]:
    """Scorers that failed or errored in any trial, with the evidence of the first such trial."""
    found: dict[str, ScorerFailure] = {}
    for trial in trials:
        for name, score in (trial.get("scores") or {}).items():
            if score.get("passed") is False or score.get("error") is not None:
                if name in found:
                    found[name].trials_failed += 1
                    continue
                found[name] = ScorerFailure(
                    name=name,
                    value=score.get("value"),
                    error=_snippet(score.get("error")),
                    notes=_snippet(score.get("notes")),
                    expected=_snippet(score.get("expected")),
                    actual=_snippet(score.get("actual")),
                )
    return list(found.values())


def _first(trials: Sequence[dict[str, Any]], key: str, *, failing: bool = False) -> str | None:
    for trial in trials:
        if failing and trial.get("passed") and trial.get("error") is None:
            continue
        if trial.get(key) is not None:
            return _snippet(trial[key])
    return None


def _location(case: dict[str, Any]) -> str | None:
    loc = case.get("location") or {}
    file = loc.get("file")
    if not file:
        return None
    return f"{file}:{loc['line']}" if loc.get("line") is not None else str(file)


def _has_usage(trials: Sequence[dict[str, Any]]) -> bool:
    return any(t.get("usage") for t in trials)


def case_diff(suite_id: str, base: CaseView | None, cand: CaseView | None, klass: CaseClass) -> CaseDiff:
    """Build the per-case diff; details (scorers, snippets, usage) only where a reviewer needs them."""
    main = cand if cand is not None else base
    if main is None:
        raise ValueError("case_diff needs at least one side of the case")
    raw = main.raw
    xb = base.fraction if base is not None else None
    xc = cand.fraction if cand is not None else None
    diff = construct(
        CaseDiff,
        suite_id=suite_id,
        case_id=main.id,
        name=raw.get("name"),
        group=main.group,
        dimensions=raw.get("dimensions") or {},
        classification=klass,
        critical=main.critical,
        critical_flip=main.critical and klass == "regressed",
        baseline=_side(base) if base is not None else None,
        candidate=_side(cand) if cand is not None else None,
        delta=xc - xb if xc is not None and xb is not None else None,
        failing_scorers=[],
        error=None,
        location=_location(raw),
        input=None,
        expected=None,
        output=None,
        baseline_output=None,
        usage=None,
    )
    if klass in ("stable-pass",):
        return diff
    trials = raw.get("trials", [])
    diff.failing_scorers = failing_scorers(trials)
    diff.error = _first(trials, "error")
    diff.input = _snippet(raw.get("input"))
    diff.expected = _snippet(raw.get("expected"))
    diff.output = _first(trials, "output", failing=True)
    if base is not None and cand is not None:
        diff.baseline_output = _first(base.raw.get("trials", []), "output")
    base_trials = base.raw.get("trials", []) if base is not None else []
    cand_trials = cand.raw.get("trials", []) if cand is not None else []
    if _has_usage(base_trials) or _has_usage(cand_trials):
        diff.usage = usage_diff(
            usage_totals([base_trials]) if base is not None else None, usage_totals([cand_trials])
        )
    return diff
