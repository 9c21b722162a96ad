"""BenchmarkResult: micro/macro and breakdown rates, pass@k/pass^k, std, Markdown and run-record suite."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from agent_evals.benchmark.result import (
    BenchmarkResult,
    CaseOutcome,
    TrialOutcome,
    pass_at_k,
    pass_hat_k,
)
from agent_evals.core.types import Score
from agent_evals.record.model import Suite


def _trial(passed: bool | None, name: str = "StateMatch", **meta: object) -> TrialOutcome:
    if passed is None:
        return TrialOutcome(passed=False, error="TimeoutError")
    score = Score(name=name, value=1.0 if passed else 0.0, passed=passed, metadata=dict(meta))
    return TrialOutcome(passed=passed, scores={name: score}, output="x" * 2000, duration_s=0.5)


def _case(cap: str, sid: str, outcomes: list[bool | None], **dims: str) -> CaseOutcome:
    return CaseOutcome(
        capability=cap,
        scenario_id=sid,
        prompt="p",
        dimensions=dims,
        file="b.yaml",
        line=3,
        trials=[_trial(o) for o in outcomes],
    )


def _result() -> BenchmarkResult:
    return BenchmarkResult(
        benchmark_id="home",
        source="b.yaml",
        agent_name="a",
        agent_version="1",
        runs_per_scenario=3,
        cases=[
            _case("lights", "1", [True, True, True], difficulty="easy"),
            _case("lights", "2", [True, False, None], difficulty="hard"),
            _case("lights", "3", [False, False, False], difficulty="hard"),
            _case("doors", "1", [True, True, True], difficulty="easy"),
        ],
        gate={"max_drop": 0.1},
        config={"runs_per_scenario": 3},
    )


def test_rates__micro_over_cases_macro_over_capabilities() -> None:
    result = _result()
    # case fractions: 1, 1/2 (errored trial excluded), 0, 1
    assert result.micro_pass_rate == pytest.approx((1 + 0.5 + 0 + 1) / 4)
    assert result.pass_rates_by_capability == {"lights": pytest.approx(0.5), "doors": 1.0}
    assert result.macro_pass_rate == pytest.approx(0.75)


def test_rates__by_dimension_and_by_scorer() -> None:
    result = _result()
    assert result.pass_rates_by_dimension == {"difficulty": {"easy": 1.0, "hard": pytest.approx(0.25)}}
    assert result.pass_rates_by_scorer == {"StateMatch": pytest.approx(0.625)}


def test_seed_view__eval_results_per_capability_macro_averaged_errors_count_as_failed() -> None:
    result = _result()
    assert (result.benchmark, result.config_path) == ("home", "b.yaml")
    per = result.eval_results
    assert list(per) == ["lights", "doors"]
    # lights: 9 trials, 4 passed (the errored one counts as failed); doors: 3 of 3
    assert per["lights"].pass_rates == {"StateMatch": pytest.approx(4 / 9)}
    assert per["lights"].summary["errored_examples"] == 1
    assert per["doors"].pass_rates == {"StateMatch": 1.0}
    assert result.aggregate_pass_rates == {"StateMatch": pytest.approx((4 / 9 + 1) / 2)}
    assert result.aggregate_scores == {"StateMatch": pytest.approx((4 / 9 + 1) / 2)}


def test_seed_view__nothing_scored__a_zero_key_never_an_empty_dict() -> None:
    result = BenchmarkResult(
        benchmark_id="b",
        source="b.yaml",
        agent_name=None,
        agent_version=None,
        runs_per_scenario=1,
        cases=[_case("c", "1", [None, None])],
    )
    assert result.aggregate_pass_rates == {"__no_scores__": 0.0}
    assert not all(v >= 0.9 for v in result.aggregate_pass_rates.values())


def test_write_report__markdown_file_named_after_the_benchmark(tmp_path: Path) -> None:
    path = _result().write_report(tmp_path / "results")
    assert path.parent == tmp_path / "results" and path.name.endswith("_home.md")
    assert path.read_text(encoding="utf-8") == _result().to_markdown()
    assert _result().write_report(tmp_path, filename="r.md") == tmp_path / "r.md"


def test_counts__errors_apart_from_failures() -> None:
    result = _result()
    assert (result.trial_count, result.error_count, result.failure_count) == (12, 1, 4)
    assert result.error_rate == pytest.approx(1 / 12)
    case = result.cases[1]
    assert (case.passes, case.valid, case.errors) == (1, 2, 1)


def test_case__std_across_valid_trials() -> None:
    assert _case("c", "1", [True, False]).std == pytest.approx(math.sqrt(0.5))
    assert _case("c", "1", [True, True, True]).std == 0.0
    assert _case("c", "1", [True]).std == 0.0


@pytest.mark.parametrize(
    ("n", "c", "k", "at", "hat"),
    [
        (3, 3, 3, 1.0, 1.0),
        (3, 0, 3, 0.0, 0.0),
        (3, 1, 2, 1 - 1 / 3, 0.0),
        (4, 2, 2, 1 - 1 / 6, 1 / 6),
        (5, 4, 1, 0.8, 0.8),
    ],
)
def test_pass_at_k_and_pass_hat_k__unbiased_estimators(n: int, c: int, k: int, at: float, hat: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(at)
    assert pass_hat_k(n, c, k) == pytest.approx(hat)


def test_result__pass_at_k_only_when_k_above_one_and_cases_with_too_few_valid_trials_skipped() -> None:
    result = _result()
    # case 2 has only 2 valid trials (< k=3): left out
    assert result.pass_at_k == pytest.approx(2 / 3)
    assert result.pass_hat_k == pytest.approx(2 / 3)
    result.runs_per_scenario = 1
    assert result.pass_at_k is None and result.pass_hat_k is None


def test_to_suite__case_ids_groups_locations_trials_and_gate() -> None:
    suite = _result().to_suite()
    assert isinstance(suite, Suite)
    assert (suite.id, suite.kind, suite.source, suite.gate) == (
        "home",
        "benchmark",
        "b.yaml",
        {"max_drop": 0.1},
    )
    assert (suite.agent.name, suite.agent.version) == ("a", "1")
    assert [c.id for c in suite.cases] == ["lights/1", "lights/2", "lights/3", "doors/1"]
    case = suite.cases[1]
    assert (case.group, case.dimensions, case.location.file, case.location.line) == (  # type: ignore[union-attr]
        "lights",
        {"difficulty": "hard"},
        "b.yaml",
        3,
    )
    assert [t.passed for t in case.trials] == [True, False, False]
    assert case.trials[2].error == "TimeoutError"
    assert case.trials[0].output == "x" * 2000  # whole: below the record's one limit, record.trial.TEXT_LIMIT
    assert case.trials[0].scores["StateMatch"].passed is True
    assert len(suite.fingerprint) == 16


def test_to_suite__fingerprint_changes_with_agent_version() -> None:
    first = _result()
    second = _result()
    second.agent_version = "2"
    assert first.to_suite().fingerprint != second.to_suite().fingerprint


def test_to_suite__state_failures_become_notes_expected_and_actual() -> None:
    failures = {
        "lights.kitchen.state": {"expected": "on", "actual": "off"},
        "x": {"expected": 1, "actual": None, "reason": "path missing"},
    }
    case = CaseOutcome(capability="c", scenario_id="1", prompt="p", trials=[_trial(False, failures=failures)])
    result = BenchmarkResult(
        benchmark_id="b",
        source="b.yaml",
        agent_name=None,
        agent_version=None,
        runs_per_scenario=1,
        cases=[case],
    )
    score = result.to_suite().cases[0].trials[0].scores["StateMatch"]
    assert score.notes == 'lights.kitchen.state: expected "on", got "off"; x: path missing'
    assert score.expected == '{"lights.kitchen.state": "on", "x": 1}'
    assert score.actual == '{"lights.kitchen.state": "off", "x": null}'


def test_to_run_record__one_suite_and_valid_schema() -> None:
    record = _result().to_run_record()
    assert record.schema_ == "agent-evals/run@1"
    assert [s.id for s in record.suites] == ["home"]
    assert record.run.complete is True


def test_to_markdown__names_micro_and_macro_and_lists_failing_cases() -> None:
    text = _result().to_markdown()
    assert "Pass rate, micro (mean over 4 cases): **62.5%**" in text
    assert "Pass rate, macro (mean over 2 capabilities): **75.0%**" in text
    assert "pass@3" in text and "pass^3" in text
    assert "### By difficulty" in text
    assert "`lights/3` 0/3 passed" in text
    assert "`lights/2` 1/3 passed" in text
    assert "`doors/1`" not in text


def test_to_markdown__seed_sections_and_passed_over_total_counts() -> None:
    text = _result().to_markdown()
    sections = [line for line in text.splitlines() if line.startswith("#")]
    assert sections[1:] == [
        "## Run info",
        "## Score",
        "## Breakdown",
        "### By capability",
        "### By difficulty",
        "### By scorer",
        "## Tasks",
        "### doors",
        "### lights",
        "## Failures",
    ]
    assert "| agent | a 1 |" in text and "| config | b.yaml |" in text
    assert "**7/12 (58.3%)** trials passed" in text  # the errored trial is not a pass
    rest = text.split("## Score")[1]
    breakdown = rest.split("### By capability")[1].split("###")[0]
    assert breakdown.index("doors") < breakdown.index("lights")  # alphabetical
    assert "| lights | 3 | 4/9 (44.4%) |" in breakdown and "| doors | 1 | 3/3 (100.0%) |" in breakdown
    assert "| hard | 1/6 (16.7%) |" in text


def test_to_markdown__agent_without_name__no_agent_row() -> None:
    result = _result()
    result.agent_name, result.agent_version = "", None
    assert "| agent |" not in result.to_markdown().split("## Score")[0]


def test_to_markdown__tasks_over_several_trials__passed_errored_pass_pct_and_std_per_scenario() -> None:
    tasks = _result().to_markdown().split("## Tasks")[1].split("## Failures")[0]
    lights = tasks.split("### lights")[1]
    assert "| Scenario | Name | difficulty | Passed | Errored | Pass% | Std |" in lights
    # the errored trial is left out of Pass% (1 of 2 verdicts) but not out of Passed (1 of 3 trials)
    assert "| 2 |  | hard | 1/3 | 1 | 50.0% | 0.71 |" in lights
    assert "| 3 |  | hard | 0/3 | 0 | 0.0% | 0.00 |" in lights
    assert lights.count("| hard |") == 2 and tasks.index("### doors") < tasks.index("### lights")


def test_to_markdown__tasks_of_one_trial__pass_fail_or_error_and_duration() -> None:
    result = BenchmarkResult(
        benchmark_id="b",
        source="b.yaml",
        agent_name=None,
        agent_version=None,
        runs_per_scenario=1,
        cases=[_case("c", "1", [True]), _case("c", "2", [False]), _case("c", "3", [None])],
    )
    result.cases[0].name = "kitchen | on"
    tasks = result.to_markdown().split("## Tasks")[1].split("## Failures")[0]
    assert "| Scenario | Name | Result | Duration |" in tasks
    assert "| 1 | kitchen \\| on | PASS | 0.50 s |" in tasks  # a pipe in a name cannot break the table
    assert "| 2 |  | FAIL | 0.50 s |" in tasks
    assert "| 3 |  | ERROR | 0.00 s |" in tasks


def test_to_markdown__tasks__long_capability_listed_up_to_the_limit_then_counted() -> None:
    from agent_evals.benchmark.markdown import MAX_TASK_ROWS

    cases = [_case("c", str(i), [True]) for i in range(MAX_TASK_ROWS + 7)]
    result = BenchmarkResult(
        benchmark_id="b",
        source="b.yaml",
        agent_name=None,
        agent_version=None,
        runs_per_scenario=1,
        cases=cases,
    )
    tasks = result.to_markdown().split("## Tasks")[1].split("## Failures")[0]
    assert tasks.count("| PASS |") == MAX_TASK_ROWS
    assert "… and 7 more scenarios" in tasks


def test_seed_view__example_metadata__the_seeds_keys_and_each_dimension() -> None:
    result = _result()
    result.cases[1].name = "bedroom off"
    examples = result.eval_results["lights"].examples
    second_trial = examples[4]  # lights/2, trial 1
    assert second_trial.metadata == {
        "difficulty": "hard",
        "case_id": "lights/2",
        "trial": 1,
        "capability": "lights",
        "dimensions": {"difficulty": "hard"},
        "scenario_id": 2,  # an id written as a number is one here, as in the seed
        "scenario_name": "bedroom off",
        "run_index": 1,
    }


@pytest.mark.parametrize(
    ("sid", "shown"), [("1", 1), ("12", 12), ("007", "007"), ("kitchen", "kitchen"), ("1e3", "1e3")]
)
def test_seed_view__scenario_id__a_number_only_when_written_as_one(sid: str, shown: int | str) -> None:
    result = BenchmarkResult(
        benchmark_id="b",
        source="b.yaml",
        agent_name=None,
        agent_version=None,
        runs_per_scenario=1,
        cases=[_case("c", sid, [True])],
    )
    assert result.eval_results["c"].examples[0].metadata["scenario_id"] == shown
