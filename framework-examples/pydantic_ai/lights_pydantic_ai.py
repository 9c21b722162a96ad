"""A lights assistant built with PydanticAI; `TaskResult.from_run` hands its run to agent-evals."""

from __future__ import annotations

import os
from typing import Any

from pydantic_ai import Agent, RunContext
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from agent_evals import BaseAgent, TaskResult

MODEL = os.environ.get("EXAMPLE_MODEL", "gpt-4o-mini")


def build_agent() -> Agent[dict[str, Any], str]:
    """The agent, talking to any OpenAI-compatible endpoint: the provider reads OPENAI_BASE_URL and OPENAI_API_KEY."""
    agent = Agent(
        OpenAIChatModel(MODEL, provider=OpenAIProvider()),
        deps_type=dict,
        system_prompt="You control the lights of a home. Use set_light, then say what you did.",
    )

    @agent.tool
    def set_light(ctx: RunContext[dict[str, Any]], room: str, state: str) -> str:
        """Switch the light in a room "on" or "off"."""
        ctx.deps["lights"].setdefault(room, {})["state"] = state
        return f"The {room} light is {state}."

    return agent


async def run_agent(prompt: str, world: dict[str, Any]) -> TaskResult:
    """One run, as agent-evals reads it: final text, the tool calls as OpenAI messages, tokens and model."""
    result = await build_agent().run(prompt, deps=world)
    return TaskResult.from_run(result, final_state=world)


class LightsAgent(BaseAgent):
    """The benchmark's agent (lights.yaml): each trial gets a fresh copy of the world as ``state``."""

    name = "lights-pydantic-ai"
    version = "1"

    async def run_case(self, prompt: str, state: dict[str, Any]) -> TaskResult:
        return await run_agent(prompt, state)
