"""`run --shard i/n` slicing: a deterministic partition of the run's cases, balanced by trials."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_evals.errors import UsageError
from agent_evals.run.shard import Shard, Slicer, shard_key

Suites = list[tuple[str, list[tuple[str, int]]]]

suites_strategy = st.lists(
    st.tuples(
        st.text(min_size=1, max_size=8),
        st.lists(st.tuples(st.text(max_size=8), st.integers(1, 5)), max_size=25, unique_by=lambda c: c[0]),
    ),
    max_size=4,
    unique_by=lambda s: s[0],
)


def _deal(suites: Suites, count: int) -> list[dict[str, list[str]]]:
    """Each shard's case ids per suite, every shard dealt by its own Slicer as separate jobs would."""
    shards = []
    for index in range(1, count + 1):
        slicer = Slicer(Shard(index, count))
        shards.append({sid: [cases[i][0] for i in slicer.take(sid, cases, {})] for sid, cases in suites})
    return shards


@settings(max_examples=200, deadline=None)
@given(suites=suites_strategy, count=st.integers(1, 9))
def test_the_shards_partition_the_run__every_case_in_exactly_one_shard(suites: Suites, count: int) -> None:
    dealt = _deal(suites, count)
    for sid, cases in suites:
        got = [case_id for shard in dealt for case_id in shard[sid]]
        assert sorted(got) == sorted(c for c, _ in cases)


@settings(max_examples=200, deadline=None)
@given(suites=suites_strategy, count=st.integers(1, 9))
def test_shard_sizes_in_trials_differ_by_at_most_one_case(suites: Suites, count: int) -> None:
    trials = {(sid, c): t for sid, cases in suites for c, t in cases}
    dealt = _deal(suites, count)
    loads = [sum(trials[(sid, c)] for sid, ids in shard.items() for c in ids) for shard in dealt]
    largest = max(trials.values(), default=0)
    assert max(loads) - min(loads) <= largest


@settings(max_examples=100, deadline=None)
@given(cases=st.lists(st.text(max_size=6), max_size=40, unique=True), count=st.integers(1, 7))
def test_equal_trials__case_counts_differ_by_at_most_one(cases: list[str], count: int) -> None:
    dealt = _deal([("suite", [(c, 3) for c in cases])], count)
    sizes = [len(shard["suite"]) for shard in dealt]
    assert max(sizes) - min(sizes) <= 1


def test_positions_come_back_in_the_suite_order() -> None:
    cases = [(f"c{i}", 1) for i in range(10)]
    positions = Slicer(Shard(2, 3)).take("s", cases, {})
    assert positions == sorted(positions) and positions


def test_the_deal_ignores_pythons_salted_hash__same_slice_under_any_PYTHONHASHSEED() -> None:
    script = (
        "from agent_evals.run.shard import Shard, Slicer\n"
        "print(Slicer(Shard(2, 5)).take('suite', [(f'case-{i}', 1 + i % 3) for i in range(60)], {}))\n"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("0", "1", "12345")
    }
    assert len(outputs) == 1


def test_shard_key_is_sha256_of_suite_and_case_id() -> None:
    import hashlib

    assert shard_key("s", "c") == hashlib.sha256(b"s\0c").hexdigest()
    assert shard_key("s", "c") != shard_key("sc", "")


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1/4", Shard(1, 4)), ("4/4", Shard(4, 4)), (" 2 / 3 ", Shard(2, 3)), ("1/1", Shard(1, 1))],
)
def test_parse__accepts_index_over_count_counting_from_one(text: str, expected: Shard) -> None:
    assert Shard.parse(text) == expected


@pytest.mark.parametrize("text", ["0/4", "5/4", "1/0", "2", "a/b", "-1/4", "1/4/2", ""])
def test_parse__refuses_anything_else_naming_the_value(text: str) -> None:
    with pytest.raises(UsageError, match="--shard"):
        Shard.parse(text)
