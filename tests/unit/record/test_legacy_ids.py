"""Baselines written before eval suite ids were relative to the project root still match: their ids
(relative to that run's working directory) are read as the candidate's new ones."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.gate.compare import compare_documents
from agent_evals.gate.policy import resolve_policy
from agent_evals.record.legacy_ids import same_file


def record(suites: dict[str, str], *, new_ids: bool) -> dict[str, Any]:
    """Eval suites by id; each case's trial codes (P pass, F fail) are the suite's string, one case per code."""
    run: dict[str, Any] = {"tool_version": "0.1.0", "started_at": "2026-01-01T00:00:00Z"}
    if new_ids:
        run["suite_ids"] = "project-root"
    return {
        "schema": "agent-evals/run@1",
        "run": run,
        "suites": [
            {
                "id": sid,
                "kind": "evals",
                "source": sid,
                "cases": [
                    {"id": f"{sid}::test_{i}", "group": "g", "trials": [{"passed": code == "P"}]}
                    for i, code in enumerate(codes)
                ],
            }
            for sid, codes in suites.items()
        ],
    }


POLICY = resolve_policy(repo_config=None, suite_blocks={}, overrides={})


@pytest.mark.parametrize(
    "old", ["eval_support.py", "evals/eval_support.py", "/ci/work/repo/evals/eval_support.py"]
)
def test_compare__old_style_baseline_ids__paired_with_the_new_ones(old: str) -> None:
    base = record({old: "P" * 40}, new_ids=False)
    cand = record({"evals/eval_support.py": "P" * 40}, new_ids=True)
    result = compare_documents(base, cand, POLICY)
    suite = result.suites[0]
    assert (suite.suite_id, suite.added_case_ids, suite.removed_case_ids) == ("evals/eval_support.py", [], [])
    assert result.removed_suite_ids == [] and result.verdict == "passed"


def test_compare__old_style_baseline__a_regression_in_the_mapped_suite_still_fails() -> None:
    base = record({"eval_support.py": "P" * 40}, new_ids=False)
    cand = record({"evals/eval_support.py": "P" * 20 + "F" * 20}, new_ids=True)
    assert compare_documents(base, cand, POLICY).verdict == "failed"


def test_compare__two_new_suites_could_be_the_old_one__no_guess() -> None:
    base = record({"eval_support.py": "P" * 5, "x/eval_common.py": "P"}, new_ids=False)
    cand = record(
        {"a/eval_support.py": "P" * 5, "b/eval_support.py": "P" * 5, "x/eval_common.py": "P"}, new_ids=True
    )
    result = compare_documents(base, cand, POLICY)
    assert result.removed_suite_ids == ["eval_support.py"]


def test_compare__both_records_new_style__ids_taken_as_they_are() -> None:
    base = record({"eval_support.py": "P" * 5, "x/eval_common.py": "P"}, new_ids=True)
    cand = record({"evals/eval_support.py": "P" * 5, "x/eval_common.py": "P"}, new_ids=True)
    assert compare_documents(base, cand, POLICY).removed_suite_ids == ["eval_support.py"]


@pytest.mark.parametrize(
    ("old", "new", "same"),
    [
        ("eval_x.py", "evals/eval_x.py", True),
        ("repo/evals/eval_x.py", "evals/eval_x.py", True),
        ("val_x.py", "evals/eval_x.py", False),  # not at a folder boundary
        ("other/eval_x.py", "evals/eval_x.py", False),
    ],
)
def test_same_file__suffix_at_a_folder_boundary(old: str, new: str, same: bool) -> None:
    assert same_file(old, new) is same
