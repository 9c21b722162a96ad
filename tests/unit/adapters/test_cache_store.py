"""The response cache's folder store: keys, atomic entries, torn files, the trial scope it reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_evals.adapters.cache.keys import request_digest
from agent_evals.adapters.cache.store import ResponseCache
from agent_evals.core.trial_scope import active_cache, cache_active, close_scope, current_scope, open_scope
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
