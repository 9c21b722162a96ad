"""Lights agents that return only text: the trial's OpenTelemetry spans tell agent-evals what they did."""

from __future__ import annotations

import json
import os

from opentelemetry import trace
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import RequestUsage

from agent_evals import TaskResult

Agent.instrument_all()  # PydanticAI's own GenAI spans, on whatever tracer provider is set

if os.environ.get("LIGHTS_OWN_PROVIDER"):  # the user's SDK provider and exporter, set before any run
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    EXPORTER = InMemorySpanExporter()
    PROVIDER = TracerProvider()
    PROVIDER.add_span_processor(SimpleSpanProcessor(EXPORTER))
    trace.set_tracer_provider(PROVIDER)


def _agent() -> Agent[None, str]:
    agent = Agent(
        OpenAIChatModel("gpt-4o-mini", provider=OpenAIProvider()),  # OPENAI_BASE_URL: the loopback server
        system_prompt="You control the lights. Use set_light, then say what you did.",
    )

    @agent.tool_plain
    def set_light(room: str, state: str) -> str:
        """Switch the light in a room on or off."""
        return f"The {room} light is {state}."

    return agent


async def text_only(prompt: str) -> str:
    """The benchmark agent: the final text, nothing else."""
    return (await _agent().run(prompt)).output


async def own_outputs(prompt: str) -> TaskResult:
    """Runs like text_only but returns a trajectory of its own (a call for the bathroom): that one counts."""
    text = (await _agent().run(prompt)).output
    call = {"name": "set_light", "arguments": json.dumps({"room": "bathroom", "state": "on"})}
    outputs = [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "mine", "type": "function", "function": call}],
        }
    ]
    return TaskResult(output=text, context={"outputs": outputs})


def hand_instrumented(prompt: str) -> str:
    """No framework: its own execute_tool span, with the attributes the GenAI conventions name."""
    room, state = ("kitchen", "on") if "kitchen" in prompt else ("hallway", "off")
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "set_light",
        "gen_ai.tool.call.id": f"own-{room}",
        "gen_ai.tool.call.arguments": json.dumps({"room": room, "state": state}),
    }
    with trace.get_tracer("lights").start_as_current_span(
        "execute_tool set_light", attributes=attributes
    ) as span:
        span.set_attribute("gen_ai.tool.call.result", f"The {room} light is {state}.")
    return f"The {room} light is {state}."


def _local_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    usage = RequestUsage(input_tokens=7, output_tokens=3)
    return ModelResponse(parts=[TextPart("All lights are fine.")], usage=usage, model_name="local-llm")


async def local_text(prompt: str) -> str:
    """A model no HTTP hook sees (in process): only its spans tell its tokens and its name."""
    agent = Agent(FunctionModel(_local_model, model_name="local-llm"))
    return (await agent.run(prompt)).output


def spans_seen() -> list[str]:
    """The names of the spans the user's own exporter got (LIGHTS_OWN_PROVIDER)."""
    return [span.name for span in EXPORTER.get_finished_spans()]
