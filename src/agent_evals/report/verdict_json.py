"""The machine-readable verdict: a small, stable JSON document for scripts and CI outputs."""

from __future__ import annotations

import importlib.util
import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from agent_evals.core.redact import Redactor
from agent_evals.gate.policy import TEST_ASSUMPTIONS
from agent_evals.record.read import gc_paused
from agent_evals.report.escape import truncate
from agent_evals.report.filters import display_path
from agent_evals.report.headline import headline, overall_rate, plain_id, regressed_cases_in, suites_with
from agent_evals.report.view import collect_cases

if TYPE_CHECKING:
    from agent_evals.gate.model import CaseDiff, Comparison, DeltaStat, RenameCheck, SuiteComparison

VERDICT_SCHEMA = "agent-evals/verdict@1"
"""Schema id of the JSON verdict."""

TEXT_LIMIT = 500
"""Characters kept from each untrusted value."""


def _delta(stat: DeltaStat | None) -> dict[str, Any] | None:
    if stat is None:
        return None
    return {
        "delta": stat.delta,
        "interval": None if stat.interval is None else [stat.interval.low, stat.interval.high],
        "test": stat.test,
        "p_value": stat.p_value,
        "p_adjusted": stat.p_adjusted,
        "n_paired": stat.n_paired,
        "mde": stat.mde,
        "mde_exceeds_max_drop": stat.mde_exceeds_max_drop,
        "can_fail": stat.can_fail,
        "min_discordant": stat.min_discordant,
        "capacity": stat.capacity,
        "history_runs": stat.history_runs,
        "history_flaky": stat.history_flaky[:TEXT_LIMIT],
        "significant": stat.significant,
    }


def _case(case: CaseDiff, redactor: Redactor) -> dict[str, Any]:
    return {
        "suite": redactor(case.suite_id),
        "case": redactor(case.case_id),
        "name": None if case.name is None else truncate(redactor(case.name), TEXT_LIMIT),
        "group": redactor(case.group),
        "classification": case.classification,
        "critical": case.critical,
        "baseline_pass_fraction": None if case.baseline is None else case.baseline.pass_fraction,
        "candidate_pass_fraction": None if case.candidate is None else case.candidate.pass_fraction,
        "failing_scorers": [redactor(f.name) for f in case.failing_scorers],
    }


def _baseline(comparison: Comparison) -> dict[str, Any]:
    """Baseline provenance; a file path as the Markdown shows it (never the runner's absolute layout)."""
    info = comparison.baseline.model_dump()
    if info.get("path"):
        info["path"] = display_path(info["path"])
    return info


def _suite(suite: SuiteComparison, redactor: Redactor) -> dict[str, Any]:
    return {
        "id": redactor(suite.suite_id),
        "verdict": suite.verdict,
        "outcome": suite.outcome,
        "baseline_pass_rate": None if suite.baseline is None else suite.baseline.rate,
        "candidate_pass_rate": suite.candidate.rate,
        "error_rate": suite.candidate.error_rate,
        "cases": suite.candidate.cases,
        "comparison": _delta(suite.delta),
        "error_rise": None if suite.error_rise is None else suite.error_rise.model_dump(),
        "confirm_flaky": [redactor(c) for c in suite.confirm_flaky[:TEXT_LIMIT]],
        "counts": dict(suite.counts),
        "fingerprint_matches": suite.fingerprint.matches,
        "redefined_cases": [redactor(c) for c in suite.redefined_case_ids[:TEXT_LIMIT]],
        "replaced": suite.replaced,
        "renamed": _renamed(suite.renamed, redactor),
        "removed_cases": len(suite.removed_case_ids),
        "trials_change": suite.trials_change,
        "reasons": [
            {"kind": r.kind, "blocking": r.blocking, "message": truncate(redactor(r.message), TEXT_LIMIT)}
            for r in suite.reasons
        ],
    }


def _renamed(check: RenameCheck | None, redactor: Redactor) -> dict[str, Any] | None:
    """The renamed-cases test: its figures, with the suite ids redacted."""
    if check is None:
        return None
    return check.model_dump() | {"suite_ids": [redactor(sid) for sid in check.suite_ids]}


def verdict_document(comparison: Comparison, *, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The verdict as a JSON-ready dict (see :func:`render_json`)."""
    redactor = Redactor.from_env(env)
    regressed = [_case(case, redactor) for case in collect_cases(comparison)["regressed"]]
    return {
        "schema": VERDICT_SCHEMA,
        "mode": comparison.mode,
        "verdict": comparison.verdict,
        "outcome": comparison.outcome,
        "exit_code": comparison.exit_code,
        "headline": headline(comparison, name=lambda text: plain_id(redactor(text))),
        "replaced": comparison.replaced,
        "renamed_suites": _renamed(comparison.renamed_suites, redactor),
        "pass_rate": overall_rate(comparison, "candidate"),
        "baseline_pass_rate": overall_rate(comparison, "baseline"),
        "regressions": sum(regressed_cases_in(s) for s in suites_with(comparison, "regression")),
        "regressed_suites": [redactor(s.suite_id) for s in suites_with(comparison, "regression")],
        "reasons": [
            {
                "kind": r.kind,
                "blocking": r.blocking,
                "suite": r.suite_id,
                "group": r.group,
                "case": r.case_id,
                "message": truncate(redactor(r.message), TEXT_LIMIT),
            }
            for r in comparison.reasons
        ],
        "suites": [_suite(s, redactor) for s in comparison.suites],
        "regressed_cases": regressed,
        "baseline": _baseline(comparison),
        "candidate": comparison.candidate.model_dump(),
        "policy": comparison.effective_policy.model_dump(mode="json"),
        "test_assumption": TEST_ASSUMPTIONS[comparison.effective_policy.test],
        "policy_sources": comparison.policy.sources,
        "notes": [truncate(redactor(n), TEXT_LIMIT) for n in comparison.notes + comparison.info],
        "reused_suites": [  # copied from the baseline (ci --reuse-unchanged): in no test, no rate
            {
                "suite": redactor(r.suite_id),
                "cases": r.cases,
                "reason": truncate(redactor(r.reason), TEXT_LIMIT),
                "baseline_run_id": r.baseline_run_id,
                "baseline_sha": r.baseline_sha,
            }
            for r in comparison.reused_suites
        ],
        "reuse_notes": [truncate(redactor(n), TEXT_LIMIT) for n in comparison.reuse_notes],
    }


def render_json(comparison: Comparison, *, env: Mapping[str, str] | None = None) -> str:
    """The verdict as indented JSON: overall verdict, outcome and exit code, the headline, overall and
    per-suite pass rates with their paired statistics and reasons, regressed cases, provenance and the
    policy applied. Secrets of ``env`` (default ``os.environ``) are redacted from every string."""
    with gc_paused():  # a large comparison makes every cyclic GC pass slow; nothing here forms cycles
        document = _finite(verdict_document(comparison, env=env))
        text = indented_json(document) + "\n"
        # A last pass over the whole text catches secrets in fields copied verbatim (ids, provenance).
        return Redactor.from_env(env)(text)


def indented_json(document: Any) -> str:
    """``json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)``; with msgspec installed
    (the ``speed`` extra) the same text is made by the C encoder plus msgspec's formatter, several
    times faster on a large verdict than the standard library's indenting encoder, written in Python."""
    if importlib.util.find_spec("msgspec") is not None:
        import msgspec

        compact = json.dumps(document, ensure_ascii=False, allow_nan=False)
        try:
            formatted: str = msgspec.json.format(compact, indent=2)
            return formatted
        except UnicodeEncodeError:
            pass  # a lone surrogate (from untrusted text) is not UTF-8: the standard library writes it
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)


def _finite(value: Any) -> Any:
    # JSON has no NaN or infinity: a figure that could not be computed is null.
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
