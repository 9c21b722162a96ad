"""Compare a candidate run with its baseline under a policy and decide the gate's verdict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from agent_evals.cost.prices import PriceTable
from agent_evals.errors import UsageError
from agent_evals.gate import usage_gate
from agent_evals.gate.measured import ACCEPT, named, rename_reasons
from agent_evals.gate.model import (
    BaselineInfo,
    Comparison,
    ErrorRise,
    Mode,
    Outcome,
    Reason,
    RenameCheck,
    RunInfoView,
    SuiteComparison,
    Verdict,
)
from agent_evals.gate.paired import EPS, informative, settle_hint
from agent_evals.gate.partial import lacks_baseline, mark_not_run, not_run_message, partial_run, run_notes
from agent_evals.gate.picks import passing_critical, select_cases
from agent_evals.gate.policy import Knobs, Policy
from agent_evals.gate.renamed import moved_or_renamed
from agent_evals.gate.reuse import split_reused
from agent_evals.gate.suite_compare import SuiteWork, Unit, finish, prepare
from agent_evals.gate.trend import suite_trend
from agent_evals.gate.unmatched import refuse_unmatched
from agent_evals.gate.verdict import removed_critical_message, worst_outcome, worst_verdict
from agent_evals.record.legacy_ids import map_legacy_ids
from agent_evals.record.read import Document, gc_paused, record_to_document
from agent_evals.record.summary import RunSummary, SuiteSummary, summarise
from agent_evals.stats.exact import holm

if TYPE_CHECKING:
    from agent_evals.record.model import RunRecord

CaseDetail = Literal["all", "listed", "none"]
"""Which cases get a per-case diff: ``all`` of them, or only those a report lists one by one (every
class but stable pass and stable fail, plus critical cases and cases with an errored trial). The
per-class counts always cover every case. JUnit and HTML reports need ``all`` (one entry per case).
``listed`` diffs also leave out what only those reports show of a case: its usage delta and the
baseline's output (``CaseDiff.usage`` and ``CaseDiff.baseline_output`` stay None)."""


def compare_runs(
    baseline: RunRecord | None,
    candidate: RunRecord,
    policy: Policy,
    *,
    baseline_info: BaselineInfo | None = None,
    history: Sequence[RunRecord] = (),
    prices: PriceTable | None = None,
) -> Comparison:
    """Compare two run records (baseline may be None) under ``policy``; pure: data in, data out.

    ``history``: earlier baselines of the same suites (as ``compare --history``), oldest or newest first.
    ``prices`` as for :func:`compare_documents`."""
    base_doc = record_to_document(baseline) if baseline is not None else None
    return compare_documents(
        base_doc,
        record_to_document(candidate),
        policy,
        baseline_info=baseline_info,
        history=[record_to_document(h) for h in history],
        prices=prices,
    )


def single_run(
    candidate: RunRecord | Document | RunSummary, policy: Policy, *, case_detail: CaseDetail = "all"
) -> Comparison:
    """A comparison without a baseline, for rendering one run alone (floors and error budget still apply).
    The run may be a record model, its document, or its summary (``record.read.read_summary``);
    ``case_detail`` as for :func:`compare_documents`."""
    run = candidate if isinstance(candidate, (dict, RunSummary)) else record_to_document(candidate)
    info = BaselineInfo(source="none", reason_missing="single-run report: no baseline requested")
    return compare_documents(
        None, run, policy, baseline_info=info, mode="single_run", case_detail=case_detail
    )


def _shares_nothing(base_suites: Mapping[str, SuiteSummary], candidate: RunSummary) -> bool:
    """Both sides have cases and no (suite id, case id) is on both: every case renamed or replaced."""
    if not any(s.view.cases for s in base_suites.values()) or not any(s.view.cases for s in candidate.suites):
        return False
    for suite in candidate.suites:
        base_suite = base_suites.get(suite.header["id"])
        if base_suite is not None:
            ids = base_suite.view.cases
            if any(cid in ids for cid in suite.view.cases):
                return False
    return True


def _replaced_message(base_suites: Mapping[str, SuiteSummary], candidate: RunSummary) -> str:
    base_ids = sorted(base_suites)
    cand_ids = [s.header["id"] for s in candidate.suites]
    return (
        "Every case was renamed or replaced: this run shares no (suite id, case id) with its baseline "
        f"(baseline suites: {named(base_ids)}; this run's: {named(cand_ids)}), so nothing could be "
        f"compared and the gate cannot pass; {ACCEPT}."
    )


def _ran_or_refuse(baseline: RunSummary, candidate: RunSummary) -> None:
    """Refuse a finished candidate with no case at all against a baseline with cases: it shares no
    case with it either, and a run that ran nothing (a path or filter that matched no case) must not
    pass as "no regression". An interrupted run or a shard that holds no case is incomplete instead."""
    if any(s.view.cases for s in candidate.suites) or not candidate.run.get("complete", True):
        return
    held = sum(len(s.view.cases) for s in baseline.suites)
    if held and not candidate.run.get("shard"):  # not a record problem: `ci` must not take it for one
        raise UsageError(
            f"the candidate has no case while the baseline has {held:,}: nothing was compared, so the "
            "gate cannot pass. Check what the run selected (paths, --filter, --dataset, --label)."
        )


def compare_documents(
    baseline: Document | RunSummary | None,
    candidate: Document | RunSummary,
    policy: Policy,
    *,
    baseline_info: BaselineInfo | None = None,
    mode: Mode = "compare",
    case_detail: CaseDetail = "all",
    history: Sequence[Document | RunSummary] = (),
    prices: PriceTable | None = None,
) -> Comparison:
    """Compare two run-record documents (checked here) or their summaries (``record.read.read_summary``);
    the engine behind ``compare_runs``. ``prices``: the table both sides' costs are worked out with
    (None: the working directory's; ``ci`` on a pull request passes the base side's).

    With ``case_detail='listed'`` the stable cases (and only they) are counted but get no per-case diff
    in ``SuiteComparison.cases``: what the terminal, Markdown and JSON reports need, much faster on large runs.
    ``case_detail='none'`` (a run alone only, no baseline: ``run``'s own verdict) builds no case diff.
    """
    if case_detail == "none" and baseline is not None:
        raise ValueError(
            "case_detail='none' is for a run alone: with a baseline, case diffs decide critical flips"
        )
    with gc_paused():
        return _compare(
            baseline,
            candidate,
            policy,
            baseline_info=baseline_info,
            mode=mode,
            case_detail=case_detail,
            history=history,
            prices=prices,
        )


def _compare(
    baseline: Document | RunSummary | None,
    candidate: Document | RunSummary,
    policy: Policy,
    *,
    baseline_info: BaselineInfo | None,
    mode: Mode,
    case_detail: CaseDetail,
    history: Sequence[Document | RunSummary] = (),
    prices: PriceTable | None = None,
) -> Comparison:
    base, cand, earlier = _summaries(baseline, candidate, history)
    base, cand, reused, reuse_notes = split_reused(base, cand)  # copies of the baseline: no evidence
    base_suites = {s.header["id"]: s for s in base.suites} if base is not None else {}
    replaced = base is not None and _shares_nothing(base_suites, cand)
    if mode == "compare":
        refuse_unmatched(policy, cand, base)
    info = baseline_info or _info_from(base)
    effective = policy.effective
    works = _prepare_suites(base, cand, base_suites, policy, case_detail, earlier, prices)
    across = _test_together(works, base, cand, base_suites, effective)
    usage_gate.settle([w.result for w in works])
    # a shard record holds one slice of a run: like an interrupted run, it can never pass
    incomplete = not cand.run.get("complete", True) or bool(cand.run.get("shard"))
    suites = [
        finish(
            w,
            report_missing=mode == "compare" and not (replaced and w.pick.sid not in base_suites),
            side_details=case_detail == "all",
            cases=case_detail != "none",
            complete=not incomplete,
        )
        for w in works
    ]
    partial = partial_run(base.run) if base is not None else None
    if partial is not None and mode == "compare":
        for suite in suites:
            lacks_baseline(suite, partial)
    cand_ids = {s.header["id"] for s in cand.suites}
    removed = [sid for sid in base_suites if sid not in cand_ids]
    not_run_suites: list[str] = []
    if incomplete:  # what an interrupted run never reached was not removed: it was not run
        not_run_suites, removed = removed, []
        for suite in suites:
            mark_not_run(suite)
    removed_knobs = {sid: policy.knobs_for(sid) for sid in removed}
    reasons = [r for s in suites for r in s.reasons]
    reasons += _run_reasons(base_suites, cand, removed_knobs, effective, replaced and not incomplete, across)
    guarded = _removed_critical(base_suites, removed_knobs, policy)
    reasons += [
        Reason(
            kind="critical-case",
            message=removed_critical_message(f"Suite {sid}", case_id),
            suite_id=sid,
            case_id=case_id,
            blocking=blocking,
        )
        for sid, case_id, blocking in guarded
    ]
    notes = run_notes(base, cand) + reuse_notes
    if incomplete and not cand.run.get(
        "shard"
    ):  # notes[0] is the candidate's: it blocks, names what did not run
        notes[0] = not_run_message(suites, not_run_suites, base is not None, cand.run)
    reasons += [
        Reason(kind="incomplete-run", message=n, blocking=incomplete and i == 0) for i, n in enumerate(notes)
    ]
    if info.unreadable and base is None and mode == "compare":
        reasons.append(Reason(kind="baseline-unreadable", message=_unreadable_message(info, effective)))
    reasons.sort(key=lambda r: not r.blocking)
    verdict, outcome = _run_verdict(
        suites, reasons, guarded, warned=bool(removed or notes or info.unreadable), reused=bool(reused)
    )
    return Comparison(
        mode=mode,
        verdict=verdict,
        outcome="incomplete" if incomplete else outcome,
        reasons=reasons,
        suites=suites,
        removed_suite_ids=removed,
        not_run_suite_ids=not_run_suites,
        policy=policy,
        effective_policy=effective,
        baseline=info,
        candidate=_run_info(cand.run, cand.reruns),
        notes=notes,
        info=[note for suite in suites for note in suite.fingerprint.info],
        reused_suites=reused,
        replaced=replaced,
        renamed_suites=across,
    )


def _summaries(
    baseline: Document | RunSummary | None,
    candidate: Document | RunSummary,
    history: Sequence[Document | RunSummary],
) -> tuple[RunSummary | None, RunSummary, list[RunSummary]]:
    """Both sides and the earlier baselines as summaries, the baseline's case ids as the candidate's
    (a record written before eval ids were project-relative), the candidate's suites without cases
    left out; a candidate that ran nothing is refused."""
    base = summarise(baseline, "baseline") if isinstance(baseline, dict) else baseline
    earlier = [summarise(h, "history") if isinstance(h, dict) else h for h in history]
    cand = summarise(candidate, "candidate") if isinstance(candidate, dict) else candidate
    if not all(s.view.cases for s in cand.suites):
        # a suite without cases ran nothing: absent, so what its baseline ran counts as removed (or,
        # in a part of a run, not run); kept, it read as a suite without a baseline and hid its cases
        cand = RunSummary(cand.run, [s for s in cand.suites if s.view.cases])
    if base is not None:
        base = map_legacy_ids(base, cand)
    earlier = [map_legacy_ids(h, cand) for h in earlier]
    if base is not None:
        _ran_or_refuse(base, cand)
    return base, cand, earlier


def _prepare_suites(
    base: RunSummary | None,
    cand: RunSummary,
    base_suites: Mapping[str, SuiteSummary],
    policy: Policy,
    case_detail: CaseDetail,
    earlier: Sequence[RunSummary],
    prices: PriceTable | None,
) -> list[SuiteWork]:
    """Each candidate suite's cases picked (its knobs resolved once here) and its statistics prepared,
    with the pass-rate trend over the earlier baselines."""
    picks = [
        select_cases(suite, base_suites.get(suite.header["id"]), policy, listed_only=case_detail == "listed")
        for suite in cand.suites
    ]
    versions = (base.run.get("tool_version") if base is not None else None, cand.run.get("tool_version"))
    works = [prepare(pick, base_suites.get(pick.sid), versions, prices, earlier) for pick in picks]
    for work in works if earlier else ():
        if base is not None and work.result.baseline is not None:
            work.result.trend = suite_trend(
                work.pick.sid, earlier, base, work.result.baseline.rate, cand, work.result.candidate.rate
            )
    return works


def _test_together(
    works: Sequence[SuiteWork],
    base: RunSummary | None,
    cand: RunSummary,
    base_suites: Mapping[str, SuiteSummary],
    effective: Knobs,
) -> RenameCheck | None:
    """Gather the renamed-cases tests (within suites, and across suites: renamed, or cases moved) and
    adjust them with the suites' tests in one Holm family; returns the across-suites check."""
    # a partial baseline lacks cases that are not new, and a partial candidate lacks cases it did not remove
    whole = partial_run(base.run) is None and partial_run(cand.run) is None if base is not None else False
    for work in works if not whole else ():
        work.result.renamed = None
    across = moved_or_renamed(base_suites, [w.pick for w in works]) if whole else None
    renames = [(w.result.renamed, w.pick.knobs) for w in works if w.result.renamed is not None]
    renames += [(across, effective)] if across is not None else []
    renames = [(check, knobs) for check, knobs in renames if check.p_floor < knobs.alpha]
    _holm_families(works, renames, floored=any(w.pick.resolved.policy.floored for w in works))
    return across


def _removed_critical(
    base_suites: Mapping[str, SuiteSummary], removed_knobs: Mapping[str, Knobs], policy: Policy
) -> list[tuple[str, str, bool]]:
    """(suite id, case id, blocking) of each critical case that passed every baseline trial in a
    suite this run no longer has."""
    return [
        (sid, case_id, knobs.critical == "fail")
        for sid, knobs in removed_knobs.items()
        if knobs.critical != "ignore"
        for case_id in passing_critical(base_suites[sid], policy)
    ]


def _run_verdict(
    suites: Sequence[SuiteComparison],
    reasons: Sequence[Reason],
    guarded: Sequence[tuple[str, str, bool]],
    *,
    warned: bool,
    reused: bool,
) -> tuple[Verdict, Outcome]:
    """The run's verdict and outcome: the worst of its suites', of its own blocking reasons, and of
    the removed suites' critical cases (``warned``: a removed suite, a note or an unreadable baseline)."""
    outcomes: list[Outcome] = [s.outcome for s in suites] + (["warn"] if warned else [])
    outcomes += ["fail" if blocking else "warn" for _, _, blocking in guarded]
    run_blocking = any(r.blocking for r in reasons if r.kind in ("removed-suite", "replaced", "renamed"))
    outcomes += ["fail"] if run_blocking else []
    # a removed suite's passing critical case fails the gate like a critical flip: so says the verdict
    verdicts: list[Verdict] = [s.verdict for s in suites] + [
        "failed" for _, _, blocking in guarded if blocking
    ]
    verdicts += ["failed"] if run_blocking else []
    verdict: Verdict = worst_verdict(verdicts) if verdicts else ("reused" if reused else "no-baseline")
    return verdict, worst_outcome(outcomes)


def _holm_families(
    works: Sequence[SuiteWork], renames: Sequence[tuple[RenameCheck, Knobs]], *, floored: bool
) -> None:
    """Adjust every test that can fail the pull request (Holm): the suites' and gated groups' drop
    tests, the error-rise tests and the renamed-cases tests; each gets its adjusted p-value and whether
    it is significant.

    One family, unless a base side floors the policy (``floored``: ``ci`` on a pull request): then the
    tests the pull request brings (a group only its policy gates, cases it renamed) form a family of
    their own. In the base side's family they would raise its tests' p-values: gating a few more groups
    or renaming passing cases turned a significant regression into "inconclusive". On their own they
    can add a failure, never take one away."""
    units = [w.unit for w in works if w.unit is not None]
    units += [u for w in works for u in w.group_units.values()]
    for unit in units:
        if unit.stat.p_value is None:
            unit.stat.p_adjusted = 1.0
    # a drop test without a case that both passed and failed, and an error-rise test that cannot
    # reach alpha wherever its errors fell, can never fail the pull request; in a family they only
    # raised the others' p-values (an unchanged second suite, or a single timeout, turned a
    # significant regression into "inconclusive"). Left out, each keeps its own p.
    units = [u for u in units if informative(u.pairs)]
    rises = [
        (w.result.error_rise, w.pick.knobs)
        for w in works
        if w.result.error_rise is not None and w.rise_floor < w.pick.knobs.alpha
    ]
    if not floored:
        _adjust(units, rises, renames)
        return
    _adjust([u for u in units if not u.pull_request_only], rises, [])
    _adjust([u for u in units if u.pull_request_only], [], renames)


def _adjust(
    units: Sequence[Unit],
    rises: Sequence[tuple[ErrorRise, Knobs]],
    renames: Sequence[tuple[RenameCheck, Knobs]],
) -> None:
    """Holm over one family: its drop tests, error-rise tests and renamed-cases tests."""
    adjusted = holm(
        [1.0 if u.stat.p_value is None else u.stat.p_value for u in units]
        + [r.p_value for r, _ in rises]
        + [check.p_value for check, _ in renames]
    )
    for (check, knobs), p_adj in zip(renames, adjusted[len(units) + len(rises) :], strict=True):
        check.p_adjusted = p_adj
        check.significant = p_adj < knobs.alpha
        check.failed = check.significant and check.delta is not None and check.delta <= -knobs.max_drop + EPS
    for (rise, knobs), p_adj in zip(rises, adjusted[len(units) : len(units) + len(rises)], strict=True):
        rise.p_adjusted = p_adj
        rise.significant = p_adj < knobs.alpha
    for unit, p_adj in zip(units, adjusted[: len(units)], strict=True):
        unit.stat.p_adjusted = p_adj
        unit.stat.significant = p_adj < unit.knobs.alpha
        delta = unit.stat.delta
        if delta is not None and delta < 0 and delta <= -unit.knobs.max_drop and not unit.stat.significant:
            unit.stat.settle = settle_hint(
                unit.pairs, unit.stat, alpha=unit.knobs.alpha, max_drop=unit.knobs.max_drop
            )


def _run_reasons(
    base_suites: Mapping[str, SuiteSummary],
    cand: RunSummary,
    removed_knobs: Mapping[str, Knobs],
    effective: Knobs,
    replaced: bool,
    across: RenameCheck | None,
) -> list[Reason]:
    """The run's own reasons: suites removed (``on_removed_cases`` of each), every case renamed or
    replaced, a drop over the suites that replaced the removed ones."""
    reasons = []
    for sid, knobs in removed_knobs.items():
        action = knobs.on_removed_cases
        cases = len(base_suites[sid].view.cases)
        reasons.append(
            Reason(
                kind="removed-suite",
                message=f"Suite {sid} ran in the baseline ({cases:,} {'case' if cases == 1 else 'cases'}) "
                "but not in this run "
                f"(on_removed_cases: {action})" + (f"; {ACCEPT}." if action == "fail" else "."),
                suite_id=sid,
                blocking=action == "fail",
            )
        )
    if replaced and not any(s.header["id"] in base_suites for s in cand.suites):  # else each suite says it
        reasons.append(Reason(kind="replaced", message=_replaced_message(base_suites, cand), blocking=True))
    if across is not None:
        reasons += rename_reasons(f"Suites {named(across.suite_ids)}", across, effective, suite_id=None)
    return reasons


def _run_info(run: dict[str, Any], reruns: tuple[int, int, int] = (0, 0, 0)) -> RunInfoView:
    git, ci = run.get("git") or {}, run.get("ci") or {}
    return RunInfoView(
        retried_trials=reruns[0],
        earlier_attempts=reruns[1],
        replayed_calls=reruns[2],
        run_id=ci.get("run_id"),
        sha=git.get("sha"),
        ref=git.get("ref"),
        date=run.get("started_at"),
        complete=bool(run.get("complete", True)),
        incomplete_reason=run.get("incomplete_reason")
        if isinstance(run.get("incomplete_reason"), str)
        else None,
        tool_version=run.get("tool_version"),
    )


def _info_from(baseline: RunSummary | None) -> BaselineInfo:
    if baseline is None:
        return BaselineInfo(source="none", reason_missing="no baseline run record was given")
    view = _run_info(baseline.run)
    return BaselineInfo(source="file", run_id=view.run_id, sha=view.sha, ref=view.ref, date=view.date)


def _unreadable_message(info: BaselineInfo, effective: Knobs) -> str:
    """The warning of a baseline that was found but could not be used: it is not a first run."""
    where = f" (CI run {info.run_id})" if info.run_id else ""
    return (
        f"The baseline{where} could not be read: {info.unreadable}. Nothing was compared with it, and "
        f"on_missing_baseline ({effective.on_missing_baseline}) decides the exit code. Replace it: "
        "re-run the baseline workflow on the base branch."
    )
