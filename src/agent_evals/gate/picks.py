"""Classify every case of a suite and pick the ones that get a per-case diff."""

from __future__ import annotations

import fnmatch
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, filterfalse
from operator import attrgetter, itemgetter, or_

from agent_evals.gate.align import classify_keys
from agent_evals.gate.model import CaseClass
from agent_evals.gate.policy import Knobs, Policy, SuiteKnobs
from agent_evals.record.summary import SuiteSummary
from agent_evals.record.views import CaseView, Key, SuiteView

_QUIET: frozenset[str] = frozenset(("stable-pass", "stable-fail"))
_KEY = attrgetter("key")
_CRITICAL = attrgetter("critical")
_GROUP = attrgetter("group")
_FIRST = itemgetter(0)
_SECOND = itemgetter(1)


@dataclass
class Pick:
    """A suite's two sides as compared, and its cases counted by class and picked for a diff."""

    suite: SuiteSummary
    sid: str
    resolved: SuiteKnobs
    """The suite's knobs and its groups', resolved once for the whole comparison."""
    cand_view: SuiteView
    base_view: SuiteView | None
    """None when the suite has no baseline, or no case in common with it."""
    picked: list[tuple[CaseView | None, CaseView, CaseClass]]
    """Candidate cases that get a per-case diff, with their baseline side and class."""
    gone: list[CaseView]
    """Baseline cases the candidate no longer has."""
    counts: Counter[str]
    """Cases per class, every case counted."""
    same_ids: bool
    """Both sides have the same case ids (none new, none gone)."""
    pairs: dict[str, tuple[Key, Key]] | None
    """Case id -> (baseline key, candidate key) in candidate order, when ``same_ids``."""
    replaced: SuiteView | None = None
    """The baseline side of a suite that shares no case with it (every case renamed or replaced);
    ``base_view`` is None then."""
    regrouped: list[tuple[str, str, str]] = field(default_factory=list)
    """(case id, baseline group, group now) of each case moved to another group: judged in its
    baseline group (``regroup_as_baseline``)."""

    @property
    def knobs(self) -> Knobs:
        """The knobs of the suite as a whole."""
        return self.resolved.knobs


def literal_brackets(glob: str) -> str:
    """A glob for ``fnmatch`` with its brackets literal (``*`` and ``?`` stay wildcards): eval case ids
    hold them (``eval_x.py::test_refund[big]``), so a critical glob naming such an id matches it,
    as ``--filter`` does, instead of reading ``[big]`` as one of three letters."""
    return glob.replace("[", "\0").replace("]", "[]]").replace("\0", "[[]")


def _mark_critical(view: SuiteView, globs: Sequence[str], ids: Iterable[str] | None = None) -> SuiteView:
    """Flag the cases the policy's critical globs name (a summary has only the recorded flags);
    ``ids``: only those cases (a group's)."""
    if globs:
        patterns = [literal_brackets(g) for g in globs]
        cases = view.cases.values() if ids is None else map(view.cases.__getitem__, ids)
        for case in cases:
            if not case.critical:
                case.critical = any(fnmatch.fnmatchcase(case.id, g) for g in patterns)
    return view


def _mark_critical_cases(view: SuiteView, resolved: SuiteKnobs, globs: Sequence[str]) -> SuiteView:
    """Flag the cases the suite's critical ``globs`` name, and in each group those its override's
    globs name (a case is critical when either does)."""
    _mark_critical(view, globs)
    for group, ids in view.groups.items():
        own = [g for g in resolved.group(group).critical_cases if g not in globs]
        if own:
            _mark_critical(view, own, ids)
    return view


def regroup_as_baseline(base: SuiteView, cand: SuiteView) -> list[tuple[str, str, str]]:
    """Put every case the baseline also ran back in its baseline group; return (case id, baseline
    group, group now) of each one the candidate moved. A case's group chooses the knobs that judge it
    (a gated group's floor, its critical globs): relabelling the failing cases (an eval's ``dataset``)
    must not take them out from under those knobs."""
    cases, base_cases = cand.cases, base.cases
    now = list(map(_GROUP, cases.values()))
    try:  # usually every case is on both sides: then the lookups stay in C
        before = list(map(_GROUP, map(base_cases.__getitem__, cases)))
    except KeyError:
        before = [
            old.group if (old := base_cases.get(cid)) is not None else g
            for cid, g in zip(cases, now, strict=True)
        ]
    if before == now:
        return []
    moved = [(cid, b, g) for cid, b, g in zip(cases, before, now, strict=True) if b != g]
    groups: dict[str, list[str]] = {}
    for (cid, case), group in zip(cases.items(), before, strict=True):
        case.group = group
        groups.setdefault(group, []).append(cid)
    cand.groups = groups
    cand.counted.clear()  # counts by group worked out ahead are stale now
    return moved


def _baseline_globs(base_suite: SuiteSummary, knobs: Knobs) -> tuple[str, ...]:
    """The critical globs of the baseline side: the policy's, and those of the baseline's own ``gate:``
    block (checked when that run loaded it). A change that drops a glob from the suite's block, or
    deletes the suite, in the change that breaks the case must not un-mark it."""
    block = base_suite.header.get("gate")
    own = block.get("critical_cases") if isinstance(block, Mapping) else None
    if not isinstance(own, (list, tuple)):
        return knobs.critical_cases
    return (*knobs.critical_cases, *(g for g in own if isinstance(g, str)))


def passing_critical(base_suite: SuiteSummary, policy: Policy) -> list[str]:
    """Case ids of a baseline suite that are critical (recorded, or by the policy's globs, its groups'
    or the baseline's own block) and passed every trial: what a candidate without that suite drops
    unguarded."""
    resolved = SuiteKnobs(policy, base_suite.header["id"])
    view = _mark_critical_cases(base_suite.view, resolved, _baseline_globs(base_suite, resolved.knobs))
    return [case.id for case in view.cases.values() if case.critical and case.fraction == 1.0]


def _keep_baseline_critical(base: Mapping[str, CaseView], cand: Mapping[str, CaseView]) -> None:
    """A case the baseline marks critical stays critical: un-marking it in the change that breaks it
    must not hide the flip."""
    for cid, case in base.items():
        if case.critical:
            mine = cand.get(cid)
            if mine is not None:
                mine.critical = True


def select_cases(
    suite: SuiteSummary, base_suite: SuiteSummary | None, policy: Policy, *, listed_only: bool
) -> Pick:
    """Mark critical cases, classify every case and pick those that get a per-case diff (all of them,
    or with ``listed_only`` every class but stable pass and stable fail, plus critical cases and
    cases with an errored trial)."""
    sid = suite.header["id"]
    resolved = SuiteKnobs(policy, sid)
    knobs = resolved.knobs
    cand_view, base_view = suite.view, base_suite.view if base_suite is not None else None
    regrouped = regroup_as_baseline(base_view, cand_view) if base_view is not None else []
    _mark_critical_cases(cand_view, resolved, knobs.critical_cases)
    if base_suite is not None:
        _mark_critical_cases(base_suite.view, resolved, _baseline_globs(base_suite, knobs))
    cand = cand_view.cases
    base = base_view.cases if base_view is not None else None
    if base is not None:
        _keep_baseline_critical(base, cand)
    replaced = None
    if base is not None and not any(cid in base for cid in cand):
        # nothing in common: nothing to pair (the fingerprint says why); a failure when both sides have cases
        replaced = base_view if base and cand else None
        base = base_view = None
    quiet = _QUIET if listed_only else frozenset()
    same_ids = base is not None and base.keys() == cand.keys()  # the usual case: one pass, in C
    pairs: dict[str, tuple[Key, Key]] | None = None
    if base is not None and same_ids:
        picked, counts, pairs = _pick_paired(base, cand, quiet)
        gone: list[CaseView] = []
    else:
        picked, counts = _pick_each(base or {}, cand, quiet)
        gone = list(map(base.__getitem__, filterfalse(cand.__contains__, base))) if base is not None else []
    counts["removed"] += len(gone)
    return Pick(
        suite, sid, resolved, cand_view, base_view, picked, gone, counts, same_ids, pairs, replaced, regrouped
    )


Picked = list[tuple[CaseView | None, CaseView, CaseClass]]


def _pick_each(
    base: Mapping[str, CaseView], cand: Mapping[str, CaseView], quiet: frozenset[str]
) -> tuple[Picked, Counter[str]]:
    """Classify and pick case by case (some candidate cases are new, or some baseline ones gone)."""
    picked: Picked = []
    counts: Counter[str] = Counter()
    # class and "listed though quiet" depend on the two keys only: worked out once per distinct pair
    known: dict[tuple[Key, Key], tuple[CaseClass, bool]] = {}
    for cid, view in cand.items():
        b = base.get(cid)
        if b is None:
            counts["new"] += 1
            picked.append((None, view, "new"))
            continue
        pair = (b.key, view.key)
        found = known.get(pair)
        if found is None:
            found = known[pair] = _class_and_listing(pair, quiet)
        klass, listed = found
        counts[klass] += 1
        if listed or view.critical:
            picked.append((b, view, klass))
    return picked, counts


def _class_and_listing(pair: tuple[Key, Key], quiet: frozenset[str]) -> tuple[CaseClass, bool]:
    """A case's class from its two sides' keys, and whether it is listed though its class is quiet
    (an errored trial on either side)."""
    klass = classify_keys(*pair)
    return klass, klass not in quiet or bool(pair[0][2] or pair[1][2])


def _pick_paired(
    base: Mapping[str, CaseView], cand: Mapping[str, CaseView], quiet: frozenset[str]
) -> tuple[Picked, Counter[str], dict[str, tuple[Key, Key]]]:
    """:func:`_pick_each` when both sides have the same case ids: the same picks and counts, with the
    per-case steps in C (class and listing depend on the two sides' keys only); also each case's
    (baseline key, candidate key), in candidate order, for the breakdown rows."""
    views = list(cand.values())
    b_views = list(map(base.__getitem__, cand))
    pairs = list(zip(map(_KEY, b_views), map(_KEY, views), strict=True))
    known = {pair: _class_and_listing(pair, quiet) for pair in set(pairs)}
    found = list(map(known.__getitem__, pairs))
    per_case = list(map(_FIRST, found))
    keep = map(or_, map(_SECOND, found), map(_CRITICAL, views))
    picked: Picked = list(compress(zip(b_views, views, per_case, strict=True), keep))
    return picked, Counter(per_case), dict(zip(cand, pairs, strict=True))
