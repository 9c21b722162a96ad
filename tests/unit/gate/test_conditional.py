"""The case-stratified exact conditional test: known values, brute force, McNemar at one trial, the verdicts."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest

from agent_evals.gate.compare import compare_documents
from agent_evals.gate.model import Comparison
from agent_evals.gate.policy import resolve_policy
from agent_evals.stats import conditional
from agent_evals.stats import exact as stats

PairKey = tuple[int, int, int, int]


def brute_force_p(pairs: dict[PairKey, int]) -> float:
    """P(sum of d <= observed) when each case's passes are spread over its trials in every way alike."""
    cases = [key for key, m in pairs.items() for _ in range(m)]
    observed = sum(Fraction(pc, nc) - Fraction(pb, nb) for nb, pb, nc, pc in cases)
    per_case = []
    for nb, pb, nc, pc in cases:
        n, t = nb + nc, pb + pc
        outcomes = []
        for slots in itertools.combinations(range(n), t):
            xc = sum(1 for s in slots if s >= nb)
            outcomes.append(Fraction(xc, nc) - Fraction(t - xc, nb))
        per_case.append(outcomes)
    hits = total = 0
    for combo in itertools.product(*per_case):
        total += 1
        hits += sum(combo) <= observed
    return hits / total


@pytest.mark.parametrize(
    "pairs",
    [
        {(3, 3, 3, 0): 2, (3, 3, 3, 3): 5},
        {(3, 2, 3, 1): 2, (3, 1, 3, 1): 1, (3, 3, 3, 2): 1},
        {(2, 2, 3, 1): 1, (3, 1, 3, 2): 2, (3, 3, 2, 0): 1},  # unequal trials (errored ones left out)
        {(1, 1, 1, 0): 3, (1, 0, 1, 1): 1},
        {(5, 4, 5, 2): 1, (5, 5, 5, 5): 3, (5, 2, 5, 3): 1},
    ],
)
def test_drop_p__equals_brute_force_over_every_relabelling(pairs: dict[PairKey, int]) -> None:
    result = conditional.drop_p(Counter(pairs))
    assert result.exact
    assert result.p_value == pytest.approx(brute_force_p(pairs), rel=1e-12)


@pytest.mark.parametrize(
    ("pairs", "expected"),
    [
        ({(3, 3, 3, 0): 4, (3, 3, 3, 3): 10}, (1 / 20) ** 4),  # 4 deterministic flips, k = 3
        ({(3, 3, 3, 0): 1}, 1 / 20),  # one flip: C(6, 3) = 20 ways, one as low
        ({(5, 5, 5, 0): 2, (5, 5, 5, 5): 12}, (1 / 252) ** 2),  # 2 flips of 14 at k = 5
        ({(3, 3, 3, 3): 10, (3, 0, 3, 0): 4}, 1.0),  # nothing informative
        ({(3, 0, 3, 3): 1}, 1.0),  # an improvement
    ],
)
def test_drop_p__known_values(pairs: dict[PairKey, int], expected: float) -> None:
    assert conditional.drop_p(Counter(pairs)).p_value == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("b", "c"), [(8, 2), (5, 0), (0, 5), (3, 3), (12, 7), (1, 0)])
@pytest.mark.parametrize("mid_p", [False, True])
def test_drop_p__one_trial_per_case_is_exact_mcnemar(b: int, c: int, mid_p: bool) -> None:
    pairs = Counter({(1, 1, 1, 0): b, (1, 0, 1, 1): c, (1, 1, 1, 1): 7})
    assert conditional.drop_p(pairs, mid_p=mid_p).p_value == pytest.approx(
        stats.mcnemar_drop_p(b, c, mid_p=mid_p), rel=1e-12
    )


def test_drop_p__normal_approximation_is_close_to_exact_on_a_large_suite(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pairs = Counter({(3, 3, 3, 2): 30, (3, 2, 3, 2): 40, (3, 1, 3, 2): 30, (3, 2, 3, 1): 25, (3, 1, 3, 0): 5})
    exact = conditional.drop_p(pairs)
    monkeypatch.setattr(conditional, "EXACT_MAX_WORK", 0)
    approx = conditional.drop_p(pairs)
    assert exact.exact and not approx.exact
    assert 0.001 < exact.p_value < 0.2
    assert approx.p_value == pytest.approx(exact.p_value, rel=0.1)


def test_hypergeom_pmf__sums_to_one_and_has_the_hand_values() -> None:
    lo, pmf = conditional.hypergeom_pmf(3, 3, 3)
    assert lo == 0 and pmf == pytest.approx((1 / 20, 9 / 20, 9 / 20, 1 / 20))
    for n_b, n_c, t in [(5, 3, 4), (1, 7, 2), (10, 10, 13)]:
        assert math.fsum(conditional.hypergeom_pmf(n_b, n_c, t)[1]) == pytest.approx(1.0)


# -- the verdicts the test gives ------------------------------------------------------------------


def compare(base: dict[str, Any], cand: dict[str, Any], **flags: Any) -> Comparison:
    return compare_documents(base, cand, resolve_policy(repo_config=None, suite_blocks={}, overrides=flags))


@pytest.mark.parametrize(
    ("k", "flips", "n", "verdict"),
    [
        (3, 4, 14, "failed"),  # the false green: 3/3 -> 0/3 in 4 of 14 cases
        (3, 2, 14, "failed"),
        (5, 2, 14, "failed"),
        (3, 1, 14, "inconclusive"),  # p = 1/20 is not below 0.05
        (1, 4, 14, "inconclusive"),  # one trial: McNemar needs 5 discordant cases
        (1, 5, 20, "failed"),
    ],
)
def test_compare__deterministic_flips_use_the_trials(
    record, k: int, flips: int, n: int, verdict: str
) -> None:
    base = record({"home": {f"g/c{i}": "P" * k for i in range(n)}})
    cand = record({"home": {f"g/c{i}": ("F" if i < flips else "P") * k for i in range(n)}})
    result = compare(base, cand)
    assert result.verdict == verdict
    assert result.suites[0].delta is not None
    assert result.suites[0].delta.test == ("mcnemar" if k == 1 else "stratified-exact")


def test_compare__per_case_test_is_the_named_option_and_keeps_the_old_answer(record) -> None:
    base = record({"home": {f"g/c{i}": "PPP" for i in range(14)}})
    cand = record({"home": {f"g/c{i}": "FFF" if i < 4 else "PPP" for i in range(14)}})
    result = compare(base, cand, test="per_case")
    suite = result.suites[0]
    assert suite.delta is not None and suite.delta.test == "sign-flip"
    assert suite.delta.p_value == pytest.approx(1 / 16)
    assert result.verdict == "inconclusive"


def test_compare__flaky_cases_that_did_not_change_pass(record) -> None:
    base = record({"home": {f"g/c{i}": "PFP" if i % 2 else "FPF" for i in range(20)}})
    cand = record({"home": {f"g/c{i}": "FPF" if i % 2 else "PFP" for i in range(20)}})
    result = compare(base, cand)
    assert result.verdict == "passed"
    assert result.suites[0].delta is not None and result.suites[0].delta.p_value is not None
    assert result.suites[0].delta.p_value > 0.3


@pytest.mark.parametrize(
    ("test", "phrase"),
    [("stratified", "trials of a case are taken as independent draws"), ("per_case", "test per_case")],
)
def test_reports__policy_block_states_the_tests_assumption_in_every_format(
    record, test: str, phrase: str
) -> None:
    from agent_evals.report.html import render_html
    from agent_evals.report.markdown import render_markdown
    from agent_evals.report.terminal import render_terminal
    from agent_evals.report.verdict_json import verdict_document

    base = record({"home": {f"g/c{i}": "PPP" for i in range(14)}})
    result = compare(base, base, test=test)
    assert phrase in render_terminal(result)
    assert phrase in render_markdown(result)
    assert phrase in render_html(result)
    assert phrase in verdict_document(result)["test_assumption"]
