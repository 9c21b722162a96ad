"""A case's counts taken from the summary walk's key are the counts ``case_stats`` gives the case."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.record.case_stats import case_stats, key_stats
from agent_evals.record.summary import add_cases
from agent_evals.record.views import SuiteView

PASS = {"passed": True, "scores": {"s": {"passed": True}}}
FAIL = {"passed": False, "scores": {"s": {"passed": False}}}
ERROR = {"passed": False, "error": "RuntimeError: down"}
NUMERIC = {"passed": False, "graded": False, "scores": {"n": {"value": 0.4}}}
ODD = {"passed": True, "graded": False}  # ungraded yet marked passed: neither counts it as a pass

TRIALS: dict[str, list[dict[str, Any]]] = {
    "no-trials": [],
    "one-pass": [PASS],
    "one-fail": [FAIL],
    "errored-only": [ERROR, ERROR],
    "numeric-only": [NUMERIC],
    "mixed": [PASS, FAIL, ERROR, NUMERIC, PASS],
    "ungraded-marked-passed": [ODD, PASS],
}


@pytest.mark.parametrize("trials", list(TRIALS.values()), ids=list(TRIALS))
def test_key_stats__the_walks_key_of_a_case__the_counts_case_stats_gives(
    trials: list[dict[str, Any]],
) -> None:
    case = {"id": "c", "group": "g", "trials": trials}
    view = SuiteView()
    add_cases(view, [case])
    assert key_stats(view.cases["c"].key, len(trials)) == case_stats(case)
