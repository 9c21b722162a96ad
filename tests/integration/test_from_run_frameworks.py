"""TaskResult.from_run on the real OpenAI Agents SDK and PydanticAI, each driving its agent against the
loopback OpenAI-compatible server: scripted tool calls and real usage numbers, no patching of the frameworks."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_evals import TaskResult, run_eval_async
from agent_evals.adapters.converters import openai_agents_to_openai, pydantic_ai_to_openai
from agent_evals.adapters.scorers import ToolCallExactMatch
from agent_evals.core.types import ExampleData, ExpectedResult
from servers.openai_server import OpenAIServer, TextAnswer, ToolCallAnswer

agents = pytest.importorskip("agents", reason="openai-agents is in the dev extra: pip install -e '.[dev]'")
if sys.version_info >= (3, 11):
    pydantic_ai = pytest.importorskip(
        "pydantic_ai", reason="pydantic-ai-slim[openai] is in the dev extra: pip install -e '.[dev]'"
    )
else:  # pragma: no cover - the dev extra installs PydanticAI 2.78 only on 3.11+
    pydantic_ai = None

MODEL = "gpt-4o-mini"
CALL = {"name": "set_light", "args": {"room": "kitchen", "state": "on"}}
FIRST = {"prompt_tokens": 30, "completion_tokens": 7, "total_tokens": 37}
SECOND = {"prompt_tokens": 50, "completion_tokens": 9, "total_tokens": 59}
USAGE = {"input_tokens": 80, "output_tokens": 16, "model": MODEL}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAIServer]:
    """The loopback server, scripted for one tool call and a final answer."""
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")  # the SDK would upload traces to OpenAI
    with OpenAIServer() as srv:
        srv.script(
            ToolCallAnswer("set_light", CALL["args"], usage=FIRST),
            TextAnswer("The kitchen light is on.", usage=SECOND),
        )
        yield srv


def _set_light(world: dict[str, Any]) -> Any:
    def set_light(room: str, state: str) -> str:
        """Switch the light in a room on or off."""
        world[room] = state
        return f"The {room} light is {state}."

    return set_light


def _openai_agent(server: OpenAIServer, world: dict[str, Any]) -> Any:
    from openai import AsyncOpenAI

    model = agents.OpenAIChatCompletionsModel(
        model=MODEL, openai_client=AsyncOpenAI(base_url=server.base_url, api_key="test-key")
    )
    return agents.Agent(
        name="lights",
        instructions="You control the lights.",
        tools=[agents.function_tool(_set_light(world))],
        model=model,
        model_settings=agents.ModelSettings(include_usage=True),  # streamed usage from a non-OpenAI URL
    )


def _pydantic_agent(server: OpenAIServer, world: dict[str, Any]) -> Any:
    if pydantic_ai is None:
        pytest.skip("pydantic-ai-slim 2.78 needs Python >= 3.11")
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    model = OpenAIChatModel(MODEL, provider=OpenAIProvider(base_url=server.base_url, api_key="test-key"))
    agent = pydantic_ai.Agent(model, system_prompt="You control the lights.")
    agent.tool_plain(_set_light(world))
    return agent


def _chat_trajectory(first_id: str) -> list[dict[str, Any]]:
    call = {
        "id": first_id,
        "type": "function",
        "function": {"name": "set_light", "arguments": json.dumps(CALL["args"])},
    }
    return [
        {"role": "user", "content": "Kitchen light on"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": first_id, "content": "The kitchen light is on."},
        {"role": "assistant", "content": "The kitchen light is on."},
    ]


async def _run_openai_agents(server: OpenAIServer, streamed: bool) -> Any:
    world: dict[str, Any] = {}
    agent = _openai_agent(server, world)
    if not streamed:
        result = await agents.Runner.run(agent, "Kitchen light on")
    else:
        result = agents.Runner.run_streamed(agent, "Kitchen light on")
        async for _event in result.stream_events():
            pass
    assert world == {"kitchen": "on"}  # the SDK really ran the tool
    return result


@pytest.mark.parametrize("streamed", [False, True], ids=["run", "run-streamed"])
async def test_from_run__openai_agents_sdk_run__messages_usage_and_model(
    server: OpenAIServer, streamed: bool
) -> None:
    result = await _run_openai_agents(server, streamed)
    task = TaskResult.from_run(result, final_state={"kitchen": "on"})
    assert task.output == "The kitchen light is on."
    assert task.context == {
        "outputs": _chat_trajectory("call_1"),
        "usage": USAGE,
        "final_state": {"kitchen": "on"},
    }
    assert openai_agents_to_openai(result) == _chat_trajectory("call_1")
    assert openai_agents_to_openai(result.new_items) == _chat_trajectory("call_1")[1:]  # without the input
    assert server.chat_count == 2


async def test_from_run__openai_agents_streamed_run_not_finished__value_error_saying_to_consume_it(
    server: OpenAIServer,
) -> None:
    result = agents.Runner.run_streamed(_openai_agent(server, {}), "Kitchen light on")
    with pytest.raises(ValueError, match="stream_events"):
        TaskResult.from_run(result)
    async for _event in result.stream_events():
        pass
    assert TaskResult.from_run(result).output == "The kitchen light is on."


async def test_from_run__pydantic_ai_run__messages_usage_and_model(server: OpenAIServer) -> None:
    world: dict[str, Any] = {}
    result = await _pydantic_agent(server, world).run("Kitchen light on")
    assert world == {"kitchen": "on"}
    task = TaskResult.from_run(result)
    expected = [{"role": "system", "content": "You control the lights."}, *_chat_trajectory("call_1")]
    assert task.output == "The kitchen light is on."
    assert task.context == {"outputs": expected, "usage": USAGE}
    assert pydantic_ai_to_openai(result) == expected
    # the same run saved as JSON and read back gives the same messages and tokens
    saved = TaskResult.from_run(json.loads(result.all_messages_json()))
    assert saved.context == task.context


@pytest.mark.parametrize("framework", ["openai-agents", "pydantic-ai"])
async def test_run_eval__task_returning_from_run__tool_call_exact_match_and_usage_with_no_glue(
    server: OpenAIServer, framework: str
) -> None:
    async def task(prompt: str) -> TaskResult:
        if framework == "openai-agents":
            return TaskResult.from_run(await agents.Runner.run(_openai_agent(server, {}), prompt))
        return TaskResult.from_run(await _pydantic_agent(server, {}).run(prompt))

    wrong = ExampleData(
        input="Kitchen light on",
        expected=ExpectedResult(
            expected="",
            context={"reference_outputs": [{"name": "set_light", "args": {"room": "hall", "state": "on"}}]},
        ),
    )
    right = ExampleData(
        input="Kitchen light on", expected=ExpectedResult(expected="", context={"reference_outputs": [CALL]})
    )
    server.script(
        ToolCallAnswer("set_light", CALL["args"], usage=FIRST),
        TextAnswer("The kitchen light is on.", usage=SECOND),
    )
    result = await run_eval_async(task, [right, wrong], [ToolCallExactMatch()])
    first, second = result.examples
    assert first.scores["ToolCallExactMatch"].passed, first.scores
    assert not second.scores["ToolCallExactMatch"].passed
    assert first.tool_calls is not None and [c["function"]["name"] for c in first.tool_calls] == ["set_light"]
    assert first.usage is not None
    assert (first.usage["input_tokens"], first.usage["output_tokens"]) == (80, 16)
    assert first.usage["models"][MODEL]["input_tokens"] == 80


async def test_readme_from_run_snippet__runs_with_a_real_agents_sdk_agent(server: OpenAIServer) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The library in thirty lines", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    snippet = next(b for b in blocks if "TaskResult.from_run" in b)
    namespace: dict[str, Any] = {"TaskResult": TaskResult, "lights_agent": _openai_agent(server, {})}
    exec(compile(snippet, "README.md", "exec"), namespace)
    task = await namespace["agent"]("Kitchen light on")
    assert task.output == "The kitchen light is on."
    assert task.context is not None and task.context["usage"] == USAGE
    assert [m["role"] for m in task.context["outputs"]] == ["user", "assistant", "tool", "assistant"]


async def test_from_run__langgraph_agent_state__messages_usage_and_model(server: OpenAIServer) -> None:
    create_agent = pytest.importorskip(
        "langchain.agents", reason="langchain is in the all extra"
    ).create_agent
    chat_openai = pytest.importorskip(
        "langchain_openai", reason="langchain-openai is in the dev extra"
    ).ChatOpenAI
    from langchain_core.tools import tool

    world: dict[str, Any] = {}
    llm = chat_openai(model=MODEL, base_url=server.base_url, api_key="test-key")
    graph = create_agent(llm, tools=[tool(_set_light(world))])
    state = await graph.ainvoke({"messages": [{"role": "user", "content": "Kitchen light on"}]})
    assert world == {"kitchen": "on"}
    task = TaskResult.from_run(state)
    assert task.output == "The kitchen light is on."
    assert task.context is not None and task.context["usage"] == USAGE
    calls = [c["function"] for m in task.context["outputs"] for c in m.get("tool_calls", [])]
    assert calls == [{"name": "set_light", "arguments": json.dumps(CALL["args"])}]
