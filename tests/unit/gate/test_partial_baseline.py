"""A baseline that holds only part of a run (a shard, an interrupted run) never lets unchecked cases pass."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.gate.compare import compare_documents
from agent_evals.gate.model import Comparison
from agent_evals.gate.policy import resolve_policy


def compare(base: dict[str, Any], cand: dict[str, Any], **flags: Any) -> Comparison:
    return compare_documents(base, cand, resolve_policy(repo_config=None, suite_blocks={}, overrides=flags))


def partial(doc: dict[str, Any], how: str) -> dict[str, Any]:
    if how == "shard":
        doc["run"]["shard"] = {"index": 1, "count": 2}
    else:
        doc["run"]["complete"] = False
    return doc


HOWS = ["shard", "interrupted"]


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize(
    ("policy", "outcome", "code"), [("fail", "fail", 1), ("warn", "warn", 0), ("pass", "warn", 0)]
)
def test_compare__partial_baseline__cases_it_lacks_follow_on_missing_baseline(
    record, how: str, policy: str, outcome: str, code: int
) -> None:
    base = partial(record({"home": {f"g/c{i}": "P" for i in range(10)}}), how)  # half the suite
    # every case the baseline lacks fails now: nothing may call that a pass
    cand = record({"home": {f"g/c{i}": "P" if i < 10 else "F" for i in range(20)}})
    result = compare(base, cand, on_missing_baseline=policy)
    assert result.outcome == outcome
    assert result.exit_code == code
    reason = next(r for r in result.reasons if r.kind == "missing-baseline")
    assert "10 of its 20 cases" in reason.message
    assert ("shard 1/2" if how == "shard" else "interrupted") in reason.message
    assert reason.blocking is (policy == "fail")


@pytest.mark.parametrize("how", HOWS)
def test_compare__partial_baseline__regressions_in_the_cases_it_has_still_fail(record, how: str) -> None:
    base = partial(record({"home": {f"g/c{i}": "P" for i in range(30)}}), how)
    cand = record({"home": {**{f"g/c{i}": "F" if i < 12 else "P" for i in range(30)}, "g/extra": "P"}})
    result = compare(base, cand)
    assert result.outcome == "fail"
    assert "regression" in {r.kind for r in result.reasons}


@pytest.mark.parametrize("how", HOWS)
def test_compare__partial_baseline_with_every_candidate_case__no_missing_baseline_reason(
    record, how: str
) -> None:
    # an interrupted baseline that still ran every case the candidate has: nothing is unchecked
    base = partial(record({"home": {f"g/c{i}": "P" for i in range(10)}}), how)
    cand = record({"home": {f"g/c{i}": "P" for i in range(10)}})
    result = compare(base, cand)
    assert "missing-baseline" not in {r.kind for r in result.reasons}
    assert result.outcome == "warn"  # the note on the baseline still shows
