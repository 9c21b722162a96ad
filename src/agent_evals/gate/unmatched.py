"""Case and override globs of the policy that match nothing on either side: a usage error, never a silent no-op."""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Iterable, Mapping

from agent_evals.errors import UsageError
from agent_evals.gate.picks import literal_brackets
from agent_evals.gate.policy import Policy, matches_group, matches_suite
from agent_evals.record.summary import RunSummary

CLOSEST = 3
"""Closest case ids named beside a glob that matches none."""


def _ids_and_groups(
    runs: Iterable[RunSummary],
) -> tuple[dict[str, set[str]], dict[str, dict[str, set[str]]]]:
    """Case ids per suite, and per suite and group, of the given runs together."""
    ids: dict[str, set[str]] = {}
    groups: dict[str, dict[str, set[str]]] = {}
    for run in runs:
        for suite in run.suites:
            sid = suite.header["id"]
            ids.setdefault(sid, set()).update(suite.view.cases)
            mine = groups.setdefault(sid, {})
            for group, members in suite.view.groups.items():
                mine.setdefault(group, set()).update(members)
    return ids, groups


Scope = list[tuple[str, str | None]]
"""Where a glob applies: (suite id, None) for a whole suite, (suite id, group) for one group."""


def _critical_globs(
    policy: Policy, groups: Mapping[str, Mapping[str, set[str]]]
) -> list[tuple[str, str, Scope]]:
    """(glob, where it was written, the suites or groups it applies to) of every ``critical_cases``
    glob; an override's glob applies to the suites it names or, naming none, to the groups it names."""
    out: list[tuple[str, str, Scope]] = []
    for layer in policy.layers:
        suites = [layer.suite] if layer.suite is not None else list(groups)
        whole: Scope = [(sid, None) for sid in suites]
        for glob in layer.block.critical_cases or ():
            out.append((glob, layer.source, whole))
        for pattern, block in layer.block.overrides.items():
            if not block.critical_cases:
                continue
            scope: Scope = [(sid, None) for sid in suites if matches_suite(pattern, sid)]
            if not scope:
                scope = [
                    (sid, group)
                    for sid in suites
                    for group in groups.get(sid, {})
                    if matches_group(pattern, sid, group, scoped=layer.suite is not None)
                ]
            for glob in block.critical_cases:
                out.append((glob, f"{layer.source}, override '{pattern}'", scope))
    return out


def unmatched_globs(policy: Policy, runs: Iterable[RunSummary]) -> list[str]:
    """A message for each ``critical_cases`` glob that matches no case id where it applies, and each
    override glob that matches no suite or group, of the given runs (the candidate, and its baseline
    when there is one)."""
    ids, groups = _ids_and_groups(runs)
    messages = []
    for glob, source, scope in _critical_globs(policy, groups):
        if not scope:
            continue  # its override matches no suite or group: said below
        pattern = literal_brackets(glob)
        pool = sorted(
            {
                cid
                for sid, group in scope
                for cid in (ids.get(sid, ()) if group is None else groups[sid][group])
            }
        )
        if any(fnmatch.fnmatchcase(cid, pattern) for cid in pool):
            continue
        close = difflib.get_close_matches(glob, pool, n=CLOSEST, cutoff=0.0)
        hint = f"; closest case ids: {', '.join(repr(c) for c in close)}" if close else ""
        messages.append(
            f"{source}: critical_cases glob '{glob}' matches no case of {_where(scope)} in this run or its "
            f"baseline, so it guards nothing{hint}"
        )
    messages += unmatched_overrides(policy, {sid: sorted(g) for sid, g in groups.items()})
    return messages


def _where(scope: Scope) -> str:
    if len(scope) == 1:
        sid, group = scope[0]
        return f"suite {sid}" if group is None else f"group {sid}/{group}"
    return f"the {len(scope)} suites" if scope[0][1] is None else f"the {len(scope)} groups"


def refuse_unmatched(policy: Policy, candidate: RunSummary, baseline: RunSummary | None) -> None:
    """Raise a UsageError (exit 2) naming every glob of the policy that matches nothing on either side.

    A shard holds only part of its suites' cases, and an interrupted run without a baseline may not
    have reached the cases a glob names: neither is judged here (neither can pass the gate anyway)."""
    if candidate.run.get("shard") or (baseline is None and not candidate.run.get("complete", True)):
        return
    runs = [candidate] if baseline is None else [candidate, baseline]
    messages = unmatched_globs(policy, runs)
    if messages:
        raise UsageError(
            "the policy names what is not in the run, so part of it would silently apply to nothing:\n  "
            + "\n  ".join(messages)
            + "\nFix the globs (or remove them) and compare again."
        )


def unmatched_overrides(policy: Policy, groups: Mapping[str, Iterable[str]]) -> list[str]:
    """A message for each override glob that matches no suite and no ``suite/group`` of a run.

    ``groups``: suite id -> its groups. Such a glob is usually a typo, and its stricter knobs
    would then silently not apply.
    """
    messages = []
    for layer in policy.layers:
        for pattern in layer.block.overrides:
            suites = [layer.suite] if layer.suite is not None else list(groups)
            hit = any(
                matches_suite(pattern, suite)
                or any(
                    matches_group(pattern, suite, group, scoped=layer.suite is not None)
                    for group in groups.get(suite, ())
                )
                for suite in suites
            )
            if hit:
                continue
            names = [*suites, *(f"{suite}/{group}" for suite in suites for group in groups.get(suite, ()))]
            close = difflib.get_close_matches(pattern, names, n=1, cutoff=0.5)
            mean = f"; did you mean '{close[0]}'?" if close else ""
            messages.append(
                f"{layer.source}: override '{pattern}' matches no suite or group of this run{mean}"
            )
    return messages
