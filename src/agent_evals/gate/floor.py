"""The base policy as a floor: the policy a run record keeps per suite, and what a pull request loosened."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from agent_evals.gate.policy import KNOB_NAMES, USAGE_KNOBS, Knobs, Layer, Policy, PolicyBlock
from agent_evals.gate.strictness import looser

# -- the policy recorded in a run record, per suite -------------------------------------------------


def recorded_form(policy: Policy, suite_id: str, groups: Iterable[str]) -> dict[str, Any]:
    """What a run record keeps of ``policy`` for one suite: its resolved knobs, and the resolved knobs of
    each of its groups an override targets (``groups``: the suite's groups in this run)."""
    form: dict[str, Any] = {"knobs": policy.knobs_for(suite_id).model_dump(mode="json")}
    gated = {
        group: policy.knobs_for(suite_id, group).model_dump(mode="json")
        for group in sorted(set(groups))
        if policy.group_is_gated(suite_id, group)
    }
    if gated:
        form["groups"] = gated
    return form


def _literal(text: str) -> str:
    """A glob matching exactly ``text``."""
    return re.sub(r"([*?\[])", r"[\1]", text)


def recorded_layer(data: Any, suite_id: str, *, source: str, scoped: bool) -> Layer | None:
    """The layer rebuilt from a suite's recorded policy (``recorded_form``), or None when there is none
    or it is not readable (the caller then falls back to the files). ``scoped``: the layer applies to
    this suite only (else it is meant for a policy asked about this suite alone)."""
    if not isinstance(data, Mapping) or not isinstance(data.get("knobs"), Mapping):
        return None
    groups = data.get("groups") or {}
    if not isinstance(groups, Mapping):
        return None
    try:
        knobs = Knobs.model_validate(dict(data["knobs"]))
        overrides = {
            _literal(f"{suite_id}/{group}"): Knobs.model_validate(dict(each)).model_dump()
            for group, each in groups.items()
        }
        block = PolicyBlock.model_validate({**knobs.model_dump(), "overrides": overrides})
    except (ValidationError, TypeError, ValueError):
        return None
    return Layer(source=source, suite=suite_id if scoped else None, block=block)


def recorded_policies(suites: Iterable[tuple[str, Any]], *, source: str) -> dict[str, Policy]:
    """Suite id -> the policy its record recorded, for each suite ``(id, recorded form)`` that has one."""
    policies = {}
    for suite_id, data in suites:
        layer = recorded_layer(data, suite_id, source=f"{source} (suite {suite_id})", scoped=False)
        if layer is not None:
            policies[suite_id] = Policy(layers=[layer])
    return policies


def gated_by_pull_request_only(policy: Policy, suite_id: str, group: str) -> bool:
    """Whether only the pull request's own policy gates the group, not its floor (the base side's): its
    test then gets a family of its own and cannot dilute the tests the base side asked for."""
    base = policy.base_for(suite_id)
    return (
        base is not None
        and not base.group_is_gated(suite_id, group)
        and policy.group_is_gated(suite_id, group)
    )


# -- what a pull request loosened -------------------------------------------------------------------


@dataclass(frozen=True)
class Loosening:
    """One knob the pull request's policy sets looser than the base side's."""

    knob: str
    base: Any
    pr: Any
    suite: str | None = None
    """None when every suite of the run has the same loosening."""
    group: str | None = None

    def line(self, label: str, *, accepted: bool) -> str:
        """The one line the reports give it."""
        scope = (
            f" in {self.suite}/{self.group}"
            if self.group
            else f" in suite {self.suite}"
            if self.suite
            else ""
        )
        change = f"{self.knob} {_shown(self.knob, self.base)} -> {_shown(self.knob, self.pr)}{scope}"
        if accepted:
            return f"{change}: accepted with the {label!r} label, the pull request's value applies."
        return (
            f"{change}: the base value applies until a maintainer accepts (the {label!r} label); "
            "the pull request loosened it."
        )


def _shown(knob: str, value: Any) -> str:
    if value is None:
        return "off" if knob in USAGE_KNOBS else "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple):
        return "[" + ", ".join(value) + "]"
    return f"{value:g}" if isinstance(value, float) else str(value)


def loosenings(policy: Policy, groups: Mapping[str, Iterable[str]]) -> list[Loosening]:
    """Each knob ``policy``'s own sources set looser than its floor, per suite and gated group of
    ``groups`` (suite id -> its groups); a loosening every suite shares is given once, unscoped."""
    own = policy.own()
    found: list[Loosening] = []
    for suite_id, suite_groups in groups.items():
        base = policy.base_for(suite_id)
        if base is None:
            continue
        b, p = base.knobs_for(suite_id), own.knobs_for(suite_id)
        at_suite = {
            k: (getattr(b, k), getattr(p, k)) for k in KNOB_NAMES if looser(k, getattr(b, k), getattr(p, k))
        }
        found += [Loosening(k, old, new, suite_id) for k, (old, new) in at_suite.items()]
        for group in sorted(set(suite_groups)):
            if not (base.group_is_gated(suite_id, group) or own.group_is_gated(suite_id, group)):
                continue
            bg, pg = base.knobs_for(suite_id, group), own.knobs_for(suite_id, group)
            for k in KNOB_NAMES:
                pair = (getattr(bg, k), getattr(pg, k))
                if looser(k, *pair) and at_suite.get(k) != pair:
                    found.append(Loosening(k, pair[0], pair[1], suite_id, group))
    return _collapse(found, len(groups))


def _collapse(found: list[Loosening], suites: int) -> list[Loosening]:
    """A suite-level loosening shared by every suite of the run (a repo config's) as one unscoped line."""
    counts: dict[tuple[str, str, str], int] = {}
    for each in found:
        if each.group is None:
            key = (each.knob, repr(each.base), repr(each.pr))
            counts[key] = counts.get(key, 0) + 1
    shared = {key for key, n in counts.items() if n == suites}
    result: list[Loosening] = []
    said: set[tuple[str, str, str]] = set()
    for each in found:
        key = (each.knob, repr(each.base), repr(each.pr))
        if each.group is None and key in shared:
            if key not in said:
                said.add(key)
                result.append(Loosening(each.knob, each.base, each.pr))
            continue
        result.append(each)
    return result
