"""One suite's comparison: its rates, paired tests, breakdown rows, usage checks, case diffs and decision."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import filterfalse

from agent_evals.cost.prices import PriceTable, active_table
from agent_evals.gate import breakdown, redefined, usage_gate
from agent_evals.gate.align import CLASS_ORDER, usage_diff
from agent_evals.gate.block_change import gate_block_note
from agent_evals.gate.diffs import case_diff
from agent_evals.gate.floor import gated_by_pull_request_only
from agent_evals.gate.measured import fewer_trials, suite_reasons, trials_change
from agent_evals.gate.model import (
    DeltaStat,
    FingerprintCheck,
    GroupRow,
    SuiteComparison,
)
from agent_evals.gate.model_change import model_changes
from agent_evals.gate.paired import (
    Pairs,
    charge_lost_grades,
    delta_stat,
    error_rise,
    error_rise_floor,
    pairs_of_counts,
    rate_summary_of_counts,
)
from agent_evals.gate.picks import Pick
from agent_evals.gate.policy import Knobs
from agent_evals.gate.renamed import rename_check
from agent_evals.gate.verdict import Decision, decide, worst_outcome, worst_verdict
from agent_evals.record.summary import RunSummary, SuiteSummary
from agent_evals.record.usage_totals import construct


@dataclass
class Unit:
    """A suite or gated group that can fail the gate: tested together under Holm."""

    stat: DeltaStat
    pairs: Pairs
    knobs: Knobs
    pull_request_only: bool = False
    """A group only the pull request's policy gates: tested in a family of its own (``gate.compare``)."""


@dataclass
class SuiteWork:
    """One suite on its way through the comparison: its cases picked, its result being filled in."""

    pick: Pick
    result: SuiteComparison
    unit: Unit | None
    group_units: dict[str, Unit] = field(default_factory=dict)
    lost_trials: int = 0
    """Candidate trials of cases that lost their grade, charged as errored (``charge_lost_grades``)."""
    rise_floor: float = 1.0
    """The smallest p-value the error-rise test can give (``error_rise_floor``)."""


def prepare(
    pick: Pick,
    base_suite: SuiteSummary | None,
    versions: tuple[str | None, str | None],
    prices: PriceTable | None,
    earlier: Sequence[RunSummary] = (),
) -> SuiteWork:
    """A suite's rates, paired test, breakdown rows, usage checks and fingerprint, before Holm:
    ``compare`` adjusts the p-values of every suite together, then :func:`finish` decides."""
    suite, sid, knobs, cand_view, base_view = pick.suite, pick.sid, pick.knobs, pick.cand_view, pick.base_view
    header = suite.header
    cand = cand_view.cases
    base = base_view.cases if base_view is not None else None
    differ = not pick.same_ids  # some case ids are on one side only
    # every rate and pair below comes from the cases counted once by (group, key)
    counts = breakdown.count_cases(base_view, cand_view, pick.pairs)
    b_keys, c_keys, pb_keys, pc_keys, sides = counts.totals()
    unverdicted = cand_view.usage.trials > sum(k[0] * n for k, n in c_keys.items())
    fewer = (
        fewer_trials(base_view, cand_view, base_suite.trial_counts, suite.trial_counts, unverdicted)
        if base_view is not None and base_suite is not None
        else []
    )
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
        groups=breakdown.rows_by_group(base_view, cand_view, pick.resolved.group, counts),
        scorers=breakdown.scorer_rows(base_view, cand_view, knobs),
        dimensions=breakdown.rows_by_cases("dimension", base_view, cand_view, lambda _: knobs, pick.pairs),
        cases=[],
        added_case_ids=list(filterfalse(base.__contains__, cand)) if differ and base is not None else [],
        removed_case_ids=list(filterfalse(cand.__contains__, base)) if differ and base is not None else [],
        fingerprint=fingerprint(suite, base_suite, base is not None, pick.same_ids, versions, bool(fewer)),
        usage=usage_diff(
            base_view.usage.totals() if base_view is not None else None, cand_view.usage.totals()
        ),
        counts={},
        replaced=pick.replaced is not None,
        renamed=None,
        fewer_trials=[cid for cid, *_ in fewer],
        trials_change=trials_change(fewer) if fewer else None,
    )
    if pick.replaced is not None:
        result.renamed = rename_check([sid], list(pick.replaced.cases.values()), list(cand.values()))
        result.added_case_ids, result.removed_case_ids = list(cand), list(pick.replaced.cases)
    elif base is not None and differ:
        result.renamed = rename_check([sid], pick.gone, [v for cid, v in cand.items() if cid not in base])
    if base_view is not None:
        result.usage_checks, result.usage_groups = usage_gate.check_suite(
            base_view, cand_view, knobs, prices if prices is not None else active_table()
        )
    if stat is not None and earlier and base is not None:
        pairs = _with_history(stat, pick, earlier, knobs)
    unit = Unit(stat, pairs, knobs) if stat is not None else None
    lost_trials = 0
    rise_floor = 1.0
    if base is not None:
        charged, lost_trials = charge_lost_grades(sides)
        result.error_rise = error_rise(charged)
        if result.error_rise is not None:
            rise_floor = error_rise_floor(charged)
    work = SuiteWork(pick, result, unit, lost_trials=lost_trials, rise_floor=rise_floor)
    for row in result.groups:
        if not pick.resolved.gated(row.key):
            continue
        row.gated = True  # decided without a baseline too: its floor and error budget still apply
        if base is not None and row.delta is not None:
            work.group_units[row.key] = Unit(
                row.delta,
                pairs_of_counts(counts.group_sides(row.key)),
                pick.resolved.group(row.key),
                gated_by_pull_request_only(pick.resolved.policy, sid, row.key),
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
        pooled,
        alpha=knobs.alpha,
        max_drop=knobs.max_drop,
        mid_p=knobs.mid_p,
        test=knobs.test,
        history=len(views),
    )
    if stat.test != "none" or pooled_stat.test != "none":
        stat.test = pooled_stat.test if pooled_stat.test != "none" else stat.test
        stat.p_value = stat.p_adjusted = pooled_stat.p_value
    for name in ("mde", "mde_exceeds_max_drop", "can_fail", "min_discordant", "capacity"):
        setattr(stat, name, getattr(pooled_stat, name))
    stat.history_runs = len(views)
    stat.history_flaky = flaky
    return pooled


def finish(
    work: SuiteWork,
    *,
    report_missing: bool,
    side_details: bool,
    cases: bool = True,
    complete: bool = True,
) -> SuiteComparison:
    """A prepared suite's case diffs and decision (verdict, outcome, reasons), once the p-values are
    adjusted; ``cases=False`` builds no case diff (a run alone); ``complete``: the candidate is a whole
    run (a shard or an interrupted run did not remove what it lacks)."""
    result, pick, sid = work.result, work.pick, work.result.suite_id
    if not complete and result.fingerprint is not None:  # what it lacks was not run, not removed
        said = case_ids_note(len(result.added_case_ids), len(result.removed_case_ids))
        truth = case_ids_note(len(result.added_case_ids), len(result.removed_case_ids), complete=False)
        result.fingerprint.notes = [truth if note == said else note for note in result.fingerprint.notes]
    picked = pick.picked if cases else []
    diffs = [case_diff(sid, b, view, klass, side_details=side_details) for b, view, klass in picked]
    diffs += [case_diff(sid, b, None, "removed", side_details=side_details) for b in pick.gone]
    rank = {klass: i for i, klass in enumerate(CLASS_ORDER)}
    diffs.sort(key=lambda d: (rank[d.classification], d.delta if d.delta is not None else 0.0))
    result.cases = diffs
    result.counts = {klass: pick.counts.get(klass, 0) for klass in CLASS_ORDER}
    flips = [d.case_id for d in diffs if d.critical_flip and d.classification == "regressed"]
    # graded in the baseline, no graded trial now (every trial errored, or no pass/fail verdict)
    ran = pick.cand_view.cases
    lost = [
        (
            d.case_id,
            d.candidate.errors > 0,
            len(ran[d.case_id].raw.get("trials") or ()) if d.case_id in ran else 0,
        )
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
        report_missing=report_missing and not result.replaced,
        fingerprint=result.fingerprint,
        baseline=result.paired_baseline if pick.base_view is not None else None,
        errors=result.error_rise,
    )
    verdicts, outcomes, reasons = [decision.verdict], [decision.outcome], list(decision.reasons)
    for reason in suite_reasons(result, pick.knobs, complete=complete):
        verdicts.append("failed" if reason.blocking else "passed")
        outcomes.append("fail" if reason.blocking else "warn")
        reasons.append(reason)
    for row in result.groups:
        if row.gated:
            group_decision = _decide_group(row, sid, pick.resolved.group(row.key))
            verdicts.append(group_decision.verdict)
            outcomes.append(group_decision.outcome)
            reasons += group_decision.reasons
    changed = redefined.decide(result, pick.base_view, pick.cand_view, pick.knobs)
    changed += redefined.regrouped(result, pick.regrouped, pick.knobs)
    for verdict, outcome, reason in usage_gate.decisions(result) + changed:
        verdicts.append(verdict)
        outcomes.append(outcome)
        reasons.append(reason)
    breakdown.flag_rows(result.groups, lambda r: pick.resolved.group(r.key))
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
        has_baseline=row.delta is not None,
        report_missing=False,  # the suite says it has no baseline; a new group is named in its row
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


def case_ids_note(added: int, missing: int, *, complete: bool = True) -> str:
    """The fingerprint's note on case ids: a baseline case missing from a whole run was removed; from an
    incomplete one (interrupted, stopped by its budget, a shard) it was not run."""
    return f"Case ids differ: {added} added, {missing} {'removed' if complete else 'not run'}."


def fingerprint(
    suite: SuiteSummary,
    base_suite: SuiteSummary | None,
    comparable: bool,
    same_ids: bool,
    tool_versions: tuple[str | None, str | None] = (None, None),
    fewer_trials: bool = False,
) -> FingerprintCheck:
    """Whether the suite's two runs are alike: models, fingerprints, case ids, agent, file, tool version,
    trials (a model known on one side only is an ``info`` note, not a difference).
    ``fewer_trials``: cases run with fewer trials than in the baseline, which ``on_fewer_trials`` judges
    instead of ``on_mismatch`` (so they are no note here)."""
    cand_fp = str(suite.header.get("fingerprint") or "")
    if base_suite is None:
        return FingerprintCheck(baseline=None, candidate=cand_fp, matches=True, notes=[])
    header = base_suite.header
    base_fp = str(header.get("fingerprint") or "")
    changed, info = model_changes(header.get("models"), suite.header.get("models"), str(suite.header["id"]))
    # first: a long note before it must not push the model change out of a shortened reason
    notes = [f"Models differ: {'; '.join(changed)}."] if changed else []
    if not comparable:
        notes.append("No case id is common to both runs: every case was renamed or replaced.")
    base_ids = base_suite.view.cases.keys()
    cand_ids = suite.view.cases.keys()
    if not same_ids and base_ids != cand_ids:
        notes.append(case_ids_note(len(cand_ids - base_ids), len(base_ids - cand_ids)))
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
    if b_trials != c_trials and not fewer_trials:
        notes.append(f"Trials per case differ: {b_trials} in the baseline, {c_trials} now.")
    matches = base_fp == cand_fp and not notes and not fewer_trials
    if base_fp != cand_fp and not notes and not fewer_trials:
        notes.append("The suite's configuration differs from the baseline's (fingerprints differ).")
    return FingerprintCheck(baseline=base_fp, candidate=cand_fp, matches=matches, notes=notes, info=info)
