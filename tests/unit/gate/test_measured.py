"""What is measured cannot be changed to hide a drop: renamed, replaced and removed cases, fewer trials, globs."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import pytest

from agent_evals.errors import UsageError
from agent_evals.gate.compare import compare_documents
from agent_evals.gate.model import Comparison
from agent_evals.gate.policy import resolve_policy
from agent_evals.gate.renamed import EXACT_WORK, drop_p
from agent_evals.report.headline import headline


def compare(base: dict[str, Any], cand: dict[str, Any], **flags: Any) -> Comparison:
    return compare_documents(base, cand, resolve_policy(repo_config=None, suite_blocks={}, overrides=flags))


def blocking(result: Comparison) -> list[str]:
    return [r.kind for r in result.reasons if r.blocking]


# -- the unpaired exact test --------------------------------------------------------------------------


def brute_force(before: list[Fraction], after: list[Fraction]) -> float:
    """P(sum of a random group of len(after) of the pooled values <= the observed sum), by enumeration."""
    pooled = before + after
    observed = sum(after)
    splits = list(itertools.combinations(range(len(pooled)), len(after)))
    return sum(1 for idx in splits if sum(pooled[i] for i in idx) <= observed) / len(splits)


F = Fraction


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        # one trial per case: Fisher's exact test, one-sided (values from scipy.stats.fisher_exact)
        ([1] * 10, [1] * 5 + [0] * 5, 3003 / 184756),  # [[10, 0], [5, 5]]: 0.016254
        ([1] * 4, [0] * 4, 1 / 70),  # all pass -> all fail, 4 and 4: 1 / C(8, 4)
        ([1] * 3 + [0] * 2, [1] * 2 + [0] * 3, 0.5),  # [[3, 2], [2, 3]]
        ([0] * 5, [1] * 5, 1.0),  # a rise is never a drop
        ([1] * 5, [1] * 5, 1.0),  # nothing differs
    ],
)
def test_drop_p__one_trial_per_case__fishers_exact_test(
    before: list[int], after: list[int], expected: float
) -> None:
    p, floor, method = drop_p([F(v) for v in before], [F(v) for v in after])
    assert method == "permutation-exact"
    assert p == pytest.approx(expected, rel=1e-12)
    assert floor <= p


def test_drop_p__one_trial_per_case__agrees_with_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    for b_pass, b_fail, a_pass, a_fail in [(10, 0, 5, 5), (7, 3, 2, 8), (20, 5, 12, 13), (3, 1, 3, 1)]:
        p, _, _ = drop_p([F(1)] * b_pass + [F(0)] * b_fail, [F(1)] * a_pass + [F(0)] * a_fail)
        _, expected = stats.fisher_exact([[b_pass, b_fail], [a_pass, a_fail]], alternative="greater")
        assert p == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ([F(3, 3), F(2, 3), F(3, 3), F(1, 3)], [F(0, 3), F(1, 3), F(2, 3)]),
        ([F(1), F(1, 2), F(2, 3)], [F(0), F(1, 3), F(1, 2), F(1)]),  # mixed trial counts
        ([F(1)] * 6 + [F(2, 3)] * 2, [F(1, 3)] * 3 + [F(1)]),
    ],
)
def test_drop_p__several_trials__the_exact_permutation_distribution(
    before: list[Fraction], after: list[Fraction]
) -> None:
    p, floor, _ = drop_p(before, after)
    assert p == pytest.approx(brute_force(before, after), rel=1e-12)
    pooled = sorted(before + after)  # the floor: the added group holding the lowest values
    lowest, rest = pooled[: len(after)], pooled[len(after) :]
    assert floor == pytest.approx(brute_force(rest, lowest), rel=1e-12)


def test_drop_p__floor__the_most_extreme_split() -> None:
    # 4 passing cases renamed into 4 failing ones: nothing more extreme, so p is its own floor
    p, floor, _ = drop_p([F(1)] * 4, [F(0)] * 4)
    assert p == floor == pytest.approx(1 / math.comb(8, 4))
    # two cases each side cannot reach 0.05 whatever happens: kept out of the Holm family
    assert drop_p([F(1)] * 2, [F(0)] * 2)[1] == pytest.approx(1 / 6)


def test_drop_p__hundreds_of_cases__normal_approximation_close_to_fisher() -> None:
    stats = pytest.importorskip("scipy.stats")
    before = [F(1)] * 900 + [F(0)] * 100
    after = [F(1)] * 850 + [F(0)] * 150
    p, _, method = drop_p(before, after)
    assert method == "permutation-normal"  # beyond EXACT_WORK
    _, expected = stats.fisher_exact([[900, 100], [850, 150]], alternative="greater")
    assert p == pytest.approx(expected, rel=0.1)
    assert EXACT_WORK > 0


# -- the rules through compare ------------------------------------------------------------------------


def passing(prefix: str, n: int, codes: str = "P") -> dict[str, str]:
    return {f"g/{prefix}{i}": codes for i in range(n)}


@pytest.mark.parametrize(
    ("base", "cand", "flags", "exit_code", "kinds"),
    [
        # every case of the suite renamed, same results: still a failure (nothing could be compared)
        ({"home": passing("c", 20)}, {"home": passing("r", 20)}, {}, 1, ["replaced"]),
        # every suite renamed: the run shares nothing with its baseline
        ({"home": passing("c", 20)}, {"away": passing("c", 20)}, {}, 1, ["replaced"]),
        # the failing cases renamed: 100% -> 50%
        (
            {"home": passing("c", 20)},
            {"home": {**passing("c", 10), **passing("n", 10, "F")}},
            {},
            1,
            ["renamed"],
        ),
        # a suite renamed and its cases broken
        (
            {"home": passing("c", 20), "keep": passing("k", 5)},
            {"away": passing("c", 20, "F"), "keep": passing("k", 5)},
            {},
            1,
            ["renamed"],
        ),
        # the failing cases moved into a new suite, or into one that only gained cases: tested as renamed
        (
            {"home": passing("c", 20)},
            {"home": passing("c", 10), "away": {f"g/c{i}": "F" for i in range(10, 20)}},
            {},
            1,
            ["renamed"],
        ),
        (
            {"home": passing("c", 20), "keep": passing("k", 5)},
            {"home": passing("c", 10), "keep": passing("k", 5) | {f"g/c{i}": "F" for i in range(10, 20)}},
            {},
            1,
            ["renamed"],
        ),
        # ... also when either suite adds or removes an unrelated case beside them (no suite's own test
        # may take the moved cases: there they meet nothing)
        (
            {"A": passing("a", 20) | passing("x", 8), "B": passing("b", 20)},
            {"A": passing("a", 20) | passing("new", 1), "B": passing("b", 20) | passing("y", 8, "F")},
            {},
            1,
            ["renamed"],
        ),
        (
            {"A": passing("a", 20) | passing("x", 8), "B": passing("b", 20)},
            {"A": passing("a", 20), "B": passing("b", 19) | passing("y", 8, "F")},
            {},
            1,
            ["renamed"],
        ),
        # moved with their results: passes (a warning names the removed cases)
        (
            {"home": passing("c", 20), "keep": passing("k", 5)},
            {"home": passing("c", 10), "keep": passing("k", 5) | {f"g/c{i}": "P" for i in range(10, 20)}},
            {},
            0,
            [],
        ),
        # renamed with no real change: passes (a warning names the removed cases)
        ({"home": passing("c", 20)}, {"home": {**passing("c", 10), **passing("n", 10)}}, {}, 0, []),
        # only cases added, failing ones: reported, not gated
        ({"home": passing("c", 20)}, {"home": {**passing("c", 20), **passing("n", 10, "F")}}, {}, 0, []),
        # the failing cases dropped: a warning by default, a failure when the policy says so
        ({"home": passing("c", 20)}, {"home": passing("c", 10)}, {}, 0, []),
        (
            {"home": passing("c", 20)},
            {"home": passing("c", 10)},
            {"on_removed_cases": "fail"},
            1,
            ["removed-cases"],
        ),
        # a whole suite dropped: likewise
        ({"home": passing("c", 20), "x": passing("x", 3)}, {"home": passing("c", 20)}, {}, 0, []),
        (
            {"home": passing("c", 20), "x": passing("x", 3)},
            {"home": passing("c", 20)},
            {"on_removed_cases": "fail"},
            1,
            ["removed-suite"],
        ),
        # a suite kept in the record without cases ran nothing: removed, as if it were left out
        (
            {"home": passing("c", 20), "x": passing("x", 3)},
            {"home": passing("c", 20), "x": {}},
            {"on_removed_cases": "fail"},
            1,
            ["removed-suite"],
        ),
        # fewer trials: fails by default, before on_mismatch (warn) would let it pass
        ({"home": passing("c", 20, "PPP")}, {"home": passing("c", 20, "P")}, {}, 1, ["fewer-trials"]),
        (
            {"home": passing("c", 20, "PPP")},
            {"home": passing("c", 20, "P")},
            {"on_fewer_trials": "warn"},
            0,
            [],
        ),
        # more trials is no loosening: on_mismatch decides (warn)
        ({"home": passing("c", 20, "P")}, {"home": passing("c", 20, "PPP")}, {}, 0, []),
    ],
)
def test_compare__what_is_measured_changes__verdict_by_rule(
    record,
    base: dict[str, Any],
    cand: dict[str, Any],
    flags: dict[str, Any],
    exit_code: int,
    kinds: list[str],
) -> None:
    result = compare(record(base), record(cand), **flags)
    assert result.exit_code == exit_code, [r.message for r in result.reasons]
    assert blocking(result) == kinds
    if "replaced" in kinds:  # a suite with a baseline is never "without a baseline"
        assert "no baseline" not in headline(result)
    if exit_code:
        assert result.verdict == "failed"


@pytest.mark.parametrize(
    ("removed", "added", "words"),
    [
        (20, 1, "the 1 added case passes 0.0% where the 20 removed cases passed 100.0% in the baseline"),
        (4, 4, "the 4 added cases pass 0.0% where the 4 removed cases passed 100.0% in the baseline"),
    ],
)
def test_compare__renamed_reason__counts_in_words_that_agree(
    record, removed: int, added: int, words: str
) -> None:
    base = record({"home": {**passing("k", 5), **passing("c", removed)}})
    cand = record({"home": {**passing("k", 5), **passing("n", added, "F")}})
    [reason] = [r for r in compare(base, cand).reasons if r.kind == "renamed"]
    assert words in reason.message


def test_compare__suite_kept_without_cases__its_critical_cases_guarded_never_no_baseline(record) -> None:
    base = record({"home": passing("c", 20), "x": passing("x", 3)}, critical=("g/x0",))
    result = compare(base, record({"home": passing("c", 20), "x": {}}))
    assert result.exit_code == 1
    assert sorted(r.kind for r in result.reasons if r.blocking) == ["critical-case"]
    assert "no baseline" not in headline(result) and "1 suite removed" in headline(result)


@pytest.mark.parametrize(("flags", "exit_code"), [({}, 0), ({"on_inconclusive": "fail"}, 1)])
def test_compare__failing_cases_moved_to_a_new_suite_beside_easy_ones__inconclusive_never_no_regression(
    record, flags: dict[str, Any], exit_code: int
) -> None:
    # 8 failing cases moved out of home into a new suite with 60 easy new ones: the drop they show
    # over the removed cases is diluted below significance, as within a suite
    base = record({"home": passing("c", 20)})
    moved = {f"g/c{i}": "F" for i in range(12, 20)} | passing("e", 60)
    result = compare(base, record({"home": passing("c", 12), "away": moved}), **flags)
    assert result.exit_code == exit_code, [r.message for r in result.reasons]
    [reason] = [r for r in result.reasons if r.kind == "renamed"]
    assert reason.suite_id is None and reason.message.startswith("Suites home, away: the 68 added cases")
    assert "no regression" not in headline(result)
    assert "pass rate dropped over renamed or replaced cases" in headline(result)


def test_compare__fewer_trials__named_and_not_a_mismatch_reason(record) -> None:
    result = compare(record({"home": passing("c", 20, "PPP")}), record({"home": passing("c", 20, "P")}))
    assert "trials 3 -> 1" in headline(result)
    [reason] = [r for r in result.reasons if r.kind == "fewer-trials"]
    assert "trials 3 -> 1: 20 cases run with fewer trials" in reason.message
    assert not [r for r in result.reasons if r.kind == "fingerprint" and "Trials" in r.message]


def test_compare__removed_cases__counted_and_the_first_named_in_the_headline(record) -> None:
    result = compare(record({"home": passing("c", 20)}), record({"home": passing("c", 14)}))
    line = headline(result)
    assert "6 cases removed: home: g/c14, home: g/c15, home: g/c16 and 3 more" in line
    assert result.outcome == "warn"


def test_headline__removed_case_ids__passed_through_the_renderers_escaping(record) -> None:
    base = record({"home": {**passing("c", 5), "g/@admin *bold*\n# title": "P"}})
    result = compare(base, record({"home": passing("c", 5)}))
    assert "g/@admin *bold* # title" in headline(result)  # plain text on one line by default
    assert "[home: g/@admin *bold*\n# title]" in headline(result, name=lambda s: f"[{s}]")


def test_compare__renamed_drop__joins_the_holm_family(record) -> None:
    # the same drop in a suite's renamed cases, and a significant paired regression elsewhere: both tested
    base = record({"home": passing("c", 20), "other": passing("o", 30)})
    broken = {f"g/o{i}": "F" for i in range(20, 30)}
    cand = record(
        {"home": {**passing("c", 10), **passing("n", 10, "F")}, "other": {**passing("o", 20), **broken}}
    )
    result = compare(base, cand)
    [home] = [s for s in result.suites if s.suite_id == "home"]
    assert home.renamed is not None and home.renamed.significant
    assert home.renamed.p_adjusted == pytest.approx(2 * home.renamed.p_value)  # Holm, the smaller of two
    assert sorted(blocking(result)) == ["regression", "renamed"]


def test_compare__renamed_with_a_partial_baseline__not_tested(record) -> None:
    base = record({"home": passing("c", 20)}, complete=False)
    cand = record({"home": {**passing("c", 10), **passing("n", 10, "F")}})
    result = compare(base, cand)
    assert all(s.renamed is None for s in result.suites)


def test_compare__interrupted_candidate__cases_it_lacks_neither_removed_nor_replaced(record) -> None:
    result = compare(record({"home": passing("c", 20)}), record({"home": passing("n", 3)}, complete=False))
    assert result.outcome == "incomplete"
    assert not {"replaced", "renamed", "removed-cases"} & {r.kind for r in result.reasons}


# -- globs that match nothing -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "gate", "refused", "named"),
    [
        ({"critical_cases": ("g/c2?",)}, None, "'g/c2?'", "g/c"),  # matches no case (ids are g/c0..g/c9)
        ({"critical_cases": ("g/c1*",)}, None, None, None),
        (
            {},
            {"home": {"critical_cases": ["g/door"]}},
            "'g/door'",
            "g/c",
        ),  # in the suite's own block
        ({"critical_cases": ("g/old*",)}, None, None, None),  # matches a case on the baseline side only
    ],
)
def test_compare__critical_glob_matching_nothing__usage_error_naming_the_closest_ids(
    record, flags: dict[str, Any], gate: Any, refused: str | None, named: str | None
) -> None:
    base = record({"home": {**passing("c", 10), "g/old1": "P"}})
    cand = record({"home": passing("c", 10)}, gate=gate)
    blocks = {"home": gate["home"]} if gate else {}
    policy = resolve_policy(repo_config=None, suite_blocks=blocks, overrides=flags)
    if refused is None:
        compare_documents(base, cand, policy)
        return
    with pytest.raises(UsageError) as info:
        compare_documents(base, cand, policy)
    assert refused in str(info.value) and "closest case ids" in str(info.value) and named in str(info.value)


def test_compare__critical_glob_without_a_baseline__judged_on_the_candidate(record) -> None:
    policy = resolve_policy(repo_config=None, suite_blocks={}, overrides={"critical_cases": ("g/x*",)})
    with pytest.raises(UsageError, match="'g/x\\*'"):
        compare_documents(None, record({"home": passing("c", 3)}), policy)


@pytest.mark.parametrize("how", ["shard", "single-run"])
def test_compare__critical_glob_on_a_part_of_a_run__not_judged(record, how: str) -> None:
    from agent_evals.gate.compare import single_run

    policy = resolve_policy(repo_config=None, suite_blocks={}, overrides={"critical_cases": ("g/x*",)})
    cand = record({"home": passing("c", 3)})
    if how == "shard":
        cand["run"]["shard"] = {"index": 1, "count": 2}
        compare_documents(None, cand, policy)
    else:
        single_run(cand, policy)


def test_compare__override_glob_matching_no_suite_or_group__usage_error(record) -> None:
    policy = resolve_policy(
        repo_config=None, suite_blocks={"home": {"overrides": {"doors": {"max_drop": 0.01}}}}, overrides={}
    )
    base, cand = record({"home": passing("c", 3)}), record({"home": passing("c", 3)})
    with pytest.raises(UsageError, match="override 'doors' matches no suite or group"):
        compare_documents(base, cand, policy)


def test_markdown__removed_case_id_in_the_headline__escaped_and_no_mention(record) -> None:
    from agent_evals.report.markdown import render_markdown

    base = record({"home": {**passing("c", 5), "g/@admin <b>x</b> [l](http://e.x)": "P"}})
    text = render_markdown(compare(base, record({"home": passing("c", 5)})), env={})
    line = text.splitlines()[1]
    assert "1 case removed: home: g/@\u200dadmin &lt;b&gt;" in line
    assert "<b>" not in line and "[l](" not in line


def brute_force_paired(
    before: list[Fraction], after: list[Fraction], pairs: list[tuple[Fraction, Fraction]]
) -> float:
    """Every split of the unpaired cases times every exchange within the pairs, equally likely."""
    pooled = before + after
    observed = sum(after) + sum(a for _, a in pairs)
    hits = total = 0
    for idx in itertools.combinations(range(len(pooled)), len(after)):
        for swaps in itertools.product((0, 1), repeat=len(pairs)):
            s = sum(pooled[i] for i in idx) + sum(pair[1 - w] for pair, w in zip(pairs, swaps, strict=True))
            hits += s <= observed
            total += 1
    return hits / total


@pytest.mark.parametrize(
    ("before", "after", "pairs", "expected"),
    [
        ([], [], [(F(1), F(0))] * 4, 1 / 16),  # four renamed cases flipped: the sign test, (1/2)^4
        ([], [], [(F(1), F(1))] * 3 + [(F(1), F(0))] * 2, 1 / 4),  # unchanged pairs weigh nothing
        ([F(1), F(0)], [F(0)], [(F(2, 3), F(1, 3)), (F(1), F(1, 3))], None),
        ([F(1)] * 3, [F(0), F(1, 2)], [(F(0), F(1)), (F(1, 3), F(0))], None),
    ],
)
def test_drop_p__cases_paired_by_input__the_exact_paired_randomization_test(
    before: list[Fraction],
    after: list[Fraction],
    pairs: list[tuple[Fraction, Fraction]],
    expected: float | None,
) -> None:
    p, floor, method = drop_p(before, after, pairs)
    assert method == "permutation-exact"
    assert p == pytest.approx(expected if expected is not None else brute_force_paired(before, after, pairs))
    assert floor <= p


def test_compare__renamed_cases_with_the_same_input__paired_and_the_flips_fail(record) -> None:
    # 40 cases renamed, same inputs: 34 unchanged (8 of them failing before and now), 6 flipped to failing.
    # Unpaired, the same results give p = 0.105 (not significant); paired, only the 6 flips are random.
    base = record({"home": {**passing("k", 10), **passing("c", 32), **passing("f", 8, "F")}})
    cand = record(
        {"home": {**passing("k", 10), **passing("r", 26), **passing("x", 6, "F"), **passing("g", 8, "F")}}
    )
    inputs = [f"ask {i}" for i in range(40)]
    for doc in (base, cand):
        for case, text in zip(doc["suites"][0]["cases"][10:], inputs, strict=True):
            case["input"] = text
    result = compare(base, cand)
    check = result.suites[0].renamed
    assert check is not None and check.paired_by_input == 40
    assert check.p_value == pytest.approx(1 / 64)
    assert (result.exit_code, blocking(result)) == (1, ["renamed"])


def test_compare__few_renamed_cases_with_the_same_input__tested_unpaired(record) -> None:
    # 4 pairs have 16 outcomes: never below alpha; unpaired, 4 passing cases now failing give 1/70
    base, cand = (
        record({"home": passing("c", 20)}),
        record({"home": {**passing("c", 16), **passing("r", 4, "F")}}),
    )
    for doc in (base, cand):
        for i, case in enumerate(doc["suites"][0]["cases"][16:]):
            case["input"] = f"ask {i}"
    check = compare(base, cand).suites[0].renamed
    assert check is not None and check.paired_by_input == 0
    assert check.p_value == pytest.approx(1 / 70)


@pytest.mark.parametrize(("on_inconclusive", "exit_code"), [("warn", 0), ("fail", 1)])
def test_compare__renamed_drop_diluted_by_new_cases__said_as_an_unsettled_drop_never_no_regression(
    record, on_inconclusive: str, exit_code: int
) -> None:
    # the 8 cases that broke renamed, 60 easy new ones added: 8 removed (all passed) against 68 added
    # (8 failing) is an 11.8-point drop the test cannot call; the headline said "no regression"
    base = record({"home": passing("c", 20)})
    cand = record(
        {"home": {**{f"g/c{i}": "P" for i in range(8, 20)}, **passing("r", 8, "F"), **passing("n", 60)}}
    )
    result = compare(base, cand, on_inconclusive=on_inconclusive)
    [suite] = result.suites
    assert suite.renamed is not None and not suite.renamed.significant
    assert suite.renamed.delta is not None and suite.renamed.delta < -0.05
    [reason] = [r for r in result.reasons if r.kind == "renamed"]
    assert "a drop of 11.8 points, not significant" in reason.message
    assert reason.blocking is (on_inconclusive == "fail")
    assert "no regression" not in headline(result)
    assert "pass rate dropped over renamed or replaced cases in 1 suite" in headline(result)
    assert result.exit_code == exit_code


@pytest.mark.parametrize(("renamed", "said"), [(3, False), (4, True)])
def test_compare__renamed_drop_diluted__said_only_when_that_many_renamed_cases_could_show_a_drop(
    record, renamed: int, said: bool
) -> None:
    # 3 passing cases renamed and failing cannot reach alpha even alone (p = 1/20): retiring a case or
    # three beside new failing ones is no hidden regression; 4 can (p = 1/70), so their dilution is said
    base = record({"home": passing("c", 20)})
    kept = {f"g/c{i}": "P" for i in range(renamed, 20)}
    cand = record({"home": {**kept, **passing("r", renamed, "F"), **passing("n", 60)}})
    result = compare(base, cand)
    assert any(r.kind == "renamed" for r in result.reasons) is said
    assert ("no regression" in headline(result)) is not said
