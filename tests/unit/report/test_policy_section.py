"""The policy a report prints is the one applied: per-suite settings beside the defaults, and overrides."""

from __future__ import annotations

from typing import Any

from agent_evals.gate.policy import Knobs, resolve_policy
from agent_evals.report.filters import knob_changes
from agent_evals.report.markdown import render_markdown
from agent_evals.report.terminal import render_terminal


def _policy_section(text: str) -> str:
    return text[text.index("<summary>Policy applied</summary>") : text.rindex("</details>")]


def _two_suites(build: Any, **fields: Any) -> Any:
    home = build.suite(suite_id="home", base=0.9, cand=0.9).model_copy(
        update={"policy": Knobs(min_pass_rate=0.7, max_drop=0.1)}
    )
    other = build.suite(suite_id="other", base=0.9, cand=0.9)
    return build.comparison([home, other], **fields)


def test_policy_section__suite_gate_block__is_printed_beside_the_defaults(build: Any) -> None:
    section = _policy_section(render_markdown(_two_suites(build)))
    assert "Defaults: alpha 0.05 (one-sided, Holm) · max_drop 5.0 pp · min_pass_rate none" in section
    assert "- <code>home</code>: min_pass_rate 70.0% · max_drop 10.0 pp" in section
    assert "<code>other</code>" not in section


def test_policy_section__every_suite_on_the_defaults__prints_one_line(build: Any) -> None:
    section = _policy_section(render_markdown(build.comparison([build.suite(base=0.9, cand=0.9)])))
    assert "Defaults:" not in section and "Suites whose settings differ" not in section
    assert "alpha 0.05 (one-sided, Holm)" in section


def test_policy_section__glob_overrides__are_listed_with_their_source(build: Any) -> None:
    policy = resolve_policy(
        repo_config=None,
        suite_blocks={"home": {"min_pass_rate": 0.7, "overrides": {"lights": {"max_drop": 0.1}}}},
        overrides={},
    )
    c = _two_suites(build).model_copy(update={"policy": policy})
    section = _policy_section(render_markdown(c))
    assert "- <code>home/lights</code> (suite home gate block): max_drop 10.0 pp" in section


def test_render_terminal__suite_settings__are_printed(build: Any) -> None:
    text = render_terminal(_two_suites(build), color=False)
    assert "policy of home: min_pass_rate 70.0%, max_drop 10.0 pp" in text
    assert "policy of other" not in text


def test_knob_changes__only_differing_knobs__in_report_units() -> None:
    knobs = Knobs(min_pass_rate=0.7, critical_cases=("a/*",), mid_p=True)
    assert knob_changes(knobs, Knobs()) == [
        ("min_pass_rate", "70.0%"),
        ("critical_cases", "a/*"),
        ("mid_p", "on"),
    ]
