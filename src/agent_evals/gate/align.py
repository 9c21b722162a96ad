"""The class of a case from its two sides, and usage on both sides.

The sides themselves (a case and a suite as one walk of a record summarises them) live in
``record.views``; their names stay importable from here."""

from __future__ import annotations

from typing import Any

from agent_evals.gate.model import CaseClass, ScorerFailure, UsageDiff, UsageTotals
from agent_evals.record.usage_totals import construct
from agent_evals.record.views import SNIPPET_CHARS as SNIPPET_CHARS
from agent_evals.record.views import Breakdowns as Breakdowns
from agent_evals.record.views import CaseView as CaseView
from agent_evals.record.views import Key as Key
from agent_evals.record.views import RawCase as RawCase
from agent_evals.record.views import SuiteView as SuiteView
from agent_evals.record.views import Tally as Tally
from agent_evals.record.views import Use as Use
from agent_evals.record.views import add_tally as add_tally
from agent_evals.record.views import fraction_of as fraction_of
from agent_evals.record.views import snippet as snippet

CLASS_ORDER: tuple[CaseClass, ...] = (
    "regressed",
    "errored",
    "flaky",
    "improved",
    "new",
    "removed",
    "not-run",
    "stable-fail",
    "stable-pass",
    "ungraded",
)
"""Order of cases in a report: regressions first, then what else needs a look."""


Facts = tuple[
    Any, dict[str, str], str | None, list[ScorerFailure], str | None, str | None, str | None, str | None
]
"""What a case diff reads of its main side's raw case: name, dimensions, location, failing scorers,
first error, output of a failing trial, input and expected (as snippets)."""


def _state(x: float) -> str:
    return "pass" if x == 1.0 else "fail" if x == 0.0 else "flaky"


def classify(base: CaseView | None, cand: CaseView | None) -> CaseClass:
    """Trial-aware class of a case from its two sides."""
    if base is None:
        return "new"
    if cand is None:
        return "removed"
    return _classify(base.fraction, cand.fraction, bool(base.key[2] or cand.key[2]))


def classify_keys(base: Key, cand: Key) -> CaseClass:
    """:func:`classify` of two sides known by their keys alone (a side's fraction follows from its key)."""
    return _classify(fraction_of(base), fraction_of(cand), bool(base[2] or cand[2]))


def _classify(xb: float | None, xc: float | None, errored: bool) -> CaseClass:
    if xb is None or xc is None:
        # no valid trial on a side: because they errored, or because none has a pass/fail verdict
        return "errored" if errored else "ungraded"
    sb, sc = _state(xb), _state(xc)
    if sb == "flaky" or sc == "flaky":
        return "flaky"
    if sb == sc:
        return "stable-pass" if sb == "pass" else "stable-fail"
    return "regressed" if sb == "pass" else "improved"


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
