"""Words that agree with the numbers: headlines, ungraded suites, fingerprint changes, pass@k, methods."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from agent_evals.gate.compare import compare_documents
from agent_evals.gate.model import Comparison
from agent_evals.gate.policy import resolve_policy
from agent_evals.report.headline import headline
from agent_evals.report.html import render_html
from agent_evals.report.markdown import render_markdown
from agent_evals.report.terminal import render_terminal
from agent_evals.report.verdict_json import render_json


def compare(base: dict[str, Any] | None, cand: dict[str, Any], **flags: Any) -> Comparison:
    return compare_documents(base, cand, resolve_policy(repo_config=None, suite_blocks={}, overrides=flags))


def every_report(result: Comparison) -> dict[str, str]:
    return {
        "terminal": " ".join(render_terminal(result, env={}).split()),  # wrapped to 80 columns
        "markdown": render_markdown(result, env={}),
        "html": render_html(result, env={}),
        "json": render_json(result, env={}),
    }


def flips(record, n: int, k: int, down: int) -> tuple[dict[str, Any], dict[str, Any]]:
    base = record({"home": {f"g/c{i}": "P" * k for i in range(n)}})
    cand = record({"home": {f"g/c{i}": ("F" if i < down else "P") * k for i in range(n)}})
    return base, cand


@pytest.mark.parametrize(
    ("n", "down", "max_drop", "words"),
    [
        (14, 4, 0.05, "4 cases regressed; not enough evidence at alpha 0.05"),
        (100, 2, 0.05, "2 cases regressed; within the tolerated drop"),
        (20, 5, 0.05, "5 regressions in 1 suite"),
    ],
)
def test_headline__never_says_no_regression_above_listed_regressed_cases(
    record, n: int, down: int, max_drop: float, words: str
) -> None:
    base, cand = flips(record, n, 1, down)
    result = compare(base, cand, max_drop=max_drop)
    assert words in headline(result)
    for name, text in every_report(result).items():
        assert "no regression" not in text, name


@pytest.mark.parametrize(
    ("base_codes", "outcome"),
    [("P", "fail"), ("U", "warn"), (None, "warn")],  # U: a trial with no pass/fail verdict
)
def test_compare__no_graded_trial_in_the_candidate__never_a_silent_pass(record, base_codes, outcome) -> None:
    def ungrade(doc: dict[str, Any], codes: str | None) -> dict[str, Any]:
        for case in doc["suites"][0]["cases"]:
            for t in case["trials"]:
                if codes == "U":
                    t.update(passed=False, graded=False, scores={})
        return doc

    cand = ungrade(record({"home": {f"g/c{i}": "U" for i in range(5)}}), "U")
    base = (
        None
        if base_codes is None
        else ungrade(record({"home": {f"g/c{i}": "P" for i in range(5)}}), base_codes)
    )
    result = compare(base, cand)
    assert result.outcome == outcome
    assert "ungraded" in [r.kind for r in result.reasons]
    assert any("none of its 5 cases has a graded trial" in r.message for r in result.reasons)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d["suites"][0]["agent"].update(version="2"), "Agent version differs"),
        (lambda d: d["run"].update(tool_version="9.9.9"), "agent-evals version differs"),
        (lambda d: d["suites"][0].update(source="other.yaml"), "Suite file differs"),
        (lambda d: d["suites"][0].update(fingerprint="other"), "configuration differs"),
    ],
)
@pytest.mark.parametrize(("on_mismatch", "outcome"), [("warn", "warn"), ("fail", "fail")])
def test_compare__fingerprint_changes_show_in_every_report_and_on_mismatch_decides(
    record, change, words: str, on_mismatch: str, outcome: str
) -> None:
    base = record({"home": {f"g/c{i}": "PPP" for i in range(10)}})
    cand = copy.deepcopy(base)
    change(cand)
    result = compare(base, cand, on_mismatch=on_mismatch)
    assert result.outcome == outcome
    assert result.exit_code == (1 if outcome == "fail" else 0)
    for name, text in every_report(result).items():
        assert words in text, name


def test_compare__alike_runs__no_fingerprint_reason(record) -> None:
    base = record({"home": {f"g/c{i}": "PPP" for i in range(10)}})
    result = compare(base, copy.deepcopy(base), on_mismatch="fail")
    assert (result.outcome, result.reasons) == ("pass", [])


def test_reports__pass_at_k_of_the_baseline_only_when_both_sides_ran_k_trials(record) -> None:
    base = record({"home": {f"g/c{i}": "PPF" for i in range(10)}})
    cand = record({"home": {f"g/c{i}": "PPFPP" for i in range(10)}})
    result = compare(base, cand)
    for name in ("markdown", "html"):
        text = every_report(result)[name]
        assert "pass@5" in text and "baseline" not in text.split("pass@5", 1)[1].split("pass^5", 1)[0], name
    same = compare(base, base)
    assert "(baseline" in render_markdown(same, env={}).split("pass@3", 1)[1]


def test_reason__says_why_interval_and_p_value_disagree(record) -> None:
    base, cand = flips(record, 14, 3, 2)  # significant by the trials, interval over cases spans zero
    result = compare(base, cand)
    suite = result.suites[0]
    assert suite.delta is not None and suite.delta.significant
    assert suite.delta.interval is not None and suite.delta.interval.high > 0
    assert "paired t interval over cases" in result.reasons[0].message
    agree = compare(*flips(record, 14, 3, 4))
    assert "paired t interval over cases" not in agree.reasons[0].message
