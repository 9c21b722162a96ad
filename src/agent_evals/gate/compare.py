"""Compare a candidate run with its baseline under a policy and decide the gate's verdict."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import filterfalse
from typing import TYPE_CHECKING, Any, Literal

from agent_evals.cost.prices import active_table
from agent_evals.errors import RunRecordError
from agent_evals.gate import breakdown, usage_gate
from agent_evals.gate.align import CLASS_ORDER
from agent_evals.gate.block_change import gate_block_note
from agent_evals.gate.diffs import case_diff
from agent_evals.gate.legacy_ids import map_legacy_ids
from agent_evals.gate.model import (
    BaselineInfo,
    Comparison,
    DeltaStat,
    FingerprintCheck,
    GroupRow,
    Mode,
    Reason,
    RunInfoView,
    SuiteComparison,
)
from agent_evals.gate.paired import (
    Pairs,
    charge_lost_grades,
    delta_stat,
    error_rise,
    pairs_of_counts,
    rate_summary_of_counts,
    settle_hint,
)
from agent_evals.gate.partial import lacks_baseline, mark_not_run, not_run_message, partial_run, run_notes
from agent_evals.gate.picks import Pick, passing_critical, select_cases
from agent_evals.gate.policy import Knobs, Policy
from agent_evals.gate.reader import Document, gc_paused, record_to_document
from agent_evals.gate.reuse import split_reused
from agent_evals.gate.stats import holm
from agent_evals.gate.summary import RunSummary, SuiteSummary, summarise
from agent_evals.gate.trend import suite_trend
from agent_evals.gate.usage import construct, usage_diff
from agent_evals.gate.verdict import Decision, decide, removed_critical_message, worst_outcome, worst_verdict

if TYPE_CHECKING:
    from agent_evals.core.record import RunRecord

CaseDetail = Literal["all", "listed", "none"]
"""Which cases get a per-case diff: ``all`` of them, or only those a report lists one by one (every
class but stable pass and stable fail, plus critical cases and cases with an errored trial). The
per-class counts always cover every case. JUnit and HTML reports need ``all`` (one entry per case).
``listed`` diffs also leave out what only those reports show of a case: its usage delta and the
baseline's output (``CaseDiff.usage`` and ``CaseDiff.baseline_output`` stay None)."""


@dataclass
class _Unit:
    """A suite or gated group that can fail the gate: tested together under Holm."""

    stat: DeltaStat
    pairs: Pairs
    knobs: Knobs


@dataclass
class _SuiteWork:
    pick: Pick
    result: SuiteComparison
    unit: _Unit | None
    group_units: dict[str, _Unit] = field(default_factory=dict)
    lost_trials: int = 0
    """Candidate trials of cases that lost their grade, charged as errored (``charge_lost_grades``)."""


def compare_runs(
    baseline: RunRecord | None,
    candidate: RunRecord,
    policy: Policy,
    *,
    baseline_info: BaselineInfo | None = None,
    history: Sequence[RunRecord] = (),
) -> Comparison:
    """Compare two run records (baseline may be None) under ``policy``; pure: data in, data out.

    ``history``: earlier baselines of the same suites (as ``compare --history``), oldest or newest first."""
    base_doc = record_to_document(baseline) if baseline is not None else None
    return compare_documents(
        base_doc,
        record_to_document(candidate),
        policy,
        baseline_info=baseline_info,
        history=[record_to_document(h) for h in history],
    )


def single_run(
    candidate: RunRecord | Document | RunSummary, policy: Policy, *, case_detail: CaseDetail = "all"
) -> Comparison:
    """A comparison without a baseline, for rendering one run alone (floors and error budget still apply).
    The run may be a record model, its document, or its summary (``gate.reader.read_summary``);
    ``case_detail`` as for :func:`compare_documents`."""
    run = candidate if isinstance(candidate, (dict, RunSummary)) else record_to_document(candidate)
    info = BaselineInfo(source="none", reason_missing="single-run report: no baseline requested")
    return compare_documents(
        None, run, policy, baseline_info=info, mode="single_run", case_detail=case_detail
    )


def _overlap_or_refuse(base_suites: Mapping[str, SuiteSummary], candidate: RunSummary) -> None:
    base_any = any(s.view.cases for s in base_suites.values())
    cand_any = any(s.view.cases for s in candidate.suites)
    if not (base_any and cand_any):
        return
    for suite in candidate.suites:
        base_suite = base_suites.get(suite.header["id"])
        if base_suite is not None:
            ids = base_suite.view.cases
            if any(cid in ids for cid in suite.view.cases):
                return
    raise RunRecordError(
        "the baseline and the candidate share no (suite id, case id): they are not runs of the same "
        f"suites (baseline suites: {', '.join(sorted(base_suites)[:5])}; candidate suites: "
        f"{', '.join(sorted(s.header['id'] for s in candidate.suites)[:5])}). "
        "Compare runs of the same benchmarks or eval files."
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
) -> Comparison:
    """Compare two run-record documents (checked here) or their summaries (``gate.reader.read_summary``);
    the engine behind ``compare_runs``.

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
) -> Comparison:
    base = summarise(baseline, "baseline") if isinstance(baseline, dict) else baseline
    earlier = [summarise(h, "history") if isinstance(h, dict) else h for h in history]
    cand = summarise(candidate, "candidate") if isinstance(candidate, dict) else candidate
    if base is not None:
        base = map_legacy_ids(base, cand)  # a baseline written before eval ids were project-relative
    earlier = [map_legacy_ids(h, cand) for h in earlier]
    base, cand, reused, reuse_notes = split_reused(base, cand)  # copies of the baseline: no evidence
    base_suites = {s.header["id"]: s for s in base.suites} if base is not None else {}
    if base is not None:
        _overlap_or_refuse(base_suites, cand)
    info = baseline_info or _info_from(base)
    picks = [
        select_cases(suite, base_suites.get(suite.header["id"]), policy, listed_only=case_detail == "listed")
        for suite in cand.suites
    ]
    side_details = case_detail == "all"
    versions = (base.run.get("tool_version") if base is not None else None, cand.run.get("tool_version"))
    works = [_prepare(pick, base_suites.get(pick.sid), policy, versions, earlier) for pick in picks]
    for work in works if earlier else ():  # the pass-rate trend over the earlier baselines
        if base is not None and work.result.baseline is not None:
            work.result.trend = suite_trend(
                work.pick.sid, earlier, base, work.result.baseline.rate, cand, work.result.candidate.rate
            )

    units = [w.unit for w in works if w.unit is not None]
    units += [u for w in works for u in w.group_units.values()]
    rises = [(w.result.error_rise, w.pick.knobs) for w in works if w.result.error_rise is not None]
    # one Holm family: every drop test that can fail the pull request, and every error-rise test
    adjusted = holm(
        [1.0 if u.stat.p_value is None else u.stat.p_value for u in units] + [r.p_value for r, _ in rises]
    )
    for (rise, knobs), p_adj in zip(rises, adjusted[len(units) :], strict=True):
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

    usage_gate.settle([w.result for w in works])
    suites = [
        _finish(
            w,
            policy,
            report_missing=mode == "compare",
            side_details=side_details,
            cases=case_detail != "none",
        )
        for w in works
    ]
    partial = partial_run(base.run) if base is not None else None
    if partial is not None and mode == "compare":
        for suite in suites:
            lacks_baseline(suite, partial)
    cand_ids = {s.header["id"] for s in cand.suites}
    removed = [sid for sid in base_suites if sid not in cand_ids]
    # a shard record holds one slice of a run: like an interrupted run, it can never pass
    incomplete = not cand.run.get("complete", True) or bool(cand.run.get("shard"))
    not_run_suites: list[str] = []
    if incomplete:  # what an interrupted run never reached was not removed: it was not run
        not_run_suites, removed = removed, []
        for suite in suites:
            mark_not_run(suite)
    reasons = [r for s in suites for r in s.reasons]
    reasons += [
        Reason(
            kind="removed-suite",
            message=f"Suite {sid} ran in the baseline but not in this run.",
            suite_id=sid,
        )
        for sid in removed
    ]
    guarded = [
        (sid, case_id, knobs.critical == "fail")
        for sid in removed
        if (knobs := policy.knobs_for(sid)).critical != "ignore"
        for case_id in passing_critical(base_suites[sid], knobs)
    ]
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
        reasons.append(Reason(kind="baseline-unreadable", message=_unreadable_message(info, policy)))
    reasons.sort(key=lambda r: not r.blocking)
    outcomes = [s.outcome for s in suites] + (["warn"] if removed or notes or info.unreadable else [])
    outcomes += ["fail" if blocking else "warn" for _, _, blocking in guarded]
    return Comparison(
        mode=mode,
        verdict=worst_verdict([s.verdict for s in suites])
        if suites
        else ("reused" if reused else "no-baseline"),
        outcome="incomplete" if incomplete else worst_outcome(outcomes),
        reasons=reasons,
        suites=suites,
        removed_suite_ids=removed,
        not_run_suite_ids=not_run_suites,
        policy=policy,
        effective_policy=policy.effective,
        baseline=info,
        candidate=_run_info(cand.run),
        notes=notes,
        reused_suites=reused,
    )


def _prepare(
    pick: Pick,
    base_suite: SuiteSummary | None,
    policy: Policy,
    versions: tuple[str | None, str | None],
    earlier: Sequence[RunSummary] = (),
) -> _SuiteWork:
    suite, sid, knobs, cand_view, base_view = pick.suite, pick.sid, pick.knobs, pick.cand_view, pick.base_view
    header = suite.header
    cand = cand_view.cases
    base = base_view.cases if base_view is not None else None
    differ = not pick.same_ids  # some case ids are on one side only
    # every rate and pair below comes from the cases counted once by (group, key)
    counts = breakdown.count_cases(base_view, cand_view, pick.pairs)
    b_keys, c_keys, pb_keys, pc_keys, sides = counts.totals()
    pairs = pairs_of_counts(sides)
    stat = None
    if base is not None:
        stat = delta_stat(
            pairs, alpha=knobs.alpha, max_drop=knobs.max_drop, mid_p=knobs.mid_p, test=knobs.test
        )
    result = construct(
        SuiteComparison,
        suite_id=sid,
        kind=header.get("kind", "benchmark"),
        source=header.get("source"),
        verdict="passed",
        outcome="pass",
        reasons=[],
        policy=knobs,
        baseline=rate_summary_of_counts(b_keys) if base is not None else None,
        candidate=rate_summary_of_counts(c_keys),
        paired_baseline=rate_summary_of_counts(pb_keys) if base is not None else None,
        paired_candidate=rate_summary_of_counts(pc_keys) if base is not None else None,
        delta=stat,
        error_rise=None,
        confirm_flaky=[],
        trend=[],
        usage_checks=[],
        usage_groups=[],
        groups=breakdown.rows_by_group(base_view, cand_view, lambda g: policy.knobs_for(sid, g), counts),
        scorers=breakdown.scorer_rows(base_view, cand_view, knobs),
        dimensions=breakdown.rows_by_cases("dimension", base_view, cand_view, lambda _: knobs, pick.pairs),
        cases=[],
        added_case_ids=list(filterfalse(base.__contains__, cand)) if differ and base is not None else [],
        removed_case_ids=list(filterfalse(cand.__contains__, base)) if differ and base is not None else [],
        fingerprint=_fingerprint(suite, base_suite, base is not None, pick.same_ids, versions),
        usage=usage_diff(
            base_view.usage.totals() if base_view is not None else None, cand_view.usage.totals()
        ),
        counts={},
    )
    if base_view is not None:
        result.usage_checks, result.usage_groups = usage_gate.check_suite(
            base_view, cand_view, knobs, active_table()
        )
    if stat is not None and earlier and base is not None:
        pairs = _with_history(stat, pick, earlier, knobs)
    unit = _Unit(stat, pairs, knobs) if stat is not None else None
    lost_trials = 0
    if base is not None:
        charged, lost_trials = charge_lost_grades(sides)
        result.error_rise = error_rise(charged)
    work = _SuiteWork(pick, result, unit, lost_trials=lost_trials)
    for row in result.groups:
        if base is not None and row.delta is not None and policy.group_is_gated(sid, row.key):
            row.gated = True
            work.group_units[row.key] = _Unit(
                row.delta, pairs_of_counts(counts.group_sides(row.key)), policy.knobs_for(sid, row.key)
            )
    return work


def _with_history(stat: DeltaStat, pick: Pick, earlier: Sequence[RunSummary], knobs: Knobs) -> Pairs:
    """Pool the trials of the earlier baselines into the baseline side of the test (same suite id,
    same case id): a case that passed in every earlier run and fails now is strong evidence, a case
    that alternated is weak. The delta and its interval stay those against the baseline; the p-value,
    MDE and hints use the pooled trials. Returns the pooled pairs."""
    views = [s.view for run in earlier for s in run.suites if s.header["id"] == pick.sid]
    base = pick.base_view.cases if pick.base_view is not None else {}
    pooled: Pairs = Counter()
    flaky: list[str] = []
    for cid, cand_case in pick.cand_view.cases.items():
        base_case = base.get(cid)
        if base_case is None:
            continue
        nb, pb, eb = base_case.key
        for view in views:
            old = view.cases.get(cid)
            if old is not None:
                nb, pb, eb = nb + old.key[0], pb + old.key[1], eb + old.key[2]
        nc, pc, ec = cand_case.key
        if nb > eb and nc > ec:
            pooled[(nb - eb, pb, nc - ec, pc)] += 1
            if 0 < pb < nb - eb:
                flaky.append(cid)
    pooled_stat = delta_stat(
        pooled, alpha=knobs.alpha, max_drop=knobs.max_drop, mid_p=knobs.mid_p, test=knobs.test
    )
    if stat.test != "none" or pooled_stat.test != "none":
        stat.test = pooled_stat.test if pooled_stat.test != "none" else stat.test
        stat.p_value = stat.p_adjusted = pooled_stat.p_value
    for name in ("mde", "mde_exceeds_max_drop", "can_fail", "min_discordant", "capacity"):
        setattr(stat, name, getattr(pooled_stat, name))
    stat.history_runs = len(views)
    stat.history_flaky = flaky
    return pooled


def _finish(
    work: _SuiteWork, policy: Policy, *, report_missing: bool, side_details: bool, cases: bool = True
) -> SuiteComparison:
    result, pick, sid = work.result, work.pick, work.result.suite_id
    picked = pick.picked if cases else []
    diffs = [case_diff(sid, b, view, klass, side_details=side_details) for b, view, klass in picked]
    diffs += [case_diff(sid, b, None, "removed", side_details=side_details) for b in pick.gone]
    rank = {klass: i for i, klass in enumerate(CLASS_ORDER)}
    diffs.sort(key=lambda d: (rank[d.classification], d.delta if d.delta is not None else 0.0))
    result.cases = diffs
    result.counts = {klass: pick.counts.get(klass, 0) for klass in CLASS_ORDER}
    flips = [d.case_id for d in diffs if d.critical_flip and d.classification == "regressed"]
    # graded in the baseline, no graded trial now (every trial errored, or no pass/fail verdict)
    lost = [
        (d.case_id, d.candidate.errors > 0)
        for d in diffs
        if d.baseline is not None
        and d.baseline.pass_fraction is not None
        and d.candidate is not None
        and d.candidate.pass_fraction is None
    ]
    decision = decide(
        label=f"Suite {sid}",
        suite_id=sid,
        group=None,
        knobs=pick.knobs,
        candidate=result.candidate,
        delta=result.delta,
        has_baseline=pick.base_view is not None,
        critical_flips=flips,
        critical_lost=[
            d.case_id for d in diffs if d.critical_flip and d.classification not in ("regressed", "removed")
        ],
        critical_removed=[d.case_id for d in diffs if d.critical_flip and d.classification == "removed"],
        lost_cases=lost,
        lost_trials=work.lost_trials,
        report_missing=report_missing,
        fingerprint=result.fingerprint,
        baseline=result.paired_baseline if pick.base_view is not None else None,
        errors=result.error_rise,
    )
    verdicts, outcomes, reasons = [decision.verdict], [decision.outcome], list(decision.reasons)
    for row in result.groups:
        if row.gated:
            group_decision = _decide_group(row, sid, policy.knobs_for(sid, row.key))
            verdicts.append(group_decision.verdict)
            outcomes.append(group_decision.outcome)
            reasons += group_decision.reasons
    for verdict, outcome, reason in usage_gate.decisions(result):
        verdicts.append(verdict)
        outcomes.append(outcome)
        reasons.append(reason)
    breakdown.flag_rows(result.groups, lambda r: policy.knobs_for(sid, r.key))
    breakdown.flag_rows(result.scorers, lambda _: pick.knobs)
    breakdown.flag_rows(result.dimensions, lambda _: pick.knobs)
    result.verdict = worst_verdict(verdicts)
    result.outcome = worst_outcome(outcomes)
    result.reasons = sorted(reasons, key=lambda r: not r.blocking)
    return result


def _decide_group(row: GroupRow, sid: str, knobs: Knobs) -> Decision:
    decision = decide(
        label=f"Group {sid}/{row.key}",
        suite_id=sid,
        group=row.key,
        knobs=knobs,
        candidate=row.candidate,
        delta=row.delta,
        has_baseline=True,
    )
    row.verdict = decision.verdict
    row.reasons = decision.reasons
    kinds = {r.kind for r in decision.reasons}
    if "regression" in kinds:
        row.status = "regressed"
    elif "floor" in kinds:
        row.status = "below-floor"
    elif decision.verdict == "inconclusive":
        row.status = "inconclusive"
    elif row.delta is not None and row.delta.delta is not None and row.delta.delta >= knobs.max_drop > 0:
        row.status = "improved"
    else:
        row.status = "ok"
    return decision


def _fingerprint(
    suite: SuiteSummary,
    base_suite: SuiteSummary | None,
    comparable: bool,
    same_ids: bool,
    tool_versions: tuple[str | None, str | None] = (None, None),
) -> FingerprintCheck:
    cand_fp = str(suite.header.get("fingerprint") or "")
    if base_suite is None:
        return FingerprintCheck(baseline=None, candidate=cand_fp, matches=True, notes=[])
    header = base_suite.header
    base_fp = str(header.get("fingerprint") or "")
    notes = []
    if not comparable:
        notes.append("No case id is common to both runs: the suite is reported without a baseline.")
    base_ids = base_suite.view.cases.keys()
    cand_ids = suite.view.cases.keys()
    if not same_ids and base_ids != cand_ids:
        notes.append(
            f"Case ids differ: {len(cand_ids - base_ids)} added, {len(base_ids - cand_ids)} removed."
        )
    b_agent, c_agent = header.get("agent") or {}, suite.header.get("agent") or {}
    for key in ("name", "version"):
        if b_agent.get(key) != c_agent.get(key):
            notes.append(
                f"Agent {key} differs: {b_agent.get(key)!r} in the baseline, {c_agent.get(key)!r} now."
            )
    if header.get("source") != suite.header.get("source"):
        notes.append(
            f"Suite file differs: {header.get('source')!r} in the baseline, {suite.header.get('source')!r} now."
        )
    if tool_versions[0] != tool_versions[1]:
        notes.append(
            f"agent-evals version differs: {tool_versions[0]} in the baseline, {tool_versions[1]} now."
        )
    changed_gate = gate_block_note(header.get("gate"), suite.header.get("gate"))
    if changed_gate is not None:
        notes.append(changed_gate)
    b_trials = base_suite.trial_counts
    c_trials = suite.trial_counts
    if b_trials != c_trials:
        notes.append(f"Trials per case differ: {b_trials} in the baseline, {c_trials} now.")
    matches = base_fp == cand_fp and not notes
    if base_fp != cand_fp and not notes:
        notes.append("The suite's configuration differs from the baseline's (fingerprints differ).")
    return FingerprintCheck(baseline=base_fp, candidate=cand_fp, matches=matches, notes=notes)


def _run_info(run: dict[str, Any]) -> RunInfoView:
    git, ci = run.get("git") or {}, run.get("ci") or {}
    return RunInfoView(
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


def _unreadable_message(info: BaselineInfo, policy: Policy) -> str:
    """The warning of a baseline that was found but could not be used: it is not a first run."""
    where = f" (CI run {info.run_id})" if info.run_id else ""
    return (
        f"The baseline{where} could not be read: {info.unreadable}. Nothing was compared with it, and "
        f"on_missing_baseline ({policy.effective.on_missing_baseline}) decides the exit code. Replace it: "
        "re-run the baseline workflow on the base branch."
    )
