"""Per-case diffs: what a reviewer sees of one case, its two sides and the evidence of a failure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_evals.gate.align import Facts, usage_diff
from agent_evals.gate.model import CaseClass, CaseDiff, CaseSide, ScorerFailure
from agent_evals.record.usage import UsageSums
from agent_evals.record.usage_totals import construct, construct_from
from agent_evals.record.views import CaseView, Key, snippet

_SIDES: dict[Key, CaseSide] = {}


def _side(view: CaseView) -> CaseSide:
    # Sides without usage are shared by key: a large run has only a handful of distinct ones.
    side = _SIDES.get(view.key)
    if side is None:
        trials, passes, errors = view.key
        side = construct(
            CaseSide, trials=trials, passes=passes, errors=errors, pass_fraction=view.fraction, usage=None
        )
        if len(_SIDES) < 4096:
            _SIDES[view.key] = side
    return side


def _failure(name: str, score: dict[str, Any]) -> ScorerFailure:
    value = score.get("value")
    fields = {
        "name": name,
        "value": value,
        "error": snippet(score.get("error")),
        "notes": snippet(score.get("notes")),
        "expected": snippet(score.get("expected")),
        "actual": snippet(score.get("actual")),
    }
    if value is None or value.__class__ is float:
        # every value already has the field's type: built without validation (the per-case hot path)
        fields["trials_failed"] = 1
        return construct_from(ScorerFailure, fields)
    return ScorerFailure(**fields)


def _evidence(trials: Sequence[dict[str, Any]]) -> tuple[list[ScorerFailure], str | None, str | None]:
    """In one pass over the trials: the scorers that failed or errored in any trial (with the evidence
    of the first such trial), the first error and the first output of a trial that did not pass
    (as snippets)."""
    found: dict[str, ScorerFailure] = {}
    error = output = None
    for trial in trials:
        get = trial.get
        scores = get("scores")
        if scores:
            for name, score in scores.items():
                if score.get("passed") is False or score.get("error") is not None:
                    failure = found.get(name)
                    if failure is None:
                        found[name] = _failure(name, score)
                    else:
                        failure.trials_failed += 1
        trial_error = get("error")
        if error is None and trial_error is not None:
            error = snippet(trial_error)
        if output is None and not (get("passed") and trial_error is None):
            output = snippet(get("output"))
    return list(found.values()), error, output


def _location(case: dict[str, Any]) -> str | None:
    loc = case.get("location") or {}
    file = loc.get("file")
    if not file:
        return None
    return f"{file}:{loc['line']}" if loc.get("line") is not None else str(file)


def case_facts(view: CaseView) -> Facts:
    """What a case diff reads of ``view``'s raw case (the side it describes), in one go."""
    raw = view.raw
    failing, error, output = _evidence(raw.get("trials", []))
    return (
        raw.get("name"),
        raw.get("dimensions") or {},
        _location(raw),
        failing,
        error,
        output,
        snippet(raw.get("input")),
        snippet(raw.get("expected")),
    )


def case_diff(
    suite_id: str,
    base: CaseView | None,
    cand: CaseView | None,
    klass: CaseClass,
    *,
    side_details: bool = True,
) -> CaseDiff:
    """Build the per-case diff; details (scorers, snippets, usage) only where a reviewer needs them.
    Without ``side_details`` the usage delta and the baseline's output are left out (None)."""
    main = cand if cand is not None else base
    if main is None:
        raise ValueError("case_diff needs at least one side of the case")
    xb = base.fraction if base is not None else None
    xc = cand.fraction if cand is not None else None
    detailed = klass != "stable-pass"
    facts = case_facts(main) if detailed else None
    if facts is not None:
        name, dimensions, location = facts[0], facts[1], facts[2]
    else:
        raw = main.raw
        name, dimensions, location = raw.get("name"), raw.get("dimensions") or {}, _location(raw)
    values: dict[str, Any] = {
        "suite_id": suite_id,
        "case_id": main.id,
        "name": name,
        "group": main.group,
        "dimensions": dimensions,
        "classification": klass,
        "critical": main.critical,
        "redefined": False,  # gate.redefined marks the redefined ones
        # a critical case that passed every trial and has no graded trial now, or is gone, counts as flipped too
        "critical_flip": main.critical and (klass == "regressed" or (xb == 1.0 and xc is None)),
        "baseline": _side(base) if base is not None else None,
        "candidate": _side(cand) if cand is not None else None,
        "delta": xc - xb if xc is not None and xb is not None else None,
        "failing_scorers": [],
        "error": None,
        "location": location,
        "input": None,
        "expected": None,
        "output": None,
        "baseline_output": None,
        "usage": None,
        "duration_s": None,
    }
    if detailed and facts is not None:
        values["failing_scorers"], values["error"], values["output"] = facts[3], facts[4], facts[5]
        values["input"], values["expected"] = facts[6], facts[7]
    if detailed and side_details:
        base_usage = base.usage() if base is not None else None
        cand_usage = cand.usage() if cand is not None else UsageSums()
        if base is not None and cand is not None:
            values["baseline_output"] = base.first_output()
        if cand_usage.recorded or (base_usage is not None and base_usage.recorded):
            values["usage"] = usage_diff(base_usage.totals() if base_usage else None, cand_usage.totals())
        values["duration_s"] = cand_usage.duration_s if cand is not None else None
    return construct_from(CaseDiff, values)
