"""Per-case classification (trial-aware) and per-case evidence."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.gate.align import CaseView, classify
from agent_evals.gate.diffs import case_diff
from unit.record.summaries import view_of


def view_cases(suite: dict[str, Any]) -> dict[str, CaseView]:
    return view_of(suite).cases


def side(codes: str, cid: str = "g/c") -> CaseView:
    trials = [{"passed": c == "P", "error": "boom" if c == "E" else None} for c in codes]
    return view_cases({"cases": [{"id": cid, "group": "g", "trials": trials}]})[cid]


@pytest.mark.parametrize(
    ("base", "cand", "expected"),
    [
        ("P", "P", "stable-pass"),
        ("F", "F", "stable-fail"),
        ("P", "F", "regressed"),
        ("F", "P", "improved"),
        ("PPP", "PPP", "stable-pass"),
        ("PPP", "FFF", "regressed"),
        ("FFF", "PPP", "improved"),
        ("PPF", "PPP", "flaky"),
        ("PPP", "PFF", "flaky"),
        ("FFF", "FFP", "flaky"),
        ("PPE", "PPP", "stable-pass"),  # an errored trial is left out, not a failure
        ("PPP", "PFE", "flaky"),
        ("P", "E", "errored"),
        ("EEE", "PPP", "errored"),
        (None, "P", "new"),
        ("P", None, "removed"),
    ],
)
def test_classify__trial_aware_table(base: str | None, cand: str | None, expected: str) -> None:
    b = side(base) if base is not None else None
    c = side(cand) if cand is not None else None
    assert classify(b, c) == expected


def test_view_cases__counts_passes_errors_and_fraction() -> None:
    view = side("PFEP")
    assert view.key == (4, 2, 1)
    assert view.fraction == pytest.approx(2 / 3)


def test_view_cases__all_errored__no_fraction() -> None:
    assert side("EE").fraction is None


def test_case_diff__regressed__failing_scorer_evidence_location_and_usage() -> None:
    base_raw = {
        "id": "g/c",
        "group": "g",
        "trials": [{"passed": True, "output": "closed", "usage": {"cost_usd": 0.5}}],
    }
    cand_raw = {
        "id": "g/c",
        "group": "g",
        "name": "Close the door",
        "input": "close it",
        "location": {"file": "home.yaml", "line": 12},
        "trials": [
            {
                "passed": False,
                "output": "opened",
                "usage": {"cost_usd": 0.75},
                "scores": {"state": {"passed": False, "value": 0.0, "expected": "closed", "actual": "open"}},
            }
        ],
    }
    base = view_cases({"cases": [base_raw]})["g/c"]
    cand = view_cases({"cases": [cand_raw]})["g/c"]
    diff = case_diff("home", base, cand, classify(base, cand))
    assert diff.classification == "regressed"
    assert diff.location == "home.yaml:12"
    assert [(f.name, f.expected, f.actual) for f in diff.failing_scorers] == [("state", "closed", "open")]
    assert (diff.output, diff.baseline_output, diff.input) == ("opened", "closed", "close it")
    assert diff.usage is not None and diff.usage.delta is not None
    assert diff.usage.delta.cost_usd == pytest.approx(0.25)
    assert diff.delta == -1.0


def test_view_cases__ungraded_trials__left_out_of_the_fraction() -> None:
    trials = [{"passed": True}, {"passed": False, "graded": False}, {"passed": False}]
    view = view_cases({"cases": [{"id": "g/c", "group": "g", "trials": trials}]})["g/c"]
    assert view.key == (2, 1, 0) and view.fraction == 0.5


def test_classify__no_graded_trial_on_either_side__ungraded_not_errored() -> None:
    numeric = [{"passed": False, "graded": False}]
    suite = {"cases": [{"id": "g/c", "group": "g", "trials": numeric}]}
    view = view_cases(suite)["g/c"]
    assert classify(view, view) == "ungraded"
