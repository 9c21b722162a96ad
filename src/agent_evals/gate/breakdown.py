"""Breakdown rows of a suite: per group (capability/dataset), per scorer and per dimension value."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from operator import attrgetter, itemgetter
from typing import Any

from agent_evals.gate.model import DeltaStat, GroupRow, RateSummary, RowKind
from agent_evals.gate.paired import (
    EPS,
    Key,
    delta_stat,
    pairs_of_counts,
    rate_summary_of_counts,
)
from agent_evals.gate.policy import Knobs
from agent_evals.record.usage_totals import construct
from agent_evals.record.views import CaseView, SuiteView
from agent_evals.stats.exact import benjamini_hochberg

Views = Mapping[str, CaseView]

_VIEW_KEY = attrgetter("key")
_VIEW_GROUP = attrgetter("group")
_FIRST = itemgetter(0)
_SECOND = itemgetter(1)


def side_counts(view: SuiteView, kind: str, name: str = "") -> Counter[Any]:
    """One side's counts, worked out once and kept on the view (a caller can work them out ahead,
    e.g. while waiting for the other side): ``kind='cases'`` counts the cases by (group, key);
    ``'group'`` and ``'dimension'`` count by key the cases of the group or ``name=value`` named;
    ``'scorer'`` counts the named scorer's tallies by (trials, passes, errors). In case order."""
    found = view.counted.get((kind, name))
    if found is None:
        cases = view.cases
        if kind == "cases":
            found = Counter(
                zip(map(_VIEW_GROUP, cases.values()), map(_VIEW_KEY, cases.values()), strict=True)
            )
        elif kind == "scorer":
            found = Counter(view.scorers.get(name, {}).values())
        else:
            index = view.groups if kind == "group" else view.dimensions
            found = Counter(map(_VIEW_KEY, map(cases.__getitem__, index.get(name, []))))
        view.counted[(kind, name)] = found
    return found


def marginals(sides: Mapping[tuple[Key, Key], int]) -> tuple[Counter[Key], Counter[Key]]:
    """The baseline keys and the candidate keys of cases counted by their two keys, each counted in
    the order it first appears: what counting each side's keys over the same cases gives."""
    b_keys: Counter[Key] = Counter()
    c_keys: Counter[Key] = Counter()
    for (bk, ck), n in sides.items():
        b_keys[bk] += n
        c_keys[ck] += n
    return b_keys, c_keys


def rows_by_cases(
    kind: RowKind,
    base: SuiteView | None,
    cand: SuiteView,
    knobs_for: Callable[[str], Knobs],
    pairs: Mapping[str, tuple[Key, Key]] | None = None,
) -> list[GroupRow]:
    """One row per group (``kind='group'``) or dimension value (``kind='dimension'``).

    ``pairs``: case id -> (baseline key, candidate key) for every case, when both sides have the
    same case ids (pairs the cases with one lookup each)."""
    b_index = (base.groups if kind == "group" else base.dimensions) if base is not None else {}
    c_index = cand.groups if kind == "group" else cand.dimensions
    b_cases, c_cases = (base.cases if base is not None else {}), cand.cases
    rows = []
    for key in sorted(set(b_index) | set(c_index)):
        c_ids = c_index.get(key, [])
        # map() keeps the per-case lookups in C: a large suite has 100,000s of cases per row kind
        if pairs is not None and base is not None:
            # every case is on both sides: both sides' counts follow from the paired ones, the
            # baseline's too when it lists the same cases under this key, in the same order
            sides: Counter[tuple[Key, Key]] = Counter(map(pairs.__getitem__, c_ids))
            from_pairs, c_keys = marginals(sides)
            b_keys = from_pairs if b_index.get(key, []) == c_ids else side_counts(base, kind, key)
        else:
            sides = _paired(b_cases, c_ids, list(map(_VIEW_KEY, map(c_cases.__getitem__, c_ids))))
            b_keys = side_counts(base, kind, key) if base is not None else Counter()
            c_keys = side_counts(cand, kind, key)
        row = _row(kind, key, base is not None, b_keys, c_keys, sides, knobs_for(key))
        if kind == "dimension":
            row.dimension, _, row.value = key.partition("=")
        rows.append(row)
    return rows


@dataclass
class CaseCounts:
    """A suite's cases counted by trial-count key, per group: what group rows and the suite's own
    rates and pairs are computed from (a large suite has 100,000s of cases but few distinct keys)."""

    base: Counter[tuple[str, Key]]
    """Baseline cases by (group, key), in the baseline's case order of first appearance."""
    cand: Counter[tuple[str, Key]]
    """Candidate cases by (group, key)."""
    paired: Counter[tuple[str, Key, Key]]
    """Cases on both sides by (candidate group, baseline key, candidate key), in candidate order."""

    def totals(
        self,
    ) -> tuple[Counter[Key], Counter[Key], Counter[Key], Counter[Key], Counter[tuple[Key, Key]]]:
        """Over every group: baseline keys, candidate keys, paired baseline keys, paired candidate keys,
        paired (baseline, candidate) keys; each in the order the keys first appear among the cases."""
        b_keys: Counter[Key] = Counter()
        c_keys: Counter[Key] = Counter()
        pb_keys: Counter[Key] = Counter()
        pc_keys: Counter[Key] = Counter()
        sides: Counter[tuple[Key, Key]] = Counter()
        for (_, k), n in self.base.items():
            b_keys[k] += n
        for (_, k), n in self.cand.items():
            c_keys[k] += n
        for (_, bk, ck), n in self.paired.items():
            pb_keys[bk] += n
            pc_keys[ck] += n
            sides[(bk, ck)] += n
        return b_keys, c_keys, pb_keys, pc_keys, sides

    def group_sides(self, group: str) -> Counter[tuple[Key, Key]]:
        """Paired (baseline, candidate) keys of one group's cases."""
        sides: Counter[tuple[Key, Key]] = Counter()
        for (g, bk, ck), n in self.paired.items():
            if g == group:
                sides[(bk, ck)] += n
        return sides


def count_cases(
    base: SuiteView | None, cand: SuiteView, pairs: Mapping[str, tuple[Key, Key]] | None = None
) -> CaseCounts:
    """Count a suite's cases by (group, key) on each side and paired cases by (group, keys): one pass
    each. ``pairs``: as for :func:`rows_by_cases` (the paired count then needs no lookups)."""
    c_views = list(cand.cases.values())
    c_groups = list(map(_VIEW_GROUP, c_views))
    b_counts: Counter[tuple[str, Key]] = Counter()
    s_counts: Counter[tuple[str, Key, Key]] = Counter()
    if base is not None and pairs is not None:
        b_counts = side_counts(base, "cases")
        both = pairs.values()
        s_counts = Counter(zip(c_groups, map(_FIRST, both), map(_SECOND, both), strict=True))
        c_counts: Counter[tuple[str, Key]] = Counter()  # every case is paired: they follow from the pairs
        for (group, _, ck), n in s_counts.items():
            c_counts[(group, ck)] += n
        return CaseCounts(b_counts, c_counts, s_counts)
    c_counts = side_counts(cand, "cases")
    if base is not None:
        b_counts = side_counts(base, "cases")
        c_keys = list(map(_VIEW_KEY, c_views))
        try:  # usually every case is on both sides: then the lookups stay in C
            b_keys = map(_VIEW_KEY, map(base.cases.__getitem__, cand.cases))
            s_counts = Counter(zip(c_groups, b_keys, c_keys, strict=True))
        except KeyError:
            s_counts = Counter(
                (c.group, b.key, c.key)
                for b, c in zip(map(base.cases.get, cand.cases), c_views, strict=True)
                if b is not None
            )
    return CaseCounts(b_counts, c_counts, s_counts)


def rows_by_group(
    base: SuiteView | None,
    cand: SuiteView,
    knobs_for: Callable[[str], Knobs],
    counts: CaseCounts | None = None,
) -> list[GroupRow]:
    """One row per group, as ``rows_by_cases('group', ...)`` gives them, from the cases counted by
    :func:`count_cases` (``counts``, counted here when not given)."""
    if counts is None:
        counts = count_cases(base, cand)
    by_group: dict[str, tuple[dict[Key, int], dict[Key, int], dict[tuple[Key, Key], int]]] = {}
    for key in sorted({g for g, _ in counts.base} | {g for g, _ in counts.cand}):
        by_group[key] = ({}, {}, {})
    for (g, k), n in counts.base.items():
        by_group[g][0][k] = n
    for (g, k), n in counts.cand.items():
        by_group[g][1][k] = n
    for (g, bk, ck), n in counts.paired.items():
        by_group[g][2][(bk, ck)] = n
    rows = []
    for key, (b, c, sides) in by_group.items():
        rows.append(_row("group", key, base is not None, b, c, sides, knobs_for(key)))
    return rows


def scorer_rows(base: SuiteView | None, cand: SuiteView, knobs: Knobs) -> list[GroupRow]:
    """One row per scorer: the share of trials each scorer passed, paired by case."""
    b_all = base.scorers if base is not None else {}
    rows = []
    for name in sorted(set(b_all) | set(cand.scorers)):
        b, c = b_all.get(name, {}), cand.scorers.get(name, {})
        # tallies counted as tuples with map(): the per-case work stays in C (100,000s of cases)
        c_list = list(c.values())
        b_keys: Counter[Key] = side_counts(base, "scorer", name) if base is not None else Counter()
        try:  # usually every case is on both sides
            sides = Counter(zip(map(b.__getitem__, c), c_list, strict=True))
        except KeyError:
            sides = Counter((b[i], k) for i, k in zip(c, c_list, strict=True) if i in b)
            c_keys = side_counts(cand, "scorer", name)
        else:  # then the candidate's counts follow from the paired ones
            c_keys = marginals(sides)[1]
        rows.append(_row("scorer", name, base is not None, b_keys, c_keys, sides, knobs))
    return rows


def _paired(b_cases: Views, c_ids: Iterable[str], c_keys: list[Key]) -> Counter[tuple[Key, Key]]:
    """Cases of ``c_ids`` (with keys ``c_keys``) that the baseline has too, counted by their two keys."""
    try:  # usually every case is on both sides: then the lookups stay in C
        return Counter(zip(map(_VIEW_KEY, map(b_cases.__getitem__, c_ids)), c_keys, strict=True))
    except KeyError:
        return Counter(
            (b.key, c) for b, c in zip(map(b_cases.get, c_ids), c_keys, strict=True) if b is not None
        )


def _row(
    kind: RowKind,
    key: str,
    has_baseline: bool,
    b_keys: Mapping[Key, int],
    c_keys: Mapping[Key, int],
    sides: Mapping[tuple[Key, Key], int],
    knobs: Knobs,
) -> GroupRow:
    stat = None
    if has_baseline:
        stat = delta_stat(
            pairs_of_counts(sides),
            alpha=knobs.alpha,
            max_drop=knobs.max_drop,
            mid_p=knobs.mid_p,
            test=knobs.test,
        )
    return _new_row(
        kind,
        key,
        rate_summary_of_counts(b_keys) if b_keys else None,
        rate_summary_of_counts(c_keys) if c_keys else None,
        stat,
    )


def _new_row(
    kind: RowKind, key: str, base: RateSummary | None, cand: RateSummary | None, stat: DeltaStat | None
) -> GroupRow:
    return construct(
        GroupRow,
        kind=kind,
        key=key,
        dimension=None,
        value=None,
        baseline=base,
        candidate=cand,
        delta=stat,
        status="ok",
        gated=False,
        verdict=None,
        bh_flag=False,
        reasons=[],
    )


def flag_rows(rows: list[GroupRow], knobs_for: Callable[[GroupRow], Knobs]) -> None:
    """Set Benjamini-Hochberg q-values and status flags of informational (non-gated) rows in place."""
    tested = [r for r in rows if not r.gated and r.delta is not None and r.delta.p_value is not None]
    qs = benjamini_hochberg([r.delta.p_value for r in tested if r.delta and r.delta.p_value is not None])
    for row, q in zip(tested, qs, strict=True):
        if row.delta is not None and row.delta.delta is not None:
            row.delta.p_adjusted = q
            row.bh_flag = q < knobs_for(row).alpha and row.delta.delta < -EPS
    for row in rows:
        if not row.gated:
            row.status = _status(row, knobs_for(row))


def _status(row: GroupRow, knobs: Knobs) -> Any:
    cand = row.candidate
    if cand is None:
        return "removed"
    if knobs.min_pass_rate is not None and cand.rate is not None and cand.rate < knobs.min_pass_rate - EPS:
        return "below-floor"
    if row.delta is None:
        return "no-baseline"
    if row.baseline is None:
        return "new"
    delta = row.delta.delta
    if delta is None:
        return "ok"
    if delta <= -knobs.max_drop + EPS and delta < 0:
        return "regressed" if row.bh_flag else "inconclusive"
    if delta >= knobs.max_drop - EPS and delta > 0:
        return "improved"
    return "ok"
