"""The response cache's folder store: keys, atomic entries, torn files, the trial scope it reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_evals.adapters.cache.keys import request_digest
from agent_evals.adapters.cache.store import ResponseCache
from agent_evals.calls.scope import active_cache, cache_active, close_scope, current_scope, open_scope
from agent_evals.errors import CacheMiss


@pytest.mark.parametrize(
    ("a", "b"),
    [(("ab", "c"), ("a", "bc")), (("POST", "u", b"{}"), ("POST", "u", b"{} ")), (("x",), ("x", ""))],
)
def test_request_digest__differs_whenever_the_parts_differ(a: tuple[str, ...], b: tuple[str, ...]) -> None:
    assert request_digest(*a) != request_digest(*b)
    assert request_digest(*a) == request_digest(*a)


def _record(folder: Path, trial: int, body: str) -> None:
    cache = ResponseCache("record", folder)
    with cache_active(cache):
        scope, token = open_scope(trial)
        try:
            found_scope, plan = cache.lookup("http", "d1", "POST /x")
            assert found_scope is scope and plan == {"occurrence": 0}
            cache.store("http", "d1", scope, 0, {"response": {"body": body}})  # type: ignore[arg-type]
        finally:
            close_scope(token)


def _replay(folder: Path, trial: int) -> tuple[object, object]:
    cache = ResponseCache("replay", folder)
    with cache_active(cache):
        _, token = open_scope(trial)
        try:
            return cache.lookup("http", "d1", "POST /x")
        finally:
            close_scope(token)


def test_store__an_entry_replays_in_its_own_trial_only(tmp_path: Path) -> None:
    _record(tmp_path, 0, "zero")
    scope, entry = _replay(tmp_path, 0)
    assert getattr(scope, "replayed", None) == 1
    assert isinstance(entry, dict) and entry["response"] == {"body": "zero"}
    with pytest.raises(CacheMiss, match=r"trial 1, call 1"):
        _replay(tmp_path, 1)
    assert [p.suffix for p in tmp_path.iterdir()] == [".json"]  # no temp file left behind


@pytest.mark.parametrize("content", ["{not json", '{"schema": "someone-else@1"}', "[]"])
def test_store__a_torn_or_foreign_entry_is_a_miss_never_an_answer(tmp_path: Path, content: str) -> None:
    _record(tmp_path, 0, "zero")
    [entry] = tmp_path.iterdir()
    entry.write_text(content, encoding="utf-8")
    with pytest.raises(CacheMiss):
        _replay(tmp_path, 0)


def test_trial_scope__only_while_a_cache_is_active_and_restored_after(tmp_path: Path) -> None:
    assert open_scope(0) == (None, None) and active_cache() is None
    cache = ResponseCache("record", tmp_path)
    with cache_active(cache):
        assert active_cache() is cache
        scope, token = open_scope(3)
        assert current_scope() is scope and scope is not None and scope.trial == 3
        close_scope(token)
        assert current_scope() is None
    assert active_cache() is None


def test_trial_scope__counts_identical_requests_per_attempt(tmp_path: Path) -> None:
    with cache_active(ResponseCache("record", tmp_path)):
        scope, token = open_scope(0)
        assert scope is not None
        assert [scope.occurrence("k"), scope.occurrence("k"), scope.occurrence("j")] == [0, 1, 0]
        close_scope(token)
        again, token = open_scope(0)
        assert again is not None and again.occurrence("k") == 0
        close_scope(token)


def _store_at(folder: Path, trial: int, occurrence: int, body: str) -> None:
    cache = ResponseCache("record", folder)
    with cache_active(cache):
        scope, token = open_scope(trial)
        try:
            assert scope is not None
            cache.store("http", "d1", scope, occurrence, {"response": {"body": body}})
        finally:
            close_scope(token)


def _replay_call(folder: Path, trial: int, call: int) -> object:
    """What replay answers for the ``call``-th (1-based) identical request of trial ``trial``."""
    cache = ResponseCache("replay", folder)
    with cache_active(cache):
        scope, token = open_scope(trial)
        try:
            assert scope is not None
            for _ in range(call - 1):
                scope.occurrence("http:d1")  # the earlier identical calls of this trial
            return cache.lookup("http", "d1", "POST /x")[1]
        finally:
            close_scope(token)


@pytest.mark.parametrize(
    ("recorded", "asked"),
    [((11, 2), (1, 12)), ((1, 12), (11, 2)), ((1, 0), (10, 0)), ((0, 10), (0, 1)), ((2, 0), (0, 2))],
    ids=["t11c2-vs-t1c12", "t1c12-vs-t11c2", "t1-vs-t10", "c10-vs-c1", "swapped"],
)
def test_store__trial_and_occurrence_never_collide_across_digits(
    tmp_path: Path, recorded: tuple[int, int], asked: tuple[int, int]
) -> None:
    _store_at(tmp_path, *recorded, body="theirs")
    with pytest.raises(CacheMiss):
        _replay_call(tmp_path, asked[0], asked[1] + 1)
    entry = _replay_call(tmp_path, recorded[0], recorded[1] + 1)
    assert isinstance(entry, dict) and entry["response"] == {"body": "theirs"}


def test_store__an_entry_file_moved_under_another_trials_name__is_a_miss(tmp_path: Path) -> None:
    _store_at(tmp_path, 0, 0, body="trial zero")
    [entry] = tmp_path.iterdir()
    _store_at(tmp_path, 1, 0, body="trial one")
    other = next(p for p in tmp_path.iterdir() if p != entry)
    entry.replace(other)  # trial 0's answer now sits where trial 1's belongs
    with pytest.raises(CacheMiss):
        _replay_call(tmp_path, 1, 1)
