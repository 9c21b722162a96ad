"""The gate's power model, its MDE, what a small suite cannot detect, and settle hints that can be reached."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import pytest

from agent_evals.gate.compare import compare_documents
from agent_evals.gate.model import Comparison
from agent_evals.gate.paired import delta_stat, power_types, reachable, settle_hint
from agent_evals.gate.policy import resolve_policy
from agent_evals.report.html import render_html
from agent_evals.report.markdown import render_markdown
from agent_evals.report.terminal import render_terminal
from agent_evals.report.verdict_json import render_json
from agent_evals.stats import power


def compare(base: dict[str, Any], cand: dict[str, Any], **flags: Any) -> Comparison:
    return compare_documents(base, cand, resolve_policy(repo_config=None, suite_blocks={}, overrides=flags))


def exact_k1_power(n: int, r: float, need: int) -> float:
    """n always-passing cases, one trial: the gate fails when at least ``need`` of them flip."""
    return 1.0 - sum(math.comb(n, b) * r**b * (1 - r) ** (n - b) for b in range(need))


@pytest.mark.parametrize("r", [0.2, 0.25, 0.31, 0.36])
def test_power__one_trial_deterministic_suite_matches_the_exact_binomial(r: float) -> None:
    model = power.power({(1, 1, 1.0): 20}, r, alpha=0.05, max_drop=0.05)
    assert model == pytest.approx(exact_k1_power(20, r, 5), abs=0.03)


@pytest.mark.parametrize(
    ("alpha", "kb", "kc", "flips"),
    [(0.05, 1, 1, 5), (0.05, 3, 3, 2), (0.05, 5, 5, 1), (0.01, 1, 1, 7), (0.05, 2, 2, 2), (0.001, 3, 3, 3)],
)
def test_min_flips__fewest_all_pass_to_all_fail_cases_that_reach_alpha(
    alpha: float, kb: int, kc: int, flips: int
) -> None:
    assert power.min_flips(alpha, kb, kc) == flips
    single = 1 / math.comb(kb + kc, kc)
    assert single**flips < alpha <= single ** (flips - 1)


@pytest.mark.parametrize("max_drop", [0.0, 0.05])
def test_mde__never_zero_for_a_suite_that_showed_no_change(max_drop: float) -> None:
    stat = delta_stat(Counter({(3, 3, 3, 3): 200}), alpha=0.05, max_drop=max_drop)
    assert stat.mde is not None and stat.mde > 0.01


@pytest.mark.parametrize(("n", "k", "can_fail"), [(4, 1, False), (5, 1, True), (1, 3, False), (2, 3, True)])
def test_reachable__small_suites_say_they_cannot_fail(n: int, k: int, can_fail: bool) -> None:
    pairs = Counter({(k, k, k, k): n})
    ok, need = reachable(pairs, alpha=0.05, max_drop=0.05)
    assert ok is can_fail
    assert need == power.min_flips(0.05, k, k)


def test_compare__four_case_suite__every_report_says_it_cannot_fail_and_how_to_fix_it(record) -> None:
    base = record({"home": {f"g/c{i}": "P" for i in range(4)}})
    result = compare(base, base)
    stat = result.suites[0].delta
    assert stat is not None and not stat.can_fail and stat.mde is None
    for text in (
        " ".join(render_terminal(result).split()),
        render_markdown(result),
        render_html(result),
        render_json(result),
    ):
        assert "cannot fail" in text and "needs at least 5 discordant cases" in text
        assert "--history" in text


def test_settle_hint__names_only_sizes_at_which_the_gate_can_catch_the_drop() -> None:
    pairs = Counter({(1, 1, 1, 0): 2, (1, 1, 1, 1): 18})  # a 10-point drop of 20 one-trial cases
    stat = delta_stat(pairs, alpha=0.05, max_drop=0.05)
    hint = settle_hint(pairs, stat, alpha=0.05, max_drop=0.05)
    assert hint.cases_needed is not None and hint.cases_needed > 20
    scale = hint.cases_needed / 20
    bigger = Counter({key: round(c * scale) for key, c in pairs.items()})
    assert reachable(bigger, alpha=0.05, max_drop=0.05)[0]
    r = 0.1 / power.mean_probability(power_types(pairs))
    assert power.power(power_types(bigger), r, alpha=0.05, max_drop=0.05) >= 0.8
    assert str(hint.cases_needed) in hint.message


def test_settle_hint__a_drop_no_size_can_catch_says_so() -> None:
    pairs = Counter(
        {(1, 1, 1, 0): 1, (1, 0, 1, 0): 1}
    )  # mean pass probability 0.25: a 50-point drop is out of reach
    stat = delta_stat(pairs, alpha=0.05, max_drop=0.5)
    hint = settle_hint(pairs, stat, alpha=0.05, max_drop=0.5)
    assert hint.cases_needed is None and hint.trials_needed is None
    assert "No suite size" in hint.message
