"""The run builder follows a running benchmark, so an interrupted run keeps its finished cases."""

from __future__ import annotations

from agent_evals.benchmark.result import BenchmarkResult, CaseOutcome, TrialOutcome
from agent_evals.run.session import RunBuilder


def _live(*trials_per_case: int, complete: bool = False) -> BenchmarkResult:
    cases = [
        CaseOutcome(
            capability="talk",
            scenario_id=f"s{i}",
            prompt="hi",
            trials=[TrialOutcome(passed=False, error='401 for "tok-123456"') for _ in range(n)],
        )
        for i, n in enumerate(trials_per_case)
    ]
    return BenchmarkResult(
        benchmark_id="patience",
        source="bench.yaml",
        agent_name="slow",
        agent_version=None,
        runs_per_scenario=2,
        cases=cases,
        complete=complete,
    )


def test_record__interrupted_benchmark__keeps_cases_with_finished_trials_redacted() -> None:
    builder = RunBuilder(env={"SERVICE_TOKEN": "tok-123456"})
    builder.add_benchmark(_live(2, 1, 0))
    record = builder.record(complete=False)
    assert record.run.complete is False
    [suite] = record.suites
    assert [(c.id, len(c.trials)) for c in suite.cases] == [("talk/s0", 2), ("talk/s1", 1)]
    assert suite.cases[0].trials[0].error == '401 for "***"'


def test_record__interrupted_before_any_trial__leaves_the_benchmark_out() -> None:
    builder = RunBuilder(env={})
    builder.add_benchmark(_live(0, 0))
    assert builder.record(complete=False).suites == []


def test_record__finished_benchmark__holds_every_case() -> None:
    builder = RunBuilder(env={})
    builder.add_benchmark(_live(2, 2, complete=True))
    record = builder.record(complete=True)
    assert record.run.complete is True
    assert [len(c.trials) for c in record.suites[0].cases] == [2, 2]
