"""A case graded in the baseline that has no graded trial now counts against the candidate, never vanishes."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.gate.compare import compare_documents
from agent_evals.gate.model import Comparison
from agent_evals.gate.policy import resolve_policy
from agent_evals.report.headline import headline
from agent_evals.report.markdown import render_markdown


def compare(base: dict[str, Any], cand: dict[str, Any], **flags: Any) -> Comparison:
    return compare_documents(base, cand, resolve_policy(repo_config=None, suite_blocks={}, overrides=flags))


def ungrade(doc: dict[str, Any], case_ids: set[str]) -> dict[str, Any]:
    """The named cases' trials keep running but carry no pass/fail verdict (a numeric-only score)."""
    for case in doc["suites"][0]["cases"]:
        if case["id"] in case_ids:
            for t in case["trials"]:
                t.update(passed=False, graded=False, scores={"check": {"value": 0.4, "passed": None}})
    return doc


def kinds(result: Comparison) -> set[str]:
    return {r.kind for r in result.reasons}


@pytest.mark.parametrize(
    ("n", "lost", "codes"),
    [
        (20, 2, "P"),  # 10% of a small suite stopped being graded
        (20, 4, "PPP"),
        (200, 20, "P"),  # 10% of 200 cases: significantly over the 5% budget
    ],
)
def test_compare__cases_that_lost_their_verdict__count_as_errored_against_the_budget(
    record, n: int, lost: int, codes: str
) -> None:
    base = record({"home": {f"g/c{i}": codes for i in range(n)}})
    gone = {f"g/c{i}" for i in range(lost)}
    cand = ungrade(record({"home": {f"g/c{i}": codes for i in range(n)}}), gone)
    result = compare(base, cand)
    assert result.outcome == "fail"
    assert result.exit_code == 1
    assert {"error-budget", "lost-grade"} <= kinds(result)
    budget = next(r for r in result.reasons if r.kind == "error-budget")
    # each count names what it counts: the graded trials that ran, the cases and trials without a verdict
    ran, charged = (n - lost) * len(codes), lost * len(codes)
    assert f"0 of {ran} graded trials errored" in budget.message
    assert (
        f"{lost} cases graded in the baseline ran {charged} trials without a pass/fail verdict now"
        in budget.message
    )
    assert f"{charged} of {ran + charged} counted as errored" in budget.message


@pytest.mark.parametrize(
    ("cand_codes", "words"),
    [
        ("P", "4 cases graded in the baseline ran 4 trials without a pass/fail verdict now"),
        ("", "4 cases graded in the baseline ran no trial at all now"),
    ],
    ids=["fewer-trials-without-verdict", "no-trial-at-all"],
)
def test_compare__lost_cases_ran_fewer_trials_than_the_baseline__budget_line_counts_what_ran(
    record, cand_codes: str, words: str
) -> None:
    """Lost cases are charged with the baseline's trials (3 each); the line never calls them trials
    that ran and errored (a budget stop leaves cases with no trial at all)."""
    base = record({"home": {f"g/c{i}": "PPP" for i in range(20)}})
    cand = record({"home": {f"g/c{i}": "PPP" if i >= 4 else cand_codes for i in range(20)}})
    cand = ungrade(cand, {f"g/c{i}" for i in range(4)})
    budget = next(r for r in compare(base, cand).reasons if r.kind == "error-budget")
    assert budget.message.startswith(f"Suite home: 0 of 48 graded trials errored, and {words}, charged as ")
    assert "the 12 trials the baseline ran of them: 12 of 60 counted as errored (20.0%)" in budget.message
    assert "12 of 60 trials errored" not in budget.message


@pytest.mark.parametrize("how", ["errored", "ungraded"])
def test_compare__one_lost_case_within_the_budget__warns_and_names_it(record, how: str) -> None:
    base = record({"home": {f"g/c{i}": "P" for i in range(200)}})
    if how == "errored":
        cand = record({"home": {f"g/c{i}": "E" if i == 7 else "P" for i in range(200)}})
    else:
        cand = ungrade(record({"home": {f"g/c{i}": "P" for i in range(200)}}), {"g/c7"})
    result = compare(base, cand)
    assert result.outcome == "warn"  # never a clean pass: a case the baseline graded is not graded now
    assert result.exit_code == 0
    reason = next(r for r in result.reasons if r.kind == "lost-grade")
    assert "g/c7" in reason.message
    assert ("1 errored" if how == "errored" else "1 without a pass/fail verdict") in reason.message
    assert "lost their grade" in headline(result) or "lost its grade" in headline(result)
    assert "g/c7" in render_markdown(result, env={})


@pytest.mark.parametrize("how", ["errored", "ungraded"])
@pytest.mark.parametrize(("critical", "outcome"), [("fail", "fail"), ("warn", "warn")])
def test_compare__critical_case_that_passed_and_lost_its_grade__is_a_critical_flip(
    record, how: str, critical: str, outcome: str
) -> None:
    base = record({"home": {f"g/c{i}": "PPP" for i in range(200)}}, critical=("g/c3",))
    if how == "errored":
        cand = record(
            {"home": {f"g/c{i}": "EEE" if i == 3 else "PPP" for i in range(200)}}, critical=("g/c3",)
        )
    else:
        cand = ungrade(record({"home": {f"g/c{i}": "PPP" for i in range(200)}}, critical=("g/c3",)), {"g/c3"})
    result = compare(base, cand, critical=critical)
    assert result.outcome == outcome
    reason = next(r for r in result.reasons if r.kind == "critical-case")
    assert reason.case_id == "g/c3"
    assert "no graded trial now" in reason.message
    assert next(c for c in result.suites[0].cases if c.case_id == "g/c3").critical_flip


@pytest.mark.parametrize(
    ("base_codes", "cand_codes"),
    [
        ("E", "E"),  # errored on both sides: nothing was lost
        ("U", "U"),  # never graded
        ("U", "P"),  # gained a grade
        ("E", "P"),
    ],
)
def test_compare__no_grade_lost__no_lost_grade_reason(record, base_codes: str, cand_codes: str) -> None:
    def side(codes: str) -> dict[str, Any]:
        doc = record({"home": {f"g/c{i}": codes if i == 0 else "P" for i in range(200)}})
        return ungrade(doc, {"g/c0"}) if codes == "U" else doc

    result = compare(side(base_codes), side(cand_codes))
    assert "lost-grade" not in kinds(result)


def test_compare__lost_case_lowers_nothing_it_should_not__paired_rate_still_over_graded_cases(record) -> None:
    # the lost cases stay out of the pass fraction (GATE.md): errored/ungraded is not failed
    base = record({"home": {f"g/c{i}": "P" for i in range(20)}})
    cand = ungrade(record({"home": {f"g/c{i}": "P" for i in range(20)}}), {"g/c0", "g/c1"})
    suite = compare(base, cand).suites[0]
    assert suite.candidate.rate == 1.0
    assert suite.delta is not None and suite.delta.n_paired == 18


def ungrade_trials(doc: dict[str, Any], case_ids: set[str], keep: int) -> dict[str, Any]:
    """The named cases keep their first ``keep`` trials' verdicts; the rest carry only a number."""
    for case in doc["suites"][0]["cases"]:
        if case["id"] in case_ids:
            for t in case["trials"][keep:]:
                t.update(passed=False, graded=False, scores={"check": {"value": 0.0, "passed": None}})
    return doc


@pytest.mark.parametrize(
    ("base_codes", "cand_codes", "keep", "flags", "exit_code", "change"),
    [
        # two of three trials failed, recorded as a bare number: fewer trials with a verdict, a failure
        ("PPP", "PFF", 1, {}, 1, "trials with a pass/fail verdict 3 of 3 -> 1 of 3"),
        ("PPP", "PPF", 2, {}, 1, "trials with a pass/fail verdict 3 of 3 -> 2 of 3"),
        # more trials, the extra failing ones without a verdict: as many verdicts as before, a larger share without
        ("PPP", "PPPFFF", 3, {}, 1, "trials with a pass/fail verdict 3 of 3 -> 3 of 6"),
        # on_fewer_trials decides it, as for trials that did not run
        ("PPP", "PFF", 1, {"on_fewer_trials": "warn"}, 0, "trials with a pass/fail verdict 3 of 3 -> 1 of 3"),
        # every trial kept its verdict: nothing to say
        ("PPP", "PPP", 3, {}, 0, None),
        # fewer trials run: said as before
        ("PPP", "P", 1, {}, 1, "trials 3 -> 1"),
    ],
)
def test_compare__trials_that_lost_their_verdict__fewer_trials_when_the_case_kept_some(
    record,
    base_codes: str,
    cand_codes: str,
    keep: int,
    flags: dict[str, Any],
    exit_code: int,
    change: str | None,
) -> None:
    broken = {f"g/c{i}" for i in range(12)}
    base = record({"home": {f"g/c{i}": base_codes for i in range(40)}})
    cand = record({"home": {f"g/c{i}": cand_codes if f"g/c{i}" in broken else base_codes for i in range(40)}})
    ungrade_trials(cand, broken, keep)
    result = compare(base, cand, **flags)
    assert result.exit_code == exit_code, [r.message for r in result.reasons]
    assert result.suites[0].trials_change == change
    if change is not None:
        [reason] = [r for r in result.reasons if r.kind == "fewer-trials"]
        assert reason.message.startswith(f"Suite home: {change}: 12 cases run with fewer trials")
        assert reason.blocking == (exit_code == 1)


def test_compare__as_large_a_share_without_a_verdict_as_the_baseline__not_fewer_trials(record) -> None:
    broken = {f"g/c{i}" for i in range(12)}
    base = ungrade_trials(record({"home": {f"g/c{i}": "PPP" for i in range(40)}}), broken, 1)
    cand = ungrade_trials(record({"home": {f"g/c{i}": "PPPPPP" for i in range(40)}}), broken, 2)
    result = compare(base, cand)  # 2 of 3 without a verdict before, 4 of 6 now: the same share
    assert result.suites[0].trials_change is None
    assert "fewer-trials" not in kinds(result)
