"""Breakdown rows counted the quick way (one pass per side, or from the paired counts) are the rows counted case by case."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.gate.breakdown import rows_by_cases, rows_by_group
from agent_evals.gate.policy import resolve_policy
from unit.record.summaries import view_of


@pytest.mark.parametrize("with_baseline", [True, False])
def test_rows_by_group__same_rows_as_rows_by_cases(record: Any, cases: Any, with_baseline: bool) -> None:
    base = record(
        {
            "s": cases("doors", 30, "PPP")
            | cases("lights", 12, "PFF")
            | cases("old", 5, "P")
            | {"doors/x": "EEE"}
        }
    )
    cand = record(
        {
            "s": cases("doors", 25, "PPF")
            | cases("lights", 12, "PPP")
            | cases("fresh", 4, "F")
            | {"doors/x": "PPE", "lights/y": "PP"}
        }
    )
    knobs = resolve_policy(repo_config=None, suite_blocks={}, overrides={}).knobs_for("s")
    b = view_of(base["suites"][0]) if with_baseline else None
    c = view_of(cand["suites"][0])
    expected = rows_by_cases("group", b, c, lambda _: knobs)
    got = rows_by_group(b, c, lambda _: knobs)
    assert [r.key for r in got] == ["doors", "fresh", "lights"] + (["old"] if with_baseline else [])
    assert [r.model_dump() for r in got] == [r.model_dump() for r in expected]


# A suite of varied cases (each trial string is one case's trials), and the changes the candidate
# brings; every case is on both sides, so the rows take their side counts from the paired counts.
TRIALS = ["PPP", "PPF", "PFF", "FFF", "PPE", "EEE", "PP", "P", "FPF", "PFP"]


def _suite(codes: list[str], dims: dict[str, str]) -> dict[str, Any]:
    from unit.gate.conftest import build_record

    ids = [f"g{i % 3}/c{i}" for i in range(len(codes))]
    record = build_record(
        {"s": dict(zip(ids, codes, strict=True))},
        dimensions={cid: {"tier": dims.get(cid, f"t{i % 2}")} for i, cid in enumerate(ids)},
    )
    suite: dict[str, Any] = record["suites"][0]
    return suite


def _shifted(codes: list[str]) -> list[str]:
    return codes[3:] + codes[:3]


@pytest.mark.parametrize(
    ("case_order", "moved_dimension", "baseline_scored_all"),
    [
        ("same", False, False),  # the usual run: both sides count from the pairs
        ("reversed", False, False),  # the baseline lists its cases in another order
        ("same", True, False),  # a case changed its dimension value: the baseline counts its own
        ("same", False, True),  # the scorer graded baseline cases whose candidate trials all errored
    ],
)
def test_rows__side_counts_from_the_paired_counts__same_as_counted_side_by_side(
    case_order: str, moved_dimension: bool, baseline_scored_all: bool
) -> None:
    from collections import Counter

    from agent_evals.gate.breakdown import marginals, scorer_rows
    from agent_evals.gate.paired import delta_stat, pairs_of_counts, rate_summary_of_counts

    codes = TRIALS * 3
    base_codes = [("PPP" if t == "EEE" else t) for t in codes] if baseline_scored_all else codes
    base_suite = _suite(base_codes, {"g1/c1": "t9"} if moved_dimension else {})
    cand_suite = _suite(_shifted(codes), {})
    if case_order == "reversed":
        base_suite["cases"].reverse()
    b, c = view_of(base_suite), view_of(cand_suite)
    knobs = resolve_policy(repo_config=None, suite_blocks={}, overrides={}).knobs_for("s")
    pairs = {cid: (b.cases[cid].key, view.key) for cid, view in c.cases.items()}

    got = rows_by_cases("dimension", b, c, lambda _: knobs, pairs)
    counted = rows_by_cases("dimension", b, c, lambda _: knobs)  # no pairs: each side counted
    assert [r.key for r in got] == sorted(
        {"tier=t0", "tier=t1"} | ({"tier=t9"} if moved_dimension else set())
    )
    assert [r.model_dump() for r in got] == [r.model_dump() for r in counted]

    # scorer rows, against counts made here of each side's tallies
    (row,) = scorer_rows(b, c, knobs)
    b_tally, c_tally = b.scorers["check"], c.scorers["check"]
    assert (c_tally.keys() <= b_tally.keys()) is baseline_scored_all  # which way scorer_rows goes
    sides = Counter((b_tally[i], t) for i, t in c_tally.items() if i in b_tally)
    assert row.baseline == rate_summary_of_counts(Counter(b_tally.values()))
    assert row.candidate == rate_summary_of_counts(Counter(c_tally.values()))
    expected = delta_stat(
        pairs_of_counts(sides), alpha=knobs.alpha, max_drop=knobs.max_drop, mid_p=knobs.mid_p, test=knobs.test
    )
    assert row.delta == expected
    assert marginals(Counter({((1, 1, 0), (2, 1, 0)): 2, ((2, 2, 0), (2, 1, 0)): 1})) == (
        Counter({(1, 1, 0): 2, (2, 2, 0): 1}),
        Counter({(2, 1, 0): 3}),
    )
