"""compare_runs / compare_documents: verdicts, reasons, Holm, comparability and the no-baseline path."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_evals.gate.compare import compare_documents, compare_runs, single_run
from agent_evals.gate.model import Comparison
from agent_evals.gate.policy import Layer, Policy, parse_block, resolve_policy
from agent_evals.record.model import RunRecord
from agent_evals.report.markdown import render_markdown
from agent_evals.report.terminal import render_terminal
from agent_evals.report.verdict_json import render_json


def policy(**flags: Any) -> Policy:
    return resolve_policy(repo_config=None, suite_blocks={}, overrides=flags)


def compare(base: dict[str, Any] | None, cand: dict[str, Any], **flags: Any) -> Comparison:
    blocks = {s["id"]: s.get("gate") for s in cand["suites"]}
    pol = resolve_policy(repo_config=None, suite_blocks=blocks, overrides=flags)
    return compare_documents(base, cand, pol)


def kinds(comparison: Comparison) -> list[str]:
    return [r.kind for r in comparison.reasons]


def test_compare__identical_runs__passed_exit_0(record, cases) -> None:
    doc = record({"home": cases("doors", 100, "P") | cases("lights", 50, "F")})
    result = compare(doc, doc)
    assert (result.verdict, result.outcome, result.exit_code, result.reasons) == ("passed", "pass", 0, [])
    suite = result.suites[0]
    assert suite.delta is not None and suite.delta.delta == 0.0 and suite.delta.test == "none"
    assert suite.counts["stable-pass"] == 100 and suite.counts["stable-fail"] == 50


def test_compare__one_trial_regression__fails_with_mcnemar_p(record, cases) -> None:
    base = record({"home": cases("doors", 100, "P")})
    cand = record({"home": cases("doors", 80, "P") | {f"doors/c{i}": "F" for i in range(80, 100)}})
    result = compare(base, cand)
    suite = result.suites[0]
    assert suite.delta is not None
    assert (suite.delta.test, suite.delta.n_down, suite.delta.n_up) == ("mcnemar", 20, 0)
    assert suite.delta.p_value == pytest.approx(2**-20)
    assert (result.verdict, result.exit_code, kinds(result)) == ("failed", 1, ["regression"])
    assert result.reasons[0].blocking and "dropped 20.0 points" in result.reasons[0].message
    assert suite.counts["regressed"] == 20
    assert suite.cases[0].classification == "regressed"
    assert suite.cases[0].failing_scorers[0].name == "check"


def test_compare__small_unproven_drop__inconclusive_warns_with_hint(record, cases) -> None:
    base = record({"home": cases("doors", 20, "P")})
    cand = record({"home": cases("doors", 18, "P") | {"doors/c18": "F", "doors/c19": "F"}})
    result = compare(base, cand)
    suite = result.suites[0]
    assert (result.verdict, result.outcome, result.exit_code) == ("inconclusive", "warn", 0)
    assert suite.delta is not None and suite.delta.p_value == pytest.approx(0.25)
    assert suite.delta.settle is not None and suite.delta.settle.more_cases
    assert suite.delta.mde_exceeds_max_drop
    assert kinds(result) == ["inconclusive"] and "more cases" in result.reasons[0].message


def test_compare__inconclusive_with_policy_fail__exit_1(record, cases) -> None:
    base = record({"home": cases("doors", 20, "P")})
    cand = record({"home": cases("doors", 18, "P") | {"doors/c18": "F", "doors/c19": "F"}})
    result = compare(base, cand, on_inconclusive="fail")
    assert (result.verdict, result.outcome, result.exit_code) == ("inconclusive", "fail", 1)


def test_compare__inconclusive_with_policy_pass__no_warning(record, cases) -> None:
    base = record({"home": cases("doors", 20, "P")})
    cand = record({"home": cases("doors", 18, "P") | {"doors/c18": "F", "doors/c19": "F"}})
    assert compare(base, cand, on_inconclusive="pass").outcome == "pass"


def test_compare__below_floor__fails_with_floor_reason(record, cases) -> None:
    doc = record({"home": cases("doors", 8, "P") | cases("lights", 2, "F")})
    result = compare(doc, doc, min_pass_rate=0.9)
    assert (result.verdict, result.exit_code, kinds(result)) == ("failed", 1, ["floor"])
    assert "80.0%" in result.reasons[0].message and "90.0%" in result.reasons[0].message


def test_compare__errors_over_budget__fails_and_errors_are_not_failures(record, cases) -> None:
    base = record({"home": cases("doors", 10, "PPP")})
    cand = record({"home": cases("doors", 6, "PPP") | {f"doors/c{i}": "EEP" for i in range(6, 10)}})
    result = compare(base, cand)
    suite = result.suites[0]
    assert suite.candidate.rate == 1.0  # errored trials are left out of the pass rate
    assert suite.candidate.error_rate == pytest.approx(8 / 30)
    assert (result.verdict, kinds(result)) == ("failed", ["error-budget"])


def test_compare__critical_case_flips__fails_even_without_significance(record, cases) -> None:
    base = record({"home": cases("doors", 30, "PPP")}, critical=("doors/c0",))
    cand = record({"home": cases("doors", 30, "PPP") | {"doors/c0": "FFF"}}, critical=("doors/c0",))
    result = compare(base, cand)
    assert (result.verdict, result.exit_code, kinds(result)) == ("failed", 1, ["critical-case"])
    assert result.reasons[0].case_id == "doors/c0"
    assert result.suites[0].cases[0].critical_flip


@pytest.mark.parametrize(("action", "outcome"), [("warn", "warn"), ("ignore", "pass")])
def test_compare__critical_policy__warn_or_ignore(record, cases, action: str, outcome: str) -> None:
    base = record({"home": cases("doors", 30, "PPP")})
    cand = record({"home": cases("doors", 30, "PPP") | {"doors/c0": "FFF"}})
    result = compare(base, cand, critical=action, critical_cases=["doors/c0"])
    assert result.outcome == outcome and result.exit_code == 0


@pytest.mark.parametrize(
    ("action", "outcome", "code"), [("pass", "pass", 0), ("warn", "warn", 0), ("fail", "fail", 1)]
)
def test_compare__no_baseline__follows_on_missing_baseline(
    record, cases, action: str, outcome: str, code: int
) -> None:
    cand = record({"home": cases("doors", 10, "P")})
    result = compare(None, cand, on_missing_baseline=action)
    assert (result.verdict, result.outcome, result.exit_code) == ("no-baseline", outcome, code)
    assert result.baseline.source == "none" and result.baseline.reason_missing
    assert kinds(result) == ["missing-baseline"]


def test_compare__no_baseline__floors_still_apply(record, cases) -> None:
    cand = record({"home": cases("doors", 5, "P") | cases("lights", 5, "F")})
    result = compare(None, cand, min_pass_rate=0.8)
    assert (result.verdict, result.exit_code) == ("failed", 1)
    assert set(kinds(result)) == {"floor", "missing-baseline"}


def test_compare__three_trials_large_suite__per_case_option__paired_t_regression(record) -> None:
    base = record({"home": {f"g{i % 4}/c{i}": "PPP" if i % 5 else "PFF" for i in range(200)}})
    cand = record(
        {"home": {f"g{i % 4}/c{i}": ("PPF" if i % 2 else "PPP") if i % 5 else "PFF" for i in range(200)}}
    )
    result = compare(base, cand, test="per_case")
    suite = result.suites[0]
    assert suite.delta is not None and suite.delta.test == "paired-t"
    assert suite.delta.delta == pytest.approx(-80 / 3 / 200)
    assert suite.delta.interval is not None and suite.delta.interval.high < 0
    assert (result.verdict, kinds(result)) == ("failed", ["regression"])
    assert (
        suite.candidate.k == 3
        and suite.candidate.pass_at_k is not None
        and suite.candidate.pass_hat_k is not None
    )
    assert suite.counts["flaky"] == 80 + 40


def test_compare__three_trials_few_differ__per_case_option__sign_flip(record, cases) -> None:
    base = record({"home": cases("doors", 40, "PPP")})
    cand = record({"home": cases("doors", 36, "PPP") | {f"doors/c{i}": "FFF" for i in range(36, 40)}})
    suite = compare(base, cand, test="per_case").suites[0]
    assert suite.delta is not None and suite.delta.test == "sign-flip"
    assert suite.delta.p_value == pytest.approx(1 / 16)  # exact: 4 drops, one pattern in 16 as low


def test_compare__holm_across_suites__two_borderline_drops_become_inconclusive(record, cases) -> None:
    drop = cases("doors", 15, "P") | {f"doors/c{i}": "F" for i in range(15, 20)}
    one_base = record({"a": cases("doors", 20, "P")})
    one_cand = record({"a": drop})
    alone = compare(one_base, one_cand)
    assert alone.verdict == "failed"  # p = 1/32 < 0.05
    both = compare(
        record({"a": cases("doors", 20, "P"), "b": cases("doors", 20, "P")}), record({"a": drop, "b": drop})
    )
    assert [s.delta.p_adjusted for s in both.suites if s.delta] == [pytest.approx(1 / 16)] * 2
    assert both.verdict == "inconclusive" and both.exit_code == 0


FIVE_OF_20 = {f"doors/c{i}": "F" if i < 5 else "P" for i in range(20)}  # McNemar p = 1/32 alone


@pytest.mark.parametrize(
    ("base", "cand", "flags", "verdict", "p_adjusted"),
    [
        # a second suite in which nothing could move (every case passed every trial on both sides)
        pytest.param(
            {"a": dict.fromkeys(FIVE_OF_20, "P"), "b": {f"x/c{i}": "P" for i in range(20)}},
            {"a": FIVE_OF_20, "b": {f"x/c{i}": "P" for i in range(20)}},
            {},
            "failed",
            1 / 32,
            id="unchanged-second-suite-is-no-test",
        ),
        # one timeout: an error-rise test that cannot reach alpha (p >= 1/2 wherever the error fell)
        pytest.param(
            {"a": dict.fromkeys(FIVE_OF_20, "P")},
            {"a": FIVE_OF_20 | {"doors/c19": "E"}},
            {},
            "failed",
            1 / 32,
            id="one-errored-trial-is-no-test",
        ),
        pytest.param(
            {"a": dict.fromkeys(FIVE_OF_20, "P") | {"doors/c19": "E"}},
            {"a": FIVE_OF_20},
            {},
            "failed",
            1 / 32,
            id="one-error-fixed-is-no-test",
        ),
        # tests that can fail the pull request still share the family: two suites that both dropped
        pytest.param(
            {"a": dict.fromkeys(FIVE_OF_20, "P"), "b": dict.fromkeys(FIVE_OF_20, "P")},
            {"a": FIVE_OF_20, "b": FIVE_OF_20},
            {},
            "inconclusive",
            1 / 16,
            id="two-dropping-suites-share-it",
        ),
        # and an error rise that can reach alpha: 5 cases now error (p = 1/32), the budget set wide
        pytest.param(
            {"a": dict.fromkeys(FIVE_OF_20, "P") | {f"z/c{i}": "P" for i in range(15)}},
            {"a": FIVE_OF_20 | {f"z/c{i}": "E" if i < 5 else "P" for i in range(15)}},
            {"max_error_rate": 0.5},
            "inconclusive",
            1 / 16,
            id="an-error-rise-that-can-fail-shares-it",
        ),
    ],
)
def test_compare__holm_family__only_tests_that_can_fail_the_pull_request(
    record, base: dict, cand: dict, flags: dict, verdict: str, p_adjusted: float
) -> None:
    result = compare(record(base), record(cand), **flags)
    suite = result.suites[0]
    assert suite.delta is not None and suite.delta.p_adjusted == pytest.approx(p_adjusted)
    assert (result.verdict, result.exit_code) == (verdict, 1 if verdict == "failed" else 0)


def test_compare__gated_group_override__group_can_fail_alone(record, cases) -> None:
    base = record({"home": cases("doors", 12, "P") | cases("lights", 200, "P")})
    cand = record({"home": cases("doors", 12, "F") | cases("lights", 200, "P")})
    ungated = compare(base, cand)
    doors = next(g for g in ungated.suites[0].groups if g.key == "doors")
    assert not doors.gated and doors.bh_flag and doors.status == "regressed"
    cand["suites"][0]["gate"] = {"overrides": {"doors": {"max_drop": 0.1}}}
    result = compare(base, cand)
    doors = next(g for g in result.suites[0].groups if g.key == "doors")
    assert doors.gated and doors.verdict == "failed" and doors.status == "regressed"
    assert any(r.kind == "regression" and r.group == "doors" for r in result.reasons)
    assert result.exit_code == 1


def test_compare__added_and_removed_cases_and_suites__listed(record, cases) -> None:
    base = record({"home": {"doors/a": "P", "doors/b": "P"}, "old": {"x/y": "P"}})
    cand = record({"home": {"doors/a": "P", "doors/c": "F"}})
    result = compare(base, cand)
    suite = result.suites[0]
    assert (suite.added_case_ids, suite.removed_case_ids) == (["doors/c"], ["doors/b"])
    assert {d.case_id: d.classification for d in suite.cases} == {
        "doors/a": "stable-pass",
        "doors/c": "new",
        "doors/b": "removed",
    }
    assert result.removed_suite_ids == ["old"] and "removed-suite" in kinds(result)
    assert not suite.fingerprint.matches and any("1 added, 1 removed" in n for n in suite.fingerprint.notes)


def test_compare__agent_version_differs__fingerprint_note(record, cases) -> None:
    base = record({"home": cases("doors", 5, "P")})
    cand = record({"home": cases("doors", 5, "P")}, agent={"name": "home", "version": "2"})
    cand["suites"][0]["fingerprint"] = "other"
    fp = compare(base, cand).suites[0].fingerprint
    assert not fp.matches and fp.notes == ["Agent version differs: '1' in the baseline, '2' now."]


def test_compare__no_case_ids_overlap__fails_every_case_renamed_or_replaced(record, cases) -> None:
    # it used to be refused as records of other suites (exit 2): `ci` then compared without a baseline
    result = compare(record({"home": cases("doors", 5, "P")}), record({"home": cases("lights", 5, "P")}))
    assert (result.verdict, result.exit_code) == ("failed", 1)
    assert [r.kind for r in result.reasons if r.blocking] == ["replaced"]
    assert "every case was renamed or replaced" in result.reasons[0].message.lower()


@pytest.mark.parametrize(
    "candidate_codes",
    [{"doors/c0": "P", "doors/c1": "P"}, {"doors/c0": "F", "doors/c1": "F"}],
    ids=["all-passing", "failing"],
)
def test_compare__incomplete_candidate__outcome_incomplete_exit_3_whatever_its_cases(
    record, cases, candidate_codes
) -> None:
    base = record({"home": cases("doors", 5, "P")})
    result = compare(base, record({"home": candidate_codes}, complete=False))
    assert (result.outcome, result.exit_code) == ("incomplete", 3)
    blocking = [r for r in result.reasons if r.blocking and r.kind == "incomplete-run"]
    assert len(blocking) == 1
    assert "Not run (3): home: doors/c2, home: doors/c3, home: doors/c4." in blocking[0].message


def test_compare__incomplete_candidate__missing_cases_are_not_run_never_removed(record, cases) -> None:
    base = record({"home": cases("doors", 3, "P"), "office": cases("lights", 2, "P")})
    result = compare(base, record({"home": {"doors/c0": "P"}}, complete=False))
    suite = result.suites[0]
    assert suite.not_run_case_ids == ["doors/c1", "doors/c2"] and suite.removed_case_ids == []
    assert {c.case_id: c.classification for c in suite.cases if c.case_id != "doors/c0"} == {
        "doors/c1": "not-run",
        "doors/c2": "not-run",
    }
    assert (result.not_run_suite_ids, result.removed_suite_ids) == (["office"], [])
    assert "removed-suite" not in kinds(result)
    assert suite.counts["removed"] == 0 and suite.counts["not-run"] == 2


def test_compare__incomplete_candidate_without_baseline__still_exit_3(record, cases) -> None:
    result = single_run(record({"home": cases("doors", 5, "P")}, complete=False), policy())
    assert (result.outcome, result.exit_code) == ("incomplete", 3)


def test_compare__incomplete_baseline_only__a_warning_not_a_failure(record, cases) -> None:
    result = compare(
        record({"home": cases("doors", 5, "P")}, complete=False), record({"home": cases("doors", 5, "P")})
    )
    assert (result.outcome, result.exit_code) == ("warn", 0) and "incomplete-run" in kinds(result)


def test_compare__breakdowns__scorer_dimension_and_usage_rows(record, cases) -> None:
    dims = {f"doors/c{i}": {"difficulty": "hard" if i < 5 else "easy"} for i in range(10)}
    base = record({"home": cases("doors", 10, "P")}, dimensions=dims)
    cand = record(
        {"home": cases("doors", 5, "F") | {f"doors/c{i}": "P" for i in range(5, 10)}}, dimensions=dims
    )
    suite = compare(base, cand).suites[0]
    assert [(r.key, r.candidate.rate if r.candidate else None) for r in suite.dimensions] == [
        ("difficulty=easy", 1.0),
        ("difficulty=hard", 0.0),
    ]
    assert suite.dimensions[1].dimension == "difficulty" and suite.dimensions[1].value == "hard"
    assert [(r.key, r.delta.delta if r.delta else None) for r in suite.scorers] == [("check", -0.5)]
    assert suite.usage.delta is not None and suite.usage.delta.cost_usd == pytest.approx(0.0)
    assert suite.usage.candidate.input_tokens == 1000


def test_compare_runs__accepts_run_record_models_including_minimal_v1(record, cases) -> None:
    minimal = {
        "schema": "agent-evals/run@1",
        "run": {"tool_version": "0.0.1", "started_at": "2025-01-01T00:00:00Z"},
        "suites": [{"id": "home", "kind": "benchmark", "source": "home.yaml",
                    "cases": [{"id": "doors/c0", "group": "doors", "trials": [{"passed": True}]}]}],
    }  # fmt: skip
    base = RunRecord.model_validate(minimal)
    cand = RunRecord.model_validate(record({"home": {"doors/c0": "F"}}))
    result = compare_runs(base, cand, policy())
    assert result.suites[0].cases[0].classification == "regressed"
    assert result.baseline.source == "file" and result.baseline.date == "2025-01-01T00:00:00Z"


def test_single_run__no_missing_baseline_reason_but_floor_applies(record, cases) -> None:
    doc = record({"home": cases("doors", 5, "P") | cases("lights", 5, "F")})
    result = single_run(doc, policy(min_pass_rate=0.9))
    assert (result.mode, result.verdict, kinds(result)) == ("single_run", "failed", ["floor"])
    clean = single_run(record({"home": cases("doors", 5, "P")}), policy())
    assert (clean.verdict, clean.outcome, clean.reasons) == ("no-baseline", "pass", [])


def test_comparison__json_dump_carries_exit_code_and_round_trips(record, cases) -> None:
    doc = record({"home": cases("doors", 3, "P")})
    result = compare(doc, doc)
    data = result.model_dump(mode="json")
    assert data["exit_code"] == 0 and data["policy"]["sources"] == ["defaults"]
    assert Comparison.model_validate_json(result.model_dump_json(exclude={"exit_code"})).verdict == "passed"


@pytest.mark.parametrize(("test", "p_value"), [("per_case", 0.0), ("stratified", 2.0**-40)])
def test_compare__every_case_drops_the_same__tiny_p_value_still_fails(record, cases, test, p_value) -> None:
    base, cand = record({"home": cases("doors", 40, "PPP")}), record({"home": cases("doors", 40, "PPF")})
    result = compare(base, cand, test=test)
    suite = result.suites[0]
    assert suite.delta is not None and suite.delta.sd == 0.0
    assert suite.delta.p_adjusted == pytest.approx(p_value, abs=1e-300)  # stratified: (1/2)^40, by hand
    assert (result.verdict, kinds(result)) == ("failed", ["regression"])


def test_compare__gated_group_inconclusive_with_policy_pass__no_warning(record, cases) -> None:
    block = {"home": {"overrides": {"doors": {"on_inconclusive": "pass"}}, "on_inconclusive": "pass"}}
    base = record({"home": cases("doors", 10, "P") | cases("lights", 10, "P")}, gate=block)
    cand = record({"home": cases("doors", 9, "P") | {"doors/c9": "F"} | cases("lights", 10, "P")}, gate=block)
    result = compare(base, cand)
    doors = next(g for g in result.suites[0].groups if g.key == "doors")
    assert doors.gated and doors.verdict == "inconclusive"
    assert result.outcome == "pass" and result.exit_code == 0


def test_compare__listed_case_detail__leaves_out_only_quiet_stable_cases(record, cases) -> None:
    suites = {
        "home": cases("doors", 30, "PPP")
        | cases("lights", 20, "FFF")
        | {"doors/flaky": "PFP", "doors/drop": "PPP", "doors/rise": "FFF", "doors/err": "PPE"}
        | {"doors/gone": "PPP", "lights/crit": "PPP"}
    }
    base = record(suites, critical=("lights/crit",))
    changed = dict(suites["home"]) | {"doors/drop": "FFF", "doors/rise": "PPP", "doors/new": "PPP"}
    del changed["doors/gone"]
    cand = record({"home": changed}, critical=("lights/crit",))
    pol = policy()
    every = compare_documents(base, cand, pol, case_detail="all")
    listed = compare_documents(base, cand, pol, case_detail="listed")
    quiet = {"stable-pass", "stable-fail"}
    expected = [
        d.case_id
        for d in every.suites[0].cases
        if d.classification not in quiet or d.critical or (d.candidate and d.candidate.errors)
    ]
    assert [d.case_id for d in listed.suites[0].cases] == expected
    assert set(expected) == {
        "doors/drop",
        "doors/err",
        "doors/flaky",
        "doors/rise",
        "doors/new",
        "doors/gone",
        "lights/crit",
    }
    assert listed.suites[0].counts == every.suites[0].counts
    assert listed.suites[0].counts["stable-pass"] == 32 and listed.suites[0].counts["stable-fail"] == 20
    assert listed.model_dump(exclude={"suites": {0: {"cases"}}}) == every.model_dump(
        exclude={"suites": {0: {"cases"}}}
    )
    # a listed diff is the full one minus the usage delta, the baseline's output and the duration
    full = {d.case_id: d for d in every.suites[0].cases}
    for diff in listed.suites[0].cases:
        assert diff.usage is None and diff.baseline_output is None and diff.duration_s is None
        assert diff == full[diff.case_id].model_copy(
            update={"usage": None, "baseline_output": None, "duration_s": None}
        )
    assert full["doors/drop"].usage is not None  # recorded: every trial carries usage


def test_compare__listed_case_detail__every_report_of_it_unchanged(record, cases) -> None:
    suites = {
        "home": cases("doors", 30, "PPP") | {"doors/flaky": "PFP", "doors/drop": "PPP", "doors/err": "PPE"}
    }
    base = record(suites)
    cand = record({"home": dict(suites["home"]) | {"doors/drop": "FFF", "doors/flaky": "PFF"}})
    every = compare_documents(base, cand, policy(), case_detail="all")
    listed = compare_documents(base, cand, policy(), case_detail="listed")
    assert render_markdown(listed, budget="summary") == render_markdown(every, budget="summary")
    assert render_json(listed, env={}) == render_json(every, env={})
    assert render_terminal(listed) == render_terminal(every)


def _interrupted(doc: dict[str, Any]) -> dict[str, Any]:
    doc["run"]["complete"] = False
    return doc


@pytest.mark.parametrize(
    ("base", "cand", "flags", "verdict", "code"),
    [
        # a removed suite whose critical case passed in the baseline fails the gate: the verdict says so
        pytest.param(
            lambda r, c: r({"home": c("doors", 10, "P"), "sec": c("s", 3, "P")}, critical=("s/c0",)),
            lambda r, c: r({"home": c("doors", 10, "P")}),
            {},
            "failed",
            1,
            id="removed-suite-with-a-passing-critical-case",
        ),
        pytest.param(
            lambda r, c: r({"home": c("doors", 10, "P"), "sec": c("s", 3, "P")}, critical=("s/c0",)),
            lambda r, c: r({"home": c("doors", 10, "P")}),
            {"critical": "warn"},
            "passed",
            0,
            id="the-same-under-critical-warn",
        ),
        # cases an interrupted baseline lacks, under on_missing_baseline: fail
        pytest.param(
            lambda r, c: _interrupted(r({"home": c("doors", 5, "P")})),
            lambda r, c: r({"home": c("doors", 10, "P")}),
            {"on_missing_baseline": "fail"},
            "no-baseline",
            1,
            id="partial-baseline-under-fail",
        ),
        pytest.param(
            lambda r, c: _interrupted(r({"home": c("doors", 5, "P")})),
            lambda r, c: r({"home": c("doors", 10, "P")}),
            {},
            "passed",
            0,
            id="partial-baseline-under-warn",
        ),
    ],
)
def test_compare__verdict_never_passed_when_the_gate_fails(
    record, cases, base: Any, cand: Any, flags: dict[str, Any], verdict: str, code: int
) -> None:
    result = compare(base(record, cases), cand(record, cases), **flags)
    assert (result.verdict, result.exit_code) == (verdict, code)
    assert json.loads(render_json(result))["verdict"] == verdict  # what the action's `status` reports


# -- a pull request cannot dilute the base side's tests -------------------------------------------------

SIX_GROUPS = {f"g{g}/c{i}": "P" for g in range(6) for i in range(4)}
ONE_DOWN_IN_EACH = SIX_GROUPS | {f"g{g}/c0": "F" for g in range(6)}  # 6 flips: McNemar p = 1/64


def _layer(block: dict[str, Any], source: str) -> Layer:
    return Layer(source=source, block=parse_block(block, source=source))


GATE_ALL = {"overrides": {"tiny/*": {}}}
"""Gates every group of the suite and sets no knob: a tightening by the floor's rules."""


@pytest.mark.parametrize(
    ("base_gates", "pr_gates", "floored", "suite_p", "verdict"),
    [
        pytest.param(False, False, True, 1 / 64, "failed", id="nothing-gated"),
        # the groups the pull request gates are tested in a family of their own: the suite keeps its p
        pytest.param(False, True, True, 1 / 64, "failed", id="pr-gates-every-group"),
        # the groups the base side gates share the suite's family: 7 tests, the suite's p times 7
        pytest.param(True, False, True, 7 / 64, "inconclusive", id="base-gates-every-group"),
        pytest.param(True, True, True, 7 / 64, "inconclusive", id="both-gate-every-group"),
        # no base side (your own `compare`): one family, as the policy says
        pytest.param(False, True, False, 7 / 64, "inconclusive", id="compare-without-a-floor"),
    ],
)
def test_compare__groups_only_the_pull_request_gates__own_family_never_dilute_the_suites_test(
    record, base_gates: bool, pr_gates: bool, floored: bool, suite_p: float, verdict: str
) -> None:
    own = Policy(layers=[_layer(GATE_ALL, "pull request")] if pr_gates else [])
    base = Policy(layers=[_layer(GATE_ALL, "base")] if base_gates else [])
    pol = own.model_copy(update={"floor": base}) if floored else own
    result = compare_documents(record({"tiny": SIX_GROUPS}), record({"tiny": ONE_DOWN_IN_EACH}), pol)
    [suite] = result.suites
    assert suite.delta is not None and suite.delta.p_adjusted == pytest.approx(suite_p)
    assert sum(g.gated for g in suite.groups) == (6 if base_gates or pr_gates else 0)
    assert (result.verdict, result.exit_code) == (verdict, 1 if verdict == "failed" else 0)


@pytest.mark.parametrize(("floored", "suite_p"), [(True, 1 / 64), (False, 2 / 64)], ids=["pr", "compare"])
def test_compare__cases_the_pull_request_renamed__tested_in_their_own_family_on_a_pull_request(
    record, floored: bool, suite_p: float
) -> None:
    # ten cases of another suite renamed, five passing and five failing as before: their test (no
    # drop) could reach alpha, so in one family it would halve the evidence of the suite that dropped
    other = {f"o/c{i}": "P" if i < 10 else "F" for i in range(20)}
    kept = {f"o/c{i}": "P" if i < 5 else "F" for i in (*range(5), *range(10, 15))}
    renamed = kept | {f"o/n{i}": "P" if i < 5 else "F" for i in range(10)}
    base = record({"tiny": SIX_GROUPS, "other": other})
    cand = record({"tiny": ONE_DOWN_IN_EACH, "other": renamed})
    pol = Policy(layers=[]).model_copy(update={"floor": Policy(layers=[])}) if floored else Policy(layers=[])
    result = compare_documents(base, cand, pol)
    tiny = next(s for s in result.suites if s.suite_id == "tiny")
    other_suite = next(s for s in result.suites if s.suite_id == "other")
    renames = other_suite.renamed
    assert renames is not None and renames.delta == 0.0 and renames.p_floor < 0.05 < renames.p_value
    assert tiny.delta is not None and tiny.delta.p_adjusted == pytest.approx(suite_p)
