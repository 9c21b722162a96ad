"""The streaming record writer: after every append the file is a valid, incomplete record of what was written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agent_evals.record.read import read_record, read_summary
from agent_evals.record.stream import READ_BACK_BATCH, RecordWriter, partial_path
from agent_evals.schemas import load_run_schema

RUN = {"tool_version": "0", "started_at": "2026-01-01T00:00:00Z", "complete": False, "git": {}, "ci": {}}
DONE = {**RUN, "finished_at": "2026-01-01T00:01:00Z", "complete": True}


def _case(cid: str, passed: bool = True) -> bytes:
    case = {"id": cid, "group": "g", "trials": [{"passed": passed, "scores": {}, "duration_s": 0.1}]}
    return json.dumps(case).encode()


def _cases_in(path: Path) -> dict[str, list[str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(data, load_run_schema())
    read_summary(path)  # the gate's reader accepts it as it stands
    return {s["id"]: [c["id"] for c in s["cases"]] for s in data["suites"]}


# (suite, position, case id) appended in this order; the final record lists cases in plan order
APPENDS = {
    "one suite in order": [(0, 0, "a"), (0, 1, "b"), (0, 2, "c")],
    "finished out of order": [(0, 2, "c"), (0, 0, "a"), (0, 1, "b")],
    "two suites": [(0, 0, "a"), (0, 1, "b"), (1, 0, "x"), (1, 1, "y")],
    "second suite first": [(1, 1, "y"), (1, 0, "x"), (0, 0, "a")],
}


@pytest.mark.parametrize("appends", list(APPENDS.values()), ids=list(APPENDS))
def test_every_append__leaves_a_valid_incomplete_record_of_exactly_the_cases_written(
    tmp_path: Path, appends: list[tuple[int, int, str]]
) -> None:
    out = tmp_path / "run.json"
    writer = RecordWriter(out, RUN)
    writer.add_suite({"id": "s0", "kind": "evals", "source": "s0.py"})
    writer.add_suite({"id": "s1", "kind": "benchmark", "source": "s1.yaml", "agent": {}})
    partial = partial_path(out)
    assert _cases_in(partial) == {} and read_record(partial).run.complete is False
    expected: dict[str, list[str]] = {}
    for suite, position, cid in appends:
        writer.add_case(suite, position, _case(cid), RUN)
        expected.setdefault(f"s{suite}", []).append(cid)
        # read from disk while the writer is still open: each append is already in the file
        assert _cases_in(partial) == expected
        assert read_record(partial).run.complete is False
        assert not out.exists()
    writer.finish(DONE, suites=[0, 1], extra={0: {"fingerprint": "f0"}})
    assert not partial.exists()
    final = json.loads(out.read_text(encoding="utf-8"))
    jsonschema.validate(final, load_run_schema())
    assert final["run"]["complete"] is True
    by_position = {
        f"s{s}": [cid for _, _, cid in sorted((p, i, c) for i, (ss, p, c) in enumerate(appends) if ss == s)]
        for s in (0, 1)
    }
    assert {s["id"]: [c["id"] for c in s["cases"]] for s in final["suites"]} == by_position
    assert final["suites"][0]["fingerprint"] == "f0"


def test_partial_record__never_says_complete_whatever_run_block_follows(tmp_path: Path) -> None:
    # no false green: only the final record (written apart, then renamed) ever says complete
    out = tmp_path / "run.json"
    writer = RecordWriter(out, RUN)
    writer.add_suite({"id": "s0", "kind": "evals", "source": "s0.py"})
    for i in range(5):
        writer.add_case(0, i, _case(f"c{i}"), RUN)
        text = partial_path(out).read_text(encoding="utf-8")
        assert json.loads(text)["run"]["complete"] is False and '"complete":true' not in text
    writer.close()
    assert not out.exists() and read_record(partial_path(out)).run.complete is False


def test_a_stale_record_at_the_output__is_removed_when_the_run_starts(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    out.write_text(json.dumps({"schema": "agent-evals/run@1", "run": DONE, "suites": []}), encoding="utf-8")
    RecordWriter(out, RUN).close()
    assert not out.exists()  # a run killed from here on cannot leave the old complete record standing


def test_a_suite_whose_cases_come_apart__is_refused_not_written_twice(tmp_path: Path) -> None:
    writer = RecordWriter(tmp_path / "run.json", RUN)
    writer.add_suite({"id": "s0", "kind": "evals", "source": "s0.py"})
    writer.add_suite({"id": "s1", "kind": "evals", "source": "s1.py"})
    writer.add_case(0, 0, _case("a"), RUN)
    writer.add_case(1, 0, _case("x"), RUN)
    with pytest.raises(RuntimeError, match="'s0' was closed"):
        writer.add_case(0, 1, _case("b"), RUN)
    writer.close()
    assert _cases_in(partial_path(tmp_path / "run.json")) == {"s0": ["a"], "s1": ["x"]}


def test_a_shorter_run_block__leaves_no_stale_bytes_behind(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    long_run: dict[str, Any] = {**RUN, "git": {"sha": "f" * 400}}
    writer = RecordWriter(out, long_run)
    writer.add_suite({"id": "s0", "kind": "evals", "source": "s0.py"})
    writer.add_case(0, 0, b'{"id":"a","group":"g"}', RUN)
    writer.close()
    assert _cases_in(partial_path(out)) == {"s0": ["a"]}


@pytest.mark.parametrize(("cases", "kept"), [(0, False), (1, True), (2, True)])
def test_abandon__keeps_the_partial_record_only_when_it_holds_a_case(
    tmp_path: Path, cases: int, kept: bool
) -> None:
    out = tmp_path / "run.json"
    writer = RecordWriter(out, RUN)
    suite = writer.add_suite({"id": "s", "kind": "evals", "source": "s.py"})
    for n in range(cases):
        writer.add_case(suite, n, _case(f"c{n}"), RUN)
    assert writer.abandon() == (partial_path(out) if kept else None)
    assert partial_path(out).exists() is kept and not out.exists()
    if kept:
        assert _cases_in(partial_path(out)) == {"s": [f"c{n}" for n in range(cases)]}
    assert writer.abandon() is None  # once only; a finished record is never touched


def test_abandon__after_finish__leaves_the_final_record(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    writer = RecordWriter(out, RUN)
    writer.finish(DONE, suites=[], extra={})
    assert writer.abandon() is None
    assert out.exists() and not partial_path(out).exists()


@pytest.mark.parametrize(
    ("count", "window"),
    [
        (1, 1 << 20),
        (READ_BACK_BATCH, 1 << 20),
        (READ_BACK_BATCH * 2 + 3, 1 << 20),
        (READ_BACK_BATCH + 1, 300),
    ],
    ids=["one", "one-batch", "batches-and-a-rest", "window-smaller-than-the-cases"],
)
def test_finish__read_back_in_plan_order__batches_of_the_final_records_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int, window: int
) -> None:
    monkeypatch.setattr("agent_evals.record.stream.WINDOW", window)
    writer = RecordWriter(tmp_path / "run.json", RUN)
    writer.add_suite({"id": "s", "kind": "evals", "source": "s.py"})
    order = [p for p in range(count) if p % 2] + [
        p for p in range(count) if not p % 2
    ]  # finished out of order
    for position in order:
        writer.add_case(0, position, _case(f"c{position:04d}", passed=position % 3 > 0), RUN)
    seen: list[tuple[int, list[int], list[str]]] = []

    def read_back(suite: int, positions: list[int], cases: bytes) -> None:
        seen.append((suite, positions, [c["id"] for c in json.loads(b"[" + cases + b"]")]))

    writer.finish(DONE, suites=[0], extra={}, read_back=read_back)
    ids = [f"c{p:04d}" for p in range(count)]
    assert _cases_in(tmp_path / "run.json") == {"s": ids}
    assert all(suite == 0 and 0 < len(positions) <= READ_BACK_BATCH for suite, positions, _ in seen)
    assert [p for _, positions, _ in seen for p in positions] == list(range(count))
    assert [c for _, _, cases in seen for c in cases] == ids
