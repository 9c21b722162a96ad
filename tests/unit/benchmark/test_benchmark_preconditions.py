"""Preconditions reach every agent form: seed agents get ``preconditions=[...]``, ours get ``state=``."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_evals import BaseAgent, TaskResult
from agent_evals.adapters.preconditions import StatePreconditionApplier
from agent_evals.benchmark.runner import run_benchmark
from agent_evals.errors import AgentLoadError

Writer = Callable[..., Path]


def _home() -> dict[str, Any]:
    return {"lights": {"kitchen": {"state": "off"}}}


def _act(prompt: str, world: dict[str, Any]) -> None:
    if "kitchen" in prompt.lower():
        world["lights"]["kitchen"]["state"] = "off" if "off" in prompt.lower() else "on"


class SeedAgent(BaseAgent):
    """The seed's agent form: keeps its own world, applies the preconditions, then acts."""

    async def run_case(self, prompt: str, *, preconditions: Any = (), **_: Any) -> TaskResult:
        world = _home()
        for applier in preconditions:
            applier.apply(world)
        _act(prompt, world)
        return TaskResult(output="", context={"final_state": copy.deepcopy(world)})


class SeedDoNothing(BaseAgent):
    """Applies the preconditions and ignores the prompt."""

    async def run_case(self, prompt: str, *, preconditions: Any = (), **_: Any) -> TaskResult:
        world = _home()
        for applier in preconditions:
            applier.apply(world)
        return TaskResult(output="", context={"final_state": world})


class OnlyPreconditions(BaseAgent):
    """Names ``preconditions`` and nothing else."""

    async def run_case(self, prompt: str, preconditions: Any = ()) -> TaskResult:
        world = _home()
        for applier in preconditions:
            applier.apply(world)
        _act(prompt, world)
        return TaskResult(output="", context={"final_state": world})


class StateAgent(BaseAgent):
    """Our form: acts on the merged ``state``."""

    async def run_case(self, prompt: str, state: dict[str, Any] | None = None) -> TaskResult:
        world = state if state is not None else _home()
        _act(prompt, world)
        return TaskResult(output="", context={"final_state": world})


class StateDoNothing(BaseAgent):
    async def run_case(self, prompt: str, state: dict[str, Any] | None = None) -> TaskResult:
        return TaskResult(output="", context={"final_state": state})


class PromptOnly(BaseAgent):
    async def run_case(self, prompt: str) -> TaskResult:
        world = _home()
        _act(prompt, world)
        return TaskResult(output="", context={"final_state": world})


WITH_PRECONDITION = """
benchmark: on-then-off
platform:
  name: local
  experiment: with-precond
capabilities:
  - name: lights
    scenarios:
      - id: 1
        prompt: Turn the kitchen light off
        precondition:
          state:
            lights.kitchen.state: 'on'
        success:
          state:
            lights.kitchen.state: 'off'
"""

WORLD_AND_PRECONDITION = """
benchmark: world-then-off
world: {lights: {kitchen: {state: 'off'}, hall: {state: 'on'}}}
capabilities:
  - name: lights
    scenarios:
      - id: 1
        prompt: Turn the kitchen light off
        precondition: {state: {lights: {kitchen: {state: 'on'}}}}
        success: {state: {lights.kitchen.state: 'off', lights.hall.state: 'on'}}
"""


@pytest.mark.parametrize("text", [WITH_PRECONDITION, WORLD_AND_PRECONDITION], ids=["dotted", "world"])
@pytest.mark.parametrize(
    ("agent", "passed"),
    [
        pytest.param(SeedAgent, True, id="seed-agent-acting"),
        pytest.param(OnlyPreconditions, True, id="agent-naming-only-preconditions"),
        pytest.param(StateAgent, True, id="state-agent-acting"),
        pytest.param(SeedDoNothing, False, id="seed-agent-doing-nothing"),
        pytest.param(StateDoNothing, False, id="state-agent-doing-nothing"),
    ],
)
def test_precondition__reaches_the_agent__a_do_nothing_agent_fails(
    write: Writer, text: str, agent: type[BaseAgent], passed: bool
) -> None:
    result = run_benchmark(write("bench.yaml", text), agent)
    (trial,) = result.cases[0].trials
    assert trial.error is None
    assert trial.passed is passed


def test_no_precondition__seed_agent_gets_an_empty_list(write: Writer) -> None:
    seen: list[Any] = []

    class Recorder(BaseAgent):
        async def run_case(self, prompt: str, *, preconditions: Any = None, **_: Any) -> TaskResult:
            seen.append(preconditions)
            return TaskResult(output="hi")

    text = (
        "benchmark: b\ncapabilities:\n  - name: c\n    scenarios:\n"
        "      - {id: 1, prompt: p, success: {output: {contains: hi}}}\n"
    )
    run_benchmark(write("bench.yaml", text), Recorder)
    assert seen == [[]]


def test_precondition__an_agent_cannot_change_what_the_next_trial_gets(write: Writer) -> None:
    class Meddler(BaseAgent):
        async def run_case(self, prompt: str, *, preconditions: Any = (), **_: Any) -> TaskResult:
            world = _home()
            for applier in preconditions:
                applier.apply(world)
                applier.root["lights"]["kitchen"]["state"] = "off"  # tampering with the applier
            return TaskResult(output="", context={"final_state": world})

    text = WITH_PRECONDITION.replace("'off'\n", "'on'\n").replace("Turn the kitchen light off", "look")
    text = text.replace("benchmark: on-then-off", "benchmark: b\nexecution: {runs_per_scenario: 3}")
    result = run_benchmark(write("bench.yaml", text), Meddler)
    assert [t.passed for t in result.cases[0].trials] == [True, True, True]


def test_precondition__agent_taking_neither_state_nor_preconditions__refused_before_running(
    write: Writer,
) -> None:
    with pytest.raises(AgentLoadError, match="preconditions"):
        run_benchmark(write("bench.yaml", WITH_PRECONDITION), PromptOnly)


@pytest.mark.parametrize(
    ("payload", "target", "after"),
    [
        pytest.param({"a.b.c": 1}, {}, {"a": {"b": {"c": 1}}}, id="dotted-key-expands"),
        pytest.param({"a.b": 1}, {"a": {"b": 0, "x": 2}}, {"a": {"b": 1, "x": 2}}, id="merges-into-existing"),
        pytest.param({"a": {"b": 1}}, {"a": 5}, {"a": {"b": 1}}, id="mapping-replaces-a-plain-value"),
        pytest.param({"a": [1]}, {"a": [0, 2]}, {"a": [1]}, id="a-list-replaces"),
        pytest.param({"a.b": 1, "a.c": 2}, {}, {"a": {"b": 1, "c": 2}}, id="two-dotted-keys-share-a-parent"),
        pytest.param({"a": {"x.y": 1}}, {}, {"a": {"x.y": 1}}, id="nested-keys-kept-as-written"),
    ],
)
def test_state_applier__expands_top_level_dotted_keys_and_deep_merges_in_place(
    payload: dict[str, Any], target: dict[str, Any], after: dict[str, Any]
) -> None:
    StatePreconditionApplier(payload).apply(target)
    assert target == after


@pytest.mark.parametrize(
    "platform",
    [
        pytest.param("{name: local, experiment: seed-style}", id="the-seeds-name-key"),
        pytest.param("{type: local, experiment: seed-style}", id="the-type-key"),
        pytest.param("local", id="the-shorthand"),
    ],
)
def test_platform__name_or_type_key__writes_the_local_results(write: Writer, platform: str) -> None:
    text = (
        f"benchmark: b\nplatform: {platform}\ncapabilities:\n  - name: c\n    scenarios:\n"
        "      - {id: 1, prompt: p, success: {output: {contains: hi}}}\n"
    )
    result = run_benchmark(write("bench.yaml", text), lambda prompt: "hi")
    assert result.experiment_url is not None and Path(result.experiment_url).exists()
