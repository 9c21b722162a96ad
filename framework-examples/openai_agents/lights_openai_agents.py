"""A lights assistant built with the OpenAI Agents SDK; `TaskResult.from_run` hands its run to agent-evals."""

from __future__ import annotations

import os
from typing import Any

from agents import Agent, ModelSettings, OpenAIChatCompletionsModel, RunContextWrapper, Runner, function_tool
from openai import AsyncOpenAI

from agent_evals import BaseAgent, TaskResult

MODEL = os.environ.get("EXAMPLE_MODEL", "gpt-4o-mini")


@function_tool
def set_light(ctx: RunContextWrapper[dict[str, Any]], room: str, state: str) -> str:
    """Switch the light in a room "on" or "off"."""
    ctx.context["lights"].setdefault(room, {})["state"] = state
    return f"The {room} light is {state}."


def build_agent() -> Agent[dict[str, Any]]:
    """The agent, talking to any OpenAI-compatible endpoint: AsyncOpenAI reads OPENAI_BASE_URL and OPENAI_API_KEY."""
    model = OpenAIChatCompletionsModel(model=MODEL, openai_client=AsyncOpenAI())
    return Agent(
        name="lights",
        instructions="You control the lights of a home. Use set_light, then say what you did.",
        tools=[set_light],
        model=model,
        model_settings=ModelSettings(include_usage=True),
    )


async def run_agent(prompt: str, world: dict[str, Any]) -> TaskResult:
    """One run, as agent-evals reads it: final text, the tool calls as OpenAI messages, tokens and model."""
    result = await Runner.run(build_agent(), prompt, context=world)
    return TaskResult.from_run(result, final_state=world)


class LightsAgent(BaseAgent):
    """The benchmark's agent (lights.yaml): each trial gets a fresh copy of the world as ``state``."""

    name = "lights-openai-agents"
    version = "1"

    async def run_case(self, prompt: str, state: dict[str, Any]) -> TaskResult:
        return await run_agent(prompt, state)
