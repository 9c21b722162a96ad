"""A run summary as plain lists and shared tuples, cheap to pickle across a pipe."""

from __future__ import annotations

from itertools import repeat
from operator import attrgetter
from typing import Any

from agent_evals.gate.align import CaseView, SuiteView, fraction_of
from agent_evals.gate.summary import NO_RAW, FetchCases, RunSummary, SuiteSummary
from agent_evals.gate.usage import UsageSums

Packed = tuple[dict[str, Any], list[tuple[Any, ...]]]
"""The ``run`` block and one tuple of columns per suite (see :func:`pack`)."""

_KEY = attrgetter("key")
_ID = attrgetter("id")
_GROUP = attrgetter("group")


def pack(summary: RunSummary) -> Packed:
    """The summary as plain containers for another process: column lists instead of one object per
    case, equal keys and tallies shared (pickled once each), nothing the receiver can work out."""
    packed = []
    for suite in summary.suites:
        view = suite.view
        views = list(view.cases.values())
        shared: dict[tuple[int, ...], tuple[int, ...]] = {}
        intern = shared.setdefault
        keys = list(map(intern, map(_KEY, views), map(_KEY, views)))
        scorers = {}
        for name, tallies in view.scorers.items():
            counts = list(tallies.values())
            scorers[name] = (list(tallies), list(map(intern, counts, counts)))
        u = view.usage
        packed.append(
            (
                suite.header,
                suite.trial_counts,
                list(map(_ID, views)),
                list(map(_GROUP, views)),
                keys,
                [v.id for v in views if v.critical],
                scorers,
                (u.input_tokens, u.output_tokens, u.cost_usd, u.duration_s, u.trials, u.recorded),
                view.groups,
                view.dimensions,
                view.counted,
            )
        )
    return summary.run, packed


def unpack(packed: Packed, fetch: FetchCases | None) -> RunSummary:
    """Rebuild a summary from :func:`pack`; its views hold :data:`NO_RAW` (``fetch`` supplies the rest)."""
    run, suites = packed
    out = []
    for header, trial_counts, ids, groups, keys, criticals, scorers, u, g_index, d_index, counted in suites:
        critical = set(criticals)
        fraction = {key: fraction_of(key) for key in set(keys)}
        flags = map(critical.__contains__, ids)
        views = map(CaseView, repeat(NO_RAW), ids, groups, keys, map(fraction.__getitem__, keys), flags)
        cases = dict(zip(ids, views, strict=True))
        tallies = {name: dict(zip(cids, counts, strict=True)) for name, (cids, counts) in scorers.items()}
        view = SuiteView(cases, tallies, UsageSums(*u), g_index, d_index, counted)
        out.append(SuiteSummary(header, view, trial_counts))
    return RunSummary(run, out, fetch)
