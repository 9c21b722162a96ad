"""Running a benchmark: agent forms, lifecycle, state per trial, timeouts, concurrency, errors apart."""

from __future__ import annotations

import asyncio
import re
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_evals import BaseAgent, TaskResult
from agent_evals.benchmark.result import BenchmarkResult
from agent_evals.benchmark.runner import run_benchmark, run_benchmark_async
from agent_evals.errors import AgentLoadError, BenchmarkFileError

Writer = Callable[..., Path]

BENCH = """
benchmark: lamps
execution: {{runs_per_scenario: {k}, n_parallel_runs: {n}{timeout}}}
world:
  lamp: "off"
  log: []
capabilities:
  - name: lamp
    scenarios:
      - id: on
        prompt: "turn on"
        success: {{state: {{lamp: "on"}}}}
      - id: off
        prompt: "turn off"
        precondition: {{state: {{lamp: "on"}}}}
        success: {{state: {{lamp: "off"}}}}
      - id: say
        prompt: "say hi"
        success: {{output: {{contains: hi}}}}
"""


def _bench(write: Writer, k: int = 1, n: int = 1, timeout: float | None = None, agent: str = "") -> Path:
    extra = f", timeout_s: {timeout}" if timeout else ""
    text = BENCH.format(k=k, n=n, timeout=extra)
    if agent:
        text = text.replace("benchmark: lamps\n", f"benchmark: lamps\nagent: {agent}\n")
    return write("bench.yaml", text)


class LampAgent(BaseAgent):
    """Does what the prompt says to the lamp; records its lifecycle."""

    name = "lamp-agent"
    version = "7"

    def __init__(self) -> None:
        self.events: list[str] = []
        self.states: list[dict[str, Any]] = []

    async def setup(self) -> None:
        self.events.append("setup")

    async def run_case(self, prompt: str, state: dict[str, Any], **context: Any) -> TaskResult:
        self.states.append(state)
        state["log"].append(prompt)
        if prompt.startswith("turn "):
            state["lamp"] = prompt.split()[1]
        return TaskResult(output="hi" if "hi" in prompt else "done", context={"final_state": state})

    async def teardown(self) -> None:
        self.events.append("teardown")


async def test_run__class_instance__passes_every_case_and_records_agent(write: Writer) -> None:
    agent = LampAgent()
    result = await run_benchmark_async(_bench(write, k=2), agent)
    assert result.micro_pass_rate == 1.0
    assert (result.agent_name, result.agent_version) == ("lamp-agent", "7")
    assert [len(c.trials) for c in result.cases] == [2, 2, 2]
    assert agent.events == ["setup", "teardown"]


async def test_run__state_is_a_fresh_deep_copy_per_trial_with_precondition_merged(write: Writer) -> None:
    agent = LampAgent()
    await run_benchmark_async(_bench(write, k=3), agent)
    assert len(agent.states) == 9
    assert all(len(s["log"]) == 1 for s in agent.states)  # no trial sees another's mutation
    assert len({id(s) for s in agent.states}) == 9
    starts = {(s["log"][0], s["lamp"]) for s in agent.states}
    assert ("turn off", "off") in starts  # the agent turned it off, starting from the precondition's "on"


async def test_run__agent_class__is_instantiated(write: Writer) -> None:
    result = await run_benchmark_async(_bench(write), LampAgent)
    assert result.micro_pass_rate == 1.0


async def test_run__plain_function_agent__sync_and_async(write: Writer) -> None:
    def sync_agent(prompt: str, state: dict[str, Any]) -> TaskResult:
        state["lamp"] = prompt.split()[-1]
        return TaskResult(output="hi", context={"final_state": state})

    async def async_agent(prompt: str, **context: Any) -> str:
        return "hi"

    first = await run_benchmark_async(_bench(write), sync_agent)
    assert first.agent_name == "sync_agent"
    assert [c.passes for c in first.cases] == [1, 1, 1]
    second = await run_benchmark_async(_bench(write), async_agent)
    assert [c.passes for c in second.cases] == [0, 0, 1]  # it returns text only: no final_state


async def test_run__agent_that_cannot_receive_state__fails_loudly_before_running(write: Writer) -> None:
    calls: list[str] = []

    async def no_state(prompt: str) -> str:
        calls.append(prompt)
        return "hi"

    path = _bench(write)
    with pytest.raises(AgentLoadError, match="cannot receive the scenario state") as raised:
        await run_benchmark_async(path, no_state)
    assert calls == []
    # it names the file and line of the first scenario that needs the state, and that scenario
    assert re.search(rf"{re.escape(path.name)}:\d+: scenario '[^']+/[^']+': agent", str(raised.value))


async def test_run__agent_reference_from_the_yaml_folder(write: Writer) -> None:
    module = f"agents_{uuid.uuid4().hex[:8]}"
    write(
        f"{module}.py",
        """
        from agent_evals import TaskResult

        async def agent(prompt, state):
            state["lamp"] = prompt.split()[-1]
            return TaskResult(output="hi", context={"final_state": state})
        """,
    )
    result = await run_benchmark_async(_bench(write, agent=f"{module}:agent"))
    assert result.micro_pass_rate == 1.0


@pytest.mark.parametrize(
    ("ref", "fragment"),
    [
        ("no_such_module_xyz:Agent", "cannot import module 'no_such_module_xyz'"),
        ("json:NoSuchAgent", "has no attribute 'NoSuchAgent'"),
        ("json:__name__", "is not an agent"),
    ],
)
async def test_run__bad_agent_reference__agent_load_error(write: Writer, ref: str, fragment: str) -> None:
    with pytest.raises(AgentLoadError, match=fragment):
        await run_benchmark_async(_bench(write), ref)


async def test_run__no_agent_anywhere__located_error(write: Writer) -> None:
    with pytest.raises(BenchmarkFileError, match=r"^bench\.yaml:1:1: agent: no agent to run"):
        await run_benchmark_async(_bench(write))


async def test_run__invalid_file__nothing_runs_and_agent_is_not_touched(write: Writer) -> None:
    agent = LampAgent()
    path = write(
        "bench.yaml", "benchmark: x\ncapabilities:\n  - name: a\n    scenarios: [{id: 1, prompt: p}]\n"
    )
    with pytest.raises(BenchmarkFileError):
        await run_benchmark_async(path, agent)
    assert agent.events == []


class FailingSetup(LampAgent):
    async def setup(self) -> None:
        self.events.append("setup")
        raise RuntimeError("no simulator")


async def test_lifecycle__failing_setup__propagates_from_the_library_after_teardown(write: Writer) -> None:
    agent = FailingSetup()
    with pytest.raises(RuntimeError, match="no simulator"):
        await run_benchmark_async(_bench(write, k=2), agent)
    assert agent.events == ["setup", "teardown"]


async def test_lifecycle__failing_setup_recorded__every_trial_errored_with_the_traceback(
    write: Writer,
) -> None:
    agent = FailingSetup()
    result = await run_benchmark_async(_bench(write, k=2), agent, on_setup_error="record")
    assert agent.events == ["setup", "teardown"]
    assert result.error_count == 6 and result.failure_count == 0
    trials = [t for c in result.cases for t in c.trials]
    assert all(t.error == "agent setup failed: RuntimeError: no simulator" for t in trials)
    assert all('raise RuntimeError("no simulator")' in (t.traceback or "") for t in trials)
    assert result.setup_error is not None and result.setup_error.startswith("agent setup failed")
    assert result.micro_pass_rate is None
    record_trials = [t for c in result.to_suite().cases for t in c.trials]
    assert all(t.error and t.traceback and not t.passed for t in record_trials)


class Crashy(LampAgent):
    async def run_case(self, prompt: str, state: dict[str, Any], **context: Any) -> TaskResult:
        if prompt == "turn off":
            raise ValueError("boom")
        return await super().run_case(prompt, state)


async def test_run__one_crashing_scenario__others_still_run_and_errors_count_apart(write: Writer) -> None:
    agent = Crashy()
    result = await run_benchmark_async(_bench(write, k=2), agent)
    by_id = {c.id: c for c in result.cases}
    assert by_id["lamp/off"].errors == 2
    assert by_id["lamp/off"].trials[0].error == "ValueError: boom"
    assert by_id["lamp/on"].passes == 2 and by_id["lamp/say"].passes == 2
    assert (result.error_count, result.failure_count) == (2, 0)
    assert result.micro_pass_rate == 1.0  # errored trials are left out of the pass fraction
    assert agent.events[-1] == "teardown"


class Slow(LampAgent):
    async def run_case(self, prompt: str, state: dict[str, Any], **context: Any) -> TaskResult:
        if prompt == "say hi":
            await asyncio.sleep(5)
        return await super().run_case(prompt, state)


async def test_timeout__slow_trial_errors_with_timeout_and_others_pass(write: Writer) -> None:
    start = time.perf_counter()
    result = await run_benchmark_async(_bench(write, n=3, timeout=0.2), Slow())
    assert time.perf_counter() - start < 3
    by_id = {c.id: c for c in result.cases}
    assert re.fullmatch(r"timed out after 0\.2s \(waited 0\.2\ds\)", by_id["lamp/say"].trials[0].error or "")
    assert by_id["lamp/on"].passes == 1


async def test_timeout__argument_overrides_the_file(write: Writer) -> None:
    result = await run_benchmark_async(_bench(write, n=3, timeout=30), Slow(), timeout_s=0.1)
    assert {c.id: c.errors for c in result.cases}["lamp/say"] == 1


class Counting(LampAgent):
    def __init__(self) -> None:
        super().__init__()
        self.in_flight = 0
        self.peak = 0
        self.lock = threading.Lock()

    async def run_case(self, prompt: str, state: dict[str, Any], **context: Any) -> TaskResult:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        await asyncio.sleep(0.01)
        self.in_flight -= 1
        return await super().run_case(prompt, state)


@pytest.mark.parametrize(("file_n", "override", "cap"), [(2, None, 2), (1, None, 1), (1, 4, 4)])
async def test_concurrency__at_most_n_trials_in_flight_across_the_benchmark(
    write: Writer, file_n: int, override: int | None, cap: int
) -> None:
    agent = Counting()
    result = await run_benchmark_async(_bench(write, k=4, n=file_n), agent, concurrency=override)
    assert result.trial_count == 12
    assert agent.peak == cap


async def test_trials_override__and_progress_reports_every_trial(write: Writer) -> None:
    seen: list[tuple[int, int]] = []
    result = await run_benchmark_async(
        _bench(write, k=1), LampAgent(), trials=3, progress=lambda d, t: seen.append((d, t))
    )
    assert result.runs_per_scenario == 3
    assert seen == [(i, 9) for i in range(1, 10)]


@pytest.mark.parametrize(
    ("pattern", "kept"),
    [("lamp/o*", ["lamp/on", "lamp/off"]), ("say", ["lamp/say"]), ("lamp/o?", ["lamp/on"]), ("zzz", [])],
)
async def test_case_filter__glob_or_substring_on_case_ids(
    write: Writer, pattern: str, kept: list[str]
) -> None:
    result = await run_benchmark_async(_bench(write), LampAgent(), case_filter=pattern)
    assert [c.id for c in result.cases] == kept


def test_run_benchmark__sync_wrapper(write: Writer) -> None:
    assert run_benchmark(_bench(write), LampAgent()).micro_pass_rate == 1.0


def test_run_benchmark__sync_wrapper__result_never_turned_into_text(
    write: Writer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # asyncio.run (3.11) writes its finished main task as text when it puts the Ctrl-C handler back:
    # a result of 10,000 cases took a tenth of a second each time, twice per run
    shown: list[str] = []

    def counted(result: object) -> str:
        shown.append("repr")
        return "<result>"

    monkeypatch.setattr(BenchmarkResult, "__repr__", counted)
    result = run_benchmark(_bench(write), LampAgent())
    assert result.micro_pass_rate == 1.0
    assert shown == []


async def test_usage__reported_by_the_agent__lands_in_the_run_record(write: Writer) -> None:
    async def agent(prompt: str, state: dict[str, Any]) -> TaskResult:
        usage = {"input_tokens": 10, "output_tokens": 2, "cost_usd": 0.001}
        return TaskResult(output="hi", context={"final_state": state, "usage": usage})

    suite = (await run_benchmark_async(_bench(write), agent)).to_suite()
    usage = suite.cases[0].trials[0].usage
    assert usage is not None and (usage.input_tokens, usage.output_tokens, usage.cost_usd) == (10, 2, 0.001)


async def test_platform_local__writes_one_example_per_trial_to_the_output_dir(
    write: Writer, tmp_path: Path
) -> None:
    text = BENCH.format(k=2, n=1, timeout="").replace(
        "benchmark: lamps\n", f"benchmark: lamps\nplatform: {{type: local, output_dir: {tmp_path / 'exp'}}}\n"
    )
    result = await run_benchmark_async(write("bench.yaml", text), LampAgent())
    assert result.experiment_url is not None
    folder = Path(result.experiment_url)
    assert folder.parent == tmp_path / "exp" / "experiments"
    assert folder.name.startswith("lamps-")
    lines = (folder / "results.jsonl").read_text().splitlines()
    assert len(lines) == 6
    assert '"case_id": "lamp/on"' in lines[0]


def test_to_eval_result__examples_per_trial_and_pass_rates_per_scorer(write: Writer) -> None:
    result = run_benchmark(_bench(write, k=2), Crashy())
    evals = result.to_eval_result()
    assert len(evals.examples) == 6
    assert evals.summary["errored_examples"] == 2
    # StateMatch checks "on" and "off" (2 trials each); the 2 errored "off" trials count as failed
    assert evals.pass_rates["StateMatch"] == 0.5
    assert [e.metadata["trial"] for e in evals.examples[:2]] == [0, 1]


class ToolAgent(BaseAgent):
    """Calls set_light for the kitchen and ends with the light on; says 'done'."""

    name = "tool-agent"

    async def run_case(self, prompt: str, **context: Any) -> TaskResult:
        call = {"name": "set_light", "args": {"room": "kitchen"}}
        messages = [{"role": "assistant", "content": "", "tool_calls": [call]}]
        return TaskResult(output="done", context={"outputs": messages, "final_state": {"light": "on"}})


COLLIDING = """
benchmark: collide
capabilities:
  - name: c
    scenarios:
      - id: s
        prompt: go
        reference_outputs: [{{role: assistant, tool_calls: [{{name: {ref}, args: {{room: kitchen}}}}]}}]
        success:
          tool_use: {{calls: [{{name: {listed}, args: {{room: kitchen}}}}]}}
          scorers: [{{type: ToolCallExactMatch}}]
"""


@pytest.mark.parametrize(
    ("listed", "ref", "first", "second", "passed"),
    [
        pytest.param("set_light", "set_light", True, True, True, id="both-pass"),
        pytest.param("lock_door", "set_light", False, True, False, id="the-first-fails"),
        pytest.param("set_light", "lock_door", True, False, False, id="the-second-fails"),
    ],
)
def test_run_record__two_scorers_returning_one_name__both_kept_and_either_failing_fails_the_trial(
    write: Writer, listed: str, ref: str, first: bool, second: bool, passed: bool
) -> None:
    path = write("bench.yaml", COLLIDING.format(listed=listed, ref=ref))
    result = run_benchmark(path, ToolAgent)
    (trial,) = result.to_run_record().suites[0].cases[0].trials
    assert {k: s.passed for k, s in trial.scores.items()} == {
        "ToolCallExactMatch": first,
        "ToolCallExactMatch#2": second,
    }
    assert trial.passed is passed


def test_run__two_instances_of_one_scorer_class__both_run_under_distinct_keys(write: Writer) -> None:
    text = (
        "benchmark: twice\ncapabilities:\n  - name: c\n    scenarios:\n      - id: s\n        prompt: go\n"
        "        success:\n          output: {contains: done}\n"
        "          scorers: [{type: ExactMatch}, {type: ExactMatch}]\n"
    )
    result = run_benchmark(write("bench.yaml", text), ToolAgent)
    (trial,) = result.cases[0].trials
    assert sorted(trial.scores) == ["ExactMatch", "ExactMatch#2", "output"]


class Unnamed(BaseAgent):
    async def run_case(self, prompt: str, **context: Any) -> TaskResult:
        return TaskResult(output="hi")


def test_base_agent__seed_defaults__empty_name_no_version_and_the_class_name_in_results(
    write: Writer,
) -> None:
    assert (BaseAgent.name, BaseAgent.version) == ("", None)
    result = run_benchmark(_bench(write), Unnamed())
    assert (result.agent_name, result.agent_version) == ("Unnamed", None)


@pytest.mark.parametrize("concurrency", [1, 4])
async def test_run__sync_function_agent_from_the_yaml__a_thousand_trials_at_most_concurrency_threads(
    write: Writer, concurrency: int
) -> None:
    module = f"agents_{uuid.uuid4().hex[:8]}"
    write(
        f"{module}.py",
        """
        import threading

        THREADS = []

        def echo(prompt):
            THREADS.append(threading.current_thread())  # kept: a dead thread's object stays distinct
            return prompt
        """,
    )
    path = write(
        "bench.yaml",
        f"""
        benchmark: echo
        agent: {module}:echo
        execution: {{runs_per_scenario: 1000, n_parallel_runs: {concurrency}, timeout_s: 30}}
        capabilities:
          - name: echo
            scenarios:
              - id: one
                prompt: "1"
                success: {{output: {{equals: "1"}}}}
        """,
    )
    result = await run_benchmark_async(path)
    assert result.trial_count == 1000 and result.micro_pass_rate == 1.0
    threads = sys.modules[module].THREADS
    assert len(threads) == 1000
    assert 1 <= len(set(threads)) <= concurrency  # reused workers, not a thread per trial
    assert threading.current_thread() not in threads
