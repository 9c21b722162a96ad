"""gate.confirm: flipped cases picked, trials merged, alpha spent over two looks, outcomes labelled."""

from __future__ import annotations

from collections import Counter

import pytest

from agent_evals.gate.confirm import flipped_cases, spent
from agent_evals.gate.policy import resolve_policy


def test_confirm__flaky_cases_are_labelled_in_every_report(record) -> None:
    from collections.abc import Sequence

    from agent_evals.gate.compare import compare_runs
    from agent_evals.gate.confirm import confirm
    from agent_evals.gate.policy import resolve_policy
    from agent_evals.record.model import RunRecord
    from agent_evals.report.html import render_html
    from agent_evals.report.markdown import render_markdown
    from agent_evals.report.terminal import render_terminal
    from agent_evals.report.verdict_json import render_json

    base = RunRecord.model_validate(record({"home": {f"g/c{i}": "P" for i in range(20)}}))
    cand = RunRecord.model_validate(record({"home": {f"g/c{i}": "F" if i < 6 else "P" for i in range(20)}}))
    policy = resolve_policy(repo_config=None, suite_blocks={}, overrides={})
    first = compare_runs(base, cand, policy)
    assert first.outcome == "fail"

    def rerun(_suite: str, case_id: str, trials: int) -> RunRecord:
        doc = record({"home": {case_id: "P" * trials}})
        return RunRecord.model_validate(doc)

    def again(candidate: RunRecord, pol: object) -> object:
        return compare_runs(base, candidate, pol)  # type: ignore[arg-type]

    result = confirm(first, cand, policy, trials=4, rerun=rerun, compare=again)  # type: ignore[arg-type]
    assert result.outcome == "warn"
    assert result.suites[0].confirm_flaky == [f"g/c{i}" for i in range(6)]
    texts: Sequence[str] = (
        render_terminal(result),
        render_markdown(result),
        render_html(result),
        render_json(result),
    )
    for text in texts:
        assert "not confirmed: flaky" in text
        assert "g/c5" in text


def test_spent__halves_alpha_over_the_two_looks() -> None:
    policy = resolve_policy(repo_config=None, suite_blocks={}, overrides={"alpha": 0.1})
    assert spent(policy).effective.alpha == 0.05
    assert spent(policy).sources[-1] == "confirm (alpha spent over two looks)"


def test_flipped_cases__only_dropped_cases_of_failing_or_inconclusive_suites(record) -> None:
    from agent_evals.gate.compare import compare_documents

    base = record({"a": {f"g/c{i}": "P" for i in range(20)}, "b": {f"g/c{i}": "P" for i in range(20)}})
    cand = record(
        {
            "a": {f"g/c{i}": "F" if i < 6 else "P" for i in range(20)},
            "b": {f"g/c{i}": "P" for i in range(20)},
        }
    )
    result = compare_documents(base, cand, resolve_policy(repo_config=None, suite_blocks={}, overrides={}))
    assert Counter({s.suite_id: s.verdict for s in result.suites}.values()) == Counter(
        {"failed": 1, "passed": 1}
    )
    assert flipped_cases(result) == {"a": [f"g/c{i}" for i in range(6)]}


# confirm trials each flipped case gets -> the outcome, words the reports must hold, words they must not
CONFIRM_RUNS: dict[str, tuple[str, str, str, str]] = {
    "every re-run errored: no evidence, the first look stands": (
        "EEEE",
        "fail",
        "confirm run errored: 24 of 24 trials errored; no evidence",
        "flaky",
    ),
    "the drop does not hold: flaky, a warning": ("PPPP", "warn", "not confirmed: flaky", "errored"),
    "some re-runs errored: judged on the others (flaky); the errors count in the error budget": (
        "EPPPPPPP",
        "fail",
        "not confirmed: flaky",
        "no evidence",
    ),
    "the drop holds: confirmed": ("FFFF", "fail", "confirmed: the drop holds", "flaky"),
}


@pytest.mark.parametrize("row", list(CONFIRM_RUNS.values()), ids=list(CONFIRM_RUNS))
def test_confirm__what_the_confirm_run_saw__decides_and_is_said(
    row: tuple[str, str, str, str], record
) -> None:
    from agent_evals.gate.compare import compare_runs
    from agent_evals.gate.confirm import confirm
    from agent_evals.record.model import RunRecord
    from agent_evals.report.markdown import render_markdown
    from agent_evals.report.terminal import render_terminal

    codes, outcome, said, unsaid = row
    base = RunRecord.model_validate(record({"home": {f"g/c{i}": "P" for i in range(20)}}))
    cand = RunRecord.model_validate(record({"home": {f"g/c{i}": "F" if i < 6 else "P" for i in range(20)}}))
    policy = resolve_policy(repo_config=None, suite_blocks={}, overrides={})
    first = compare_runs(base, cand, policy)
    assert first.outcome == "fail"

    def rerun(_suite: str, case_id: str, trials: int) -> RunRecord:
        return RunRecord.model_validate(record({"home": {case_id: codes[:trials]}}))

    def again(candidate: RunRecord, pol: object) -> object:
        return compare_runs(base, candidate, pol)  # type: ignore[arg-type]

    result = confirm(first, cand, policy, trials=len(codes), rerun=rerun, compare=again)  # type: ignore[arg-type]
    assert result.outcome == outcome
    [reason] = [r for r in result.reasons if r.kind == "confirm"]
    assert said in reason.message and unsaid not in reason.message
    assert (result.suites[0].confirm_flaky != []) == ("flaky" in said)
    for text in (render_terminal(result), render_markdown(result)):
        assert said in " ".join(text.split())
