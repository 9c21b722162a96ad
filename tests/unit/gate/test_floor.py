"""gate.strictness and gate.floor: every knob's order of strictness, the base side as a floor per suite and group, the
recorded policy rebuilt exactly, and what a pull request loosened."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.gate.confirm import spent
from agent_evals.gate.floor import loosenings, recorded_form, recorded_policies
from agent_evals.gate.policy import KNOB_NAMES, Knobs, Policy, resolve_policy
from agent_evals.gate.strictness import STRICTNESS, looser, stricter

# knob -> (a looser value, a stricter value): the table below must say the second is stricter
STRICTER_OF: dict[str, tuple[Any, Any]] = {
    "min_pass_rate": (0.5, 0.9),
    "max_drop": (0.2, 0.05),
    "alpha": (0.01, 0.05),  # a smaller alpha makes a drop harder to call significant: looser
    "max_error_rate": (0.2, 0.05),
    "on_missing_baseline": ("warn", "fail"),
    "on_inconclusive": ("pass", "warn"),
    "critical": ("ignore", "warn"),
    "critical_cases": (("a/*",), ("a/*", "b/1")),
    "mid_p": (False, True),
    "test": ("per_case", "stratified"),
    "on_mismatch": ("warn", "fail"),
    "max_tokens_increase": (0.5, 0.2),
    "max_cost_increase": (None, 0.2),
    "max_latency_increase": (None, 0.5),
    "on_removed_cases": ("warn", "fail"),
    "on_redefined_cases": ("warn", "fail"),
    "on_fewer_trials": ("warn", "fail"),
}


def test_strictness__every_knob_has_an_order() -> None:
    # a knob added without an order would be taken from the pull request as is
    assert set(STRICTNESS) == set(KNOB_NAMES) == set(Knobs.model_fields) == set(STRICTER_OF)


@pytest.mark.parametrize("knob", KNOB_NAMES)
def test_stricter__either_order__the_stricter_value(knob: str) -> None:
    loose, strict = STRICTER_OF[knob]
    assert stricter(knob, loose, strict) == strict
    if knob == "critical_cases":  # the union, whichever side comes first
        assert set(stricter(knob, strict, loose)) == set(strict)
    else:
        assert stricter(knob, strict, loose) == strict
    assert looser(knob, strict, loose) and not looser(knob, loose, strict)
    assert not looser(knob, strict, strict)


@pytest.mark.parametrize(
    ("knob", "a", "b", "expected"),
    [
        ("min_pass_rate", None, 0.3, 0.3),  # no floor is the loosest
        ("min_pass_rate", 0.3, None, 0.3),
        ("max_cost_increase", 0.2, None, 0.2),  # off is the loosest
        ("on_missing_baseline", "pass", "warn", "warn"),
        ("critical", "fail", "ignore", "fail"),
        ("critical_cases", ("a",), ("b",), ("a", "b")),  # globs: the union
    ],
)
def test_stricter__limits_off_and_globs(knob: str, a: Any, b: Any, expected: Any) -> None:
    assert stricter(knob, a, b) == expected


def _policy(block: dict[str, Any], suite_blocks: dict[str, Any] | None = None) -> Policy:
    from pathlib import Path
    from tempfile import TemporaryDirectory

    import yaml

    with TemporaryDirectory() as tmp:
        path = Path(tmp) / "agent-evals.yaml"
        path.write_text(yaml.safe_dump({"gate": block}))
        return resolve_policy(repo_config=path, suite_blocks=suite_blocks or {}, overrides={})


BASE = {"max_drop": 0.05, "min_pass_rate": 0.8, "overrides": {"home/doors": {"min_pass_rate": 0.95}}}


@pytest.mark.parametrize(
    ("pr", "suite", "group", "knob", "expected"),
    [
        ({"max_drop": 0.5}, "home", None, "max_drop", 0.05),  # loosened: the base value
        ({"max_drop": 0.01}, "home", None, "max_drop", 0.01),  # tightened: at once
        ({"min_pass_rate": 0.1}, "home", "doors", "min_pass_rate", 0.95),  # group floor kept
        ({"overrides": {"home/doors": {"min_pass_rate": 0.5}}}, "home", "doors", "min_pass_rate", 0.95),
        ({"overrides": {"home/lights": {"min_pass_rate": 0.99}}}, "home", "lights", "min_pass_rate", 0.99),
        ({"alpha": 0.01}, "other", None, "alpha", 0.05),
    ],
)
def test_knobs_for__floored__stricter_of_base_and_pr_per_suite_and_group(
    pr: dict[str, Any], suite: str, group: str | None, knob: str, expected: Any
) -> None:
    floored = _policy(pr).model_copy(update={"floor": _policy(BASE)})
    assert getattr(floored.knobs_for(suite, group), knob) == expected


def test_group_is_gated__floored__union_of_both_sides() -> None:
    pr = _policy({"overrides": {"home/lights": {"max_drop": 0.1}}})
    floored = pr.model_copy(update={"floor": _policy(BASE)})
    assert floored.group_is_gated("home", "doors") and floored.group_is_gated("home", "lights")
    assert not floored.group_is_gated("home", "kitchen")


@pytest.mark.parametrize("group", ["doors", "lights", "kitchen", "we[ir]d*"])
def test_recorded_form__rebuilt__same_knobs_and_gating_per_suite_and_group(group: str) -> None:
    base = _policy(
        {"max_drop": 0.1, "overrides": {"home/doors": {"min_pass_rate": 0.9}, "home/we*": {"alpha": 0.1}}},
        suite_blocks={"home": {"max_drop": 0.02, "overrides": {"lights": {"critical": "warn"}}}},
    )
    groups = ["doors", "lights", "kitchen", "we[ir]d*"]
    form = recorded_form(base, "home", groups)
    [(sid, rebuilt)] = recorded_policies([("home", form)], source="baseline record").items()
    assert sid == "home"
    assert rebuilt.knobs_for("home") == base.knobs_for("home")
    assert rebuilt.knobs_for("home", group) == base.knobs_for("home", group)
    assert rebuilt.group_is_gated("home", group) == base.group_is_gated("home", group)


@pytest.mark.parametrize(
    "data",
    [None, {}, {"knobs": {"max_drop": "x"}}, {"knobs": {"nope": 1}}, {"knobs": {}, "groups": ["doors"]}],
)
def test_recorded_policies__missing_or_unreadable__none_so_the_files_decide(data: Any) -> None:
    assert recorded_policies([("home", data)], source="baseline record") == {}


def test_loosenings__each_loosened_knob_once__tightening_not_listed() -> None:
    pr = _policy(
        {"max_drop": 0.9, "min_pass_rate": 0.99, "overrides": {"home/doors": {"min_pass_rate": 0.5}}}
    )
    floored = pr.model_copy(update={"floor": _policy(BASE)})
    found = loosenings(floored, {"home": ["doors", "kitchen"], "away": []})
    lines = [each.line("ok-label", accepted=False) for each in found]
    assert lines[0].startswith("max_drop 0.05 -> 0.9: the base value applies until a maintainer accepts")
    assert any(line.startswith("min_pass_rate 0.95 -> 0.5 in home/doors:") for line in lines)
    assert len(lines) == 2  # min_pass_rate 0.99 tightens the suites: no line


def test_spent__floored__floor_alpha_halved_too() -> None:
    floored = _policy({"alpha": 0.02}).model_copy(update={"floor": _policy({"alpha": 0.1})})
    assert floored.knobs_for("home").alpha == 0.1
    assert spent(floored).knobs_for("home").alpha == pytest.approx(0.05)
