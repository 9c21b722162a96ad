"""Changes of what is measured that must not hide a drop: replaced, renamed and removed cases, fewer trials."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from agent_evals.gate.model import Reason, RenameCheck, SuiteComparison
from agent_evals.gate.policy import Knobs
from agent_evals.gate.verdict import count, pct, points, pvalue
from agent_evals.record.views import SuiteView

NAMED = 5
"""Case or suite ids named in a reason or the headline (the rest are counted)."""

ACCEPT = "if that is intended, a maintainer accepts it with the accept label"


def named(ids: Sequence[str], limit: int = NAMED) -> str:
    """The first ``limit`` ids, then how many more."""
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit:,} more" if len(ids) > limit else "")


def fewer_trials(
    base: SuiteView,
    cand: SuiteView,
    base_counts: Sequence[int],
    cand_counts: Sequence[int],
    unverdicted: bool = False,
) -> list[tuple[str, str, str, bool]]:
    """(case id, baseline trials, candidate trials, counting the trials with a verdict) of each shared
    case run with fewer trials now. With ``unverdicted`` (the candidate has trials without a pass/fail
    verdict) a case counts too when a larger share of its trials has neither a verdict nor an error
    than in the baseline: the comparison leaves those trials out, so failing trials recorded as a bare
    number (beside as many verdicts as before, or more trials) would hide their failures; the counts
    are then ``verdicts of trials``. A case with no verdict at all lost its grade instead (``lost-grade``)."""
    if not base_counts or not cand_counts or (min(cand_counts) >= max(base_counts) and not unverdicted):
        return []  # the usual case: the same trials everywhere, nothing to walk
    out = []
    for cid, case in cand.cases.items():
        old = base.cases.get(cid)
        if old is None:
            continue
        before, now = len(old.raw.get("trials") or ()), len(case.raw.get("trials") or ())
        if now < before:
            out.append((cid, str(before), str(now), False))
        elif (
            unverdicted
            and 0 < case.key[0] < now
            and (now - case.key[0]) * before > (before - old.key[0]) * now
        ):
            out.append((cid, f"{old.key[0]} of {before}", f"{case.key[0]} of {now}", True))
    return out


def trials_change(fewer: Sequence[tuple[str, str, str, bool]]) -> str:
    """The most common change, as ``trials 3 -> 1`` (``trials with a pass/fail verdict 3 of 3 -> 1 of 3``)."""
    (before, now, verdicts), _ = Counter((b, c, v) for _, b, c, v in fewer).most_common(1)[0]
    return f"trials{' with a pass/fail verdict' if verdicts else ''} {before} -> {now}"


def replaced_message(label: str, removed: Sequence[str], added: Sequence[str]) -> str:
    """Why a suite that shares no case with its baseline fails."""
    return (
        f"{label}: every case was renamed or replaced: it shares no case id with its baseline "
        f"({len(removed):,} baseline cases, none in this run: {named(removed)}; {len(added):,} cases "
        f"new: {named(added)}). Nothing could be paired, so it cannot pass; {ACCEPT}."
    )


def rename_message(label: str, check: RenameCheck, knobs: Knobs) -> str:
    """Why the added cases' results fail the gate against the removed cases' baseline results."""
    test = (
        f"exact test, {check.paired_by_input:,} of them paired with a removed case by their input"
        if check.paired_by_input
        else "unpaired exact test"
    )
    return (
        f"{label}: {_rates(check)} in the baseline: "
        f"a drop of {points(-(check.delta or 0.0))} ({pvalue(check.p_adjusted)} adjusted, {test}; "
        f"tolerated drop {points(knobs.max_drop)}). Renamed or replaced cases are compared with the "
        f"cases they replace; {ACCEPT}."
    )


def _rates(check: RenameCheck) -> str:
    """The added cases' pass rate against the removed cases' baseline one, for a sentence."""
    added, removed = check.added_graded, check.removed_graded
    return (
        f"the {count(added, 'added case')} pass{'es' if added == 1 else ''} {pct(check.candidate_rate or 0.0)} "
        f"where the {count(removed, 'removed case')} passed {pct(check.baseline_rate or 0.0)}"
    )


def _could_have_called(removed: int, alpha: float) -> bool:
    """Whether ``removed`` cases that all passed, renamed and all failing with nothing added beside
    them, would give a significant drop (4 or more at alpha 0.05): fewer, one case retired and one new
    one failing say, is no hidden regression the dilution could explain."""
    return removed > 0 and 1 / math.comb(2 * removed, removed) < alpha  # Fisher's exact, the extreme


def unsettled_rename_message(label: str, check: RenameCheck, knobs: Knobs) -> str:
    """A drop over renamed or replaced cases beyond ``max_drop`` that the test cannot call."""
    return (
        f"{label}: {_rates(check)} in the baseline: "
        f"a drop of {points(-(check.delta or 0.0))}, not significant ({pvalue(check.p_adjusted)} adjusted; "
        f"tolerated drop {points(knobs.max_drop)}; on_inconclusive: {knobs.on_inconclusive}). New cases "
        "added beside renamed ones dilute this test: on_removed_cases: fail makes every removed case count."
    )


def rename_reasons(label: str, check: RenameCheck, knobs: Knobs, *, suite_id: str | None) -> list[Reason]:
    """What a renamed-cases test says: a failure when it found a significant drop beyond ``max_drop``;
    such a drop it cannot call, where as many removed cases could have shown it, is inconclusive
    (new cases added beside the renamed ones dilute it), never read as "no regression"."""
    if check.failed:
        return [
            Reason(
                kind="renamed", message=rename_message(label, check, knobs), suite_id=suite_id, blocking=True
            )
        ]
    if (
        check.delta is not None
        and check.delta <= -knobs.max_drop
        and _could_have_called(check.removed_graded, knobs.alpha)
    ):
        return [
            Reason(
                kind="renamed",
                message=unsettled_rename_message(label, check, knobs),
                suite_id=suite_id,
                blocking=knobs.on_inconclusive == "fail",
            )
        ]
    return []


def suite_reasons(result: SuiteComparison, knobs: Knobs, *, complete: bool) -> list[Reason]:
    """A suite's reasons for what changed in what it measures (``complete``: the candidate is a whole
    run; a shard or an interrupted run lacks cases and trials without having removed them)."""
    sid, label = result.suite_id, f"Suite {result.suite_id}"
    reasons: list[Reason] = []
    if not complete:
        return reasons
    if result.replaced:
        reasons.append(
            Reason(
                kind="replaced",
                message=replaced_message(label, result.removed_case_ids, result.added_case_ids),
                suite_id=sid,
                blocking=True,
            )
        )
    elif result.removed_case_ids:
        ids = result.removed_case_ids
        action = knobs.on_removed_cases
        reasons.append(
            Reason(
                kind="removed-cases",
                message=(
                    f"{label}: {len(ids):,} baseline {'case is' if len(ids) == 1 else 'cases are'} not in "
                    f"this run (removed or renamed): {named(ids)} (on_removed_cases: {action})"
                    + (f"; {ACCEPT}." if action == "fail" else ".")
                ),
                suite_id=sid,
                blocking=action == "fail",
            )
        )
    if result.renamed is not None:
        reasons += rename_reasons(label, result.renamed, knobs, suite_id=sid)
    if result.fewer_trials:
        fewer = result.fewer_trials
        action = knobs.on_fewer_trials
        reasons.append(
            Reason(
                kind="fewer-trials",
                message=(
                    f"{label}: {result.trials_change}: {len(fewer):,} "
                    f"{'case runs' if len(fewer) == 1 else 'cases run'} with fewer trials than in the "
                    f"baseline ({named(fewer)}), so a drop has less chance to show "
                    f"(on_fewer_trials: {action})" + (f"; {ACCEPT}." if action == "fail" else ".")
                ),
                suite_id=sid,
                blocking=action == "fail",
            )
        )
    return reasons
