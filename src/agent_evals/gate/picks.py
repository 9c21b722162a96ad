"""Classify every case of a suite and pick the ones that get a per-case diff."""

from __future__ import annotations

import fnmatch
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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

    @property
    def knobs(self) -> Knobs:
        """The knobs of the suite as a whole."""
        return self.resolved.knobs


def literal_brackets(glob: str) -> str:
    """A glob for ``fnmatch`` with its brackets literal (``*`` and ``?`` stay wildcards): eval case ids
    hold them (``eval_x.py::test_refund[big]``), so a critical glob naming such an id matches it,
    as ``--filter`` does, instead of reading ``[big]`` as one of three letters."""
    return glob.replace("[", "\0").replace("]", "[]]").replace("\0", "[[]")


def _mark_critical(view: SuiteView, globs: Sequence[str]) -> SuiteView:
    """Flag the cases the policy's critical globs name (a summary has only the recorded flags)."""
    if globs:
        patterns = [literal_brackets(g) for g in globs]
        for case in view.cases.values():
            if not case.critical:
                case.critical = any(fnmatch.fnmatchcase(case.id, g) for g in patterns)
    return view


def _baseline_globs(base_suite: SuiteSummary, knobs: Knobs) -> tuple[str, ...]:
    """The critical globs of the baseline side: the policy's, and those of the baseline's own ``gate:``
    block (checked when that run loaded it). A change that drops a glob from the suite's block, or
    deletes the suite, in the change that breaks the case must not un-mark it."""
    block = base_suite.header.get("gate")
    own = block.get("critical_cases") if isinstance(block, Mapping) else None
    if not isinstance(own, (list, tuple)):
        return knobs.critical_cases
    return (*knobs.critical_cases, *(g for g in own if isinstance(g, str)))


def passing_critical(base_suite: SuiteSummary, knobs: Knobs) -> list[str]:
    """Case ids of a baseline suite that are critical (recorded, or by the policy's globs or the
    baseline's own block) and passed every trial: what a candidate without that suite drops unguarded."""
    view = _mark_critical(base_suite.view, _baseline_globs(base_suite, knobs))
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
    cand_view = _mark_critical(suite.view, knobs.critical_cases)
    base_view = (
        _mark_critical(base_suite.view, _baseline_globs(base_suite, knobs))
        if base_suite is not None
        else None
    )
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
    return Pick(suite, sid, resolved, cand_view, base_view, picked, gone, counts, same_ids, pairs, replaced)


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
