"""`agent-evals run --output`: a run that dies or stops on an error leaves the streamed record of exactly what it finished."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agent_evals.record.read import read_record
from agent_evals.record.stream import partial_path
from agent_evals.schemas import load_run_schema

CLI = str(Path(sys.executable).with_name("agent-evals"))

DIES = """
import os, signal
from agent_evals import eval, EvalContext

@eval(cases=[{{"id": f"c{{i}}", "input": i}} for i in range(6)])
def test_count(ctx: EvalContext):
    if ctx.input == 3:
        {how}
    assert ctx.input != 1, "one fails"
"""

HOW = {
    # the C library's _exit (a native extension ending the process; os._exit is a trial error)
    "native _exit": ("__import__('ctypes').CDLL(None)._exit(7)", 7),
    "SIGKILL": ("os.kill(os.getpid(), signal.SIGKILL)", -9),
}

STALE = {
    "schema": "agent-evals/run@1",
    "run": {"tool_version": "0", "started_at": "2026-01-01T00:00:00Z", "complete": True},
    "suites": [],
}


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.run([CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.parametrize("how", list(HOW), ids=list(HOW))
def test_run_killed_mid_run__leaves_a_valid_incomplete_record_of_exactly_the_finished_cases(
    tmp_path: Path, how: str
) -> None:
    code, expected_rc = HOW[how]
    (tmp_path / "eval_dies.py").write_text(textwrap.dedent(DIES.format(how=code)), encoding="utf-8")
    out = tmp_path / "out" / "run.json"
    out.parent.mkdir()
    out.write_text(json.dumps(STALE), encoding="utf-8")  # an earlier run's record must not survive
    done = _run(tmp_path, "run", "eval_dies.py", "--output", str(out))
    assert done.returncode == expected_rc, done.stderr
    assert not out.exists()
    partial = partial_path(out)
    data = json.loads(partial.read_text(encoding="utf-8"))
    jsonschema.validate(data, load_run_schema())
    record = read_record(partial)
    assert record.run.complete is False and record.run.finished_at is None
    [suite] = record.suites
    assert [c.name for c in suite.cases] == ["test_count[c0]", "test_count[c1]", "test_count[c2]"]
    assert [c.trials[0].passed for c in suite.cases] == [True, False, True]
    # the gate never passes it: compared with a finished run, the outcome is incomplete (exit 3)
    base = tmp_path / "base.json"
    base.write_text(
        record.model_copy(update={"run": record.run.model_copy(update={"complete": True})}).to_json()
    )
    verdict = tmp_path / "verdict.json"
    compared = _run(tmp_path, "compare", str(base), str(partial), "--json", str(verdict))
    assert compared.returncode == 3, compared.stdout + compared.stderr
    assert json.loads(verdict.read_text(encoding="utf-8"))["outcome"] == "incomplete"


BENCH_DIES = """
benchmark: dies
agent: dying_agent:answer
capabilities:
  - name: count
    scenarios:
""" + "".join(f"      - {{id: c{i}, prompt: '{i}', success: {{output: {{equals: ok}}}}}}\n" for i in range(8))

DYING_AGENT = """
import os, signal

def answer(prompt):
    if prompt == "5":  # in the middle of a hand-off of several trials to the worker thread
        {how}
    return "no" if prompt == "1" else "ok"
"""


@pytest.mark.parametrize("how", list(HOW), ids=list(HOW))
def test_benchmark_killed_mid_batch__the_record_keeps_every_scenario_scored_before_it(
    tmp_path: Path, how: str
) -> None:
    code, expected_rc = HOW[how]
    (tmp_path / "dies.yaml").write_text(BENCH_DIES, encoding="utf-8")
    (tmp_path / "dying_agent.py").write_text(textwrap.dedent(DYING_AGENT.format(how=code)), encoding="utf-8")
    out = tmp_path / "run.json"
    done = _run(tmp_path, "run", "dies.yaml", "--output", str(out))
    assert done.returncode == expected_rc, done.stderr
    assert not out.exists()
    record = read_record(partial_path(out))
    assert record.run.complete is False
    [suite] = record.suites
    # a sync agent's trials go to a worker thread several at a time, and each is scored and
    # written there as it ends: none that finished before the agent died is lost with the batch
    assert [c.id for c in suite.cases] == [f"count/c{i}" for i in range(5)]
    assert [c.trials[0].passed for c in suite.cases] == [True, False, True, True, True]


FILLS = """
from agent_evals import eval, EvalContext

@eval(cases=[{"id": f"c{i}", "input": "x" * 400} for i in range(40)])
def test_big(ctx: EvalContext):
    ctx.output = ctx.input
"""

# the largest file the run may write (bytes, as a full disk would stop it) -> whether cases fit first
DISK_FULL: dict[str, tuple[int, bool]] = {
    "before the first record": (120, False),
    "after a few cases": (4_000, True),
    "after many cases": (16_000, True),
}


def _run_until_the_disk_fills(cwd: Path, target: str, limit: int) -> subprocess.CompletedProcess[str]:
    """``agent-evals run TARGET --output run.json`` where writes past ``limit`` bytes fail (EFBIG), as
    with no space left; it must exit 2 saying so, leaving no finished record."""
    import resource
    import signal

    def full_disk() -> None:  # in the child: only sets the limit
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    done = subprocess.run(
        [CLI, "run", target, "--output", "run.json"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=full_disk,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "cannot write the run record" in done.stderr
    assert not (cwd / "run.json").exists()
    return done


def _streamed_suite(partial: Path) -> Any:
    """The one suite of a streamed partial record, checked against the schema and the reader."""
    jsonschema.validate(json.loads(partial.read_text(encoding="utf-8")), load_run_schema())
    record = read_record(partial)
    assert record.run.complete is False
    [suite] = record.suites
    assert 0 < len(suite.cases) < 40
    return suite


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX resource limits")
@pytest.mark.parametrize(("limit", "some"), list(DISK_FULL.values()), ids=list(DISK_FULL))
def test_disk_full_mid_run__exit_2__the_streamed_record_stays_whole(
    tmp_path: Path, limit: int, some: bool
) -> None:
    (tmp_path / "eval_fills.py").write_text(textwrap.dedent(FILLS), encoding="utf-8")
    _run_until_the_disk_fills(tmp_path, "eval_fills.py", limit)
    partial = partial_path(tmp_path / "run.json")
    if not some:  # no record could be written at all: none is left, not a torn one
        assert not partial.exists()
        return
    suite = _streamed_suite(partial)
    assert [c.name for c in suite.cases] == [f"test_big[c{i}]" for i in range(len(suite.cases))]


BENCH_FILLS = """
benchmark: fills
agent: filling_agent:answer
capabilities:
  - name: big
    scenarios:
""" + "".join(
    f"      - {{id: c{i}, prompt: '{i}', success: {{output: {{contains: x}}}}}}\n" for i in range(40)
)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX resource limits")
def test_disk_full_mid_benchmark__exit_2__the_record_written_from_the_worker_thread_stays_whole(
    tmp_path: Path,
) -> None:
    (tmp_path / "fills.yaml").write_text(BENCH_FILLS, encoding="utf-8")
    (tmp_path / "filling_agent.py").write_text(
        "def answer(prompt):\n    return 'x' * 400\n", encoding="utf-8"
    )
    _run_until_the_disk_fills(tmp_path, "fills.yaml", 4_000)
    suite = _streamed_suite(partial_path(tmp_path / "run.json"))
    assert [c.id for c in suite.cases] == [f"big/c{i}" for i in range(len(suite.cases))]


ORDER = """
import asyncio
from agent_evals import eval, EvalContext

@eval(cases=[{"id": f"c{i}", "input": i} for i in range(6)], dataset="d")
async def test_wait(ctx: EvalContext):
    await asyncio.sleep(0.05 * (6 - ctx.input))  # later cases finish first when run together
    ctx.output = f"done {ctx.input}"
    assert ctx.input % 3, "a multiple of three"
"""


def _without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _without_timings(v)
            for k, v in value.items()
            if k not in ("duration_s", "started_at", "finished_at")
        }
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def test_finished_record__plan_order_whatever_the_finish_order_and_as_the_record_models_write_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "eval_order.py").write_text(textwrap.dedent(ORDER), encoding="utf-8")
    records = {}
    for concurrency in ("1", "6"):
        out = tmp_path / f"run-{concurrency}.json"
        done = _run(
            tmp_path, "run", "eval_order.py", "--concurrency", concurrency, "--trials", "2", "-o", str(out)
        )
        assert done.returncode == 0, done.stderr
        assert not partial_path(out).exists()
        records[concurrency] = json.loads(out.read_text(encoding="utf-8"))
        # what the record models (the writer before streaming) make of it is the same document
        assert json.loads(read_record(out).to_json()) == records[concurrency]
    one, six = records["1"], records["6"]
    assert one["run"]["complete"] is True
    assert [c["name"] for c in six["suites"][0]["cases"]] == [f"test_wait[c{i}]" for i in range(6)]
    assert _without_timings(six) == _without_timings(one)


BAD_BENCH = "id: not-a-benchmark-key\n"

GOOD_BENCH = """
benchmark: greet
agent: agents:Fine
capabilities:
  - name: greet
    scenarios:
      - id: hello
        prompt: "say hi"
        success: {output: {contains: hi}}
"""

FINISHES = """
from agent_evals import eval, EvalContext

@eval(cases=[{"id": f"c{i}", "input": i} for i in range(3)])
def test_ok(ctx: EvalContext):
    assert ctx.input != 1, "one fails"
"""

ECHO_AGENT = "def answer(prompt):\n    return 'hi'\n"

ONE_ID = """
benchmark: greet
agent: echo:answer
capabilities:
  - name: greet
    scenarios:
      - id: {scenario}
        name: {scenario}
        prompt: "say hi"
        success: {{output: {{contains: hi}}}}
"""

# files, run arguments (the output added), the cases the partial record keeps (None: no partial record)
USAGE_ERRORS: dict[str, tuple[dict[str, str], list[str], list[str] | None]] = {
    "a benchmark YAML with an unknown key, nothing ran": ({"bench.yaml": BAD_BENCH}, ["bench.yaml"], None),
    "--agent that cannot be imported, nothing ran": (
        {"bench.yaml": GOOD_BENCH},
        ["bench.yaml", "--agent", "no_such_module_here:agent"],
        None,
    ),
    "eval cases finished, then a bad benchmark YAML": (
        {"eval_ok.py": FINISHES, "bench.yaml": BAD_BENCH},
        ["eval_ok.py", "bench.yaml"],
        ["test_ok[c0]", "test_ok[c1]", "test_ok[c2]"],
    ),
    # the record pairs suites by id and cases by id: a run that wrote two under one id exited 0 (or 3)
    # with a record no reader accepts, and one suite would have hidden the other
    "two benchmarks declaring one id: the first ran, the second refused": (
        {
            "echo.py": ECHO_AGENT,
            "a.yaml": ONE_ID.format(scenario="first"),
            "b.yaml": ONE_ID.format(scenario="second"),
        },
        ["a.yaml", "b.yaml"],
        ["first"],
    ),
}


@pytest.mark.parametrize("case", list(USAGE_ERRORS.values()), ids=list(USAGE_ERRORS))
def test_usage_error_after_the_record_opened__exit_2__a_partial_record_only_of_finished_cases(
    tmp_path: Path, case: tuple[dict[str, str], list[str], list[str] | None]
) -> None:
    files, args, kept = case
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    out = tmp_path / "run.json"
    out.write_text(json.dumps(STALE), encoding="utf-8")  # an earlier run's record must not survive
    done = _run(tmp_path, "run", *args, "--output", str(out))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("error: "), done.stderr
    assert not out.exists()
    partial = partial_path(out)
    if kept is None:  # an empty record is nobody's result: nothing is left beside the output
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(files)
        return
    jsonschema.validate(json.loads(partial.read_text(encoding="utf-8")), load_run_schema())
    record = read_record(partial)
    assert record.run.complete is False and record.run.finished_at is None
    assert [c.name for s in record.suites for c in s.cases] == kept


FACTORY = """
from agent_evals import eval, EvalContext

def make(n):
    @eval(input=n)
    def test_made(ctx: EvalContext):
        assert ctx.input == 1
    return test_made

test_one = make(1)
test_two = make(2)
"""

# files, run arguments (the output added): refused while planning, before the record opened
PLAN_ERRORS: dict[str, tuple[dict[str, str], list[str]]] = {
    "an eval file that fails to import": ({"eval_bad.py": "import no_such_module_here\n"}, ["eval_bad.py"]),
    "a --filter that matches no eval": (
        {"eval_ok.py": FINISHES},
        ["eval_ok.py", "--filter", "nothing-like-it"],
    ),
    "two evals under one case id": ({"eval_made.py": FACTORY}, ["eval_made.py"]),
}


@pytest.mark.parametrize("case", list(PLAN_ERRORS.values()), ids=list(PLAN_ERRORS))
def test_usage_error_before_the_record_opened__exit_2__no_record_left_not_even_an_earlier_runs(
    tmp_path: Path, case: tuple[dict[str, str], list[str]]
) -> None:
    files, args = case
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    out = tmp_path / "run.json"
    out.write_text(json.dumps(STALE), encoding="utf-8")  # it must not stand in for this run's record
    done = _run(tmp_path, "run", *args, "--output", str(out))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("error: "), done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(files)


def test_usage_error_without_output__leaves_no_temporary_record(tmp_path: Path) -> None:
    for name, text in {"eval_ok.py": FINISHES, "bench.yaml": BAD_BENCH}.items():
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    done = subprocess.run(
        [CLI, "run", "eval_ok.py", "bench.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert list(scratch.iterdir()) == []
