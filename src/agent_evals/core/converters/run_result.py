"""What a framework's run returned -> final text, OpenAI chat messages and usage (``TaskResult.from_run``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_evals.core.converters import openai_agents, pydantic_ai
from agent_evals.core.converters.langchain import to_openai_messages
from agent_evals.core.converters.responses import responses_to_openai
from agent_evals.core.converters.shapes import final_text, get, text, usage_block
from agent_evals.core.converters.strands import strands_to_openai
from agent_evals.cost.wire import from_messages

ACCEPTED = (
    "an OpenAI Agents SDK RunResult (or a finished RunResultStreaming), a PydanticAI AgentRunResult, "
    "an OpenAI Responses API response or its 'output' items, a LangGraph state ({'messages': [...]}) "
    "or a list of LangChain or OpenAI messages, PydanticAI messages, a Strands AgentResult, Agent or message list"
)
"""What ``TaskResult.from_run`` reads, for its TypeError."""

_RESPONSES_TYPES = frozenset({"message", "function_call", "function_call_output", "reasoning", "mcp_call"})
_STRANDS_BLOCKS = ("toolUse", "toolResult", "text")

RunParts = tuple[str, list[dict[str, Any]], "dict[str, Any] | None"]
"""The final text, the OpenAI messages and the usage block (None when the run reported none)."""


def read_run(result: Any) -> RunParts:
    """The final text, the OpenAI chat messages and the usage of a framework's run (see ``ACCEPTED``).

    Raises TypeError naming what it accepts for anything else, ValueError for a streamed run that has
    not finished or a message it cannot read.
    """
    if openai_agents.is_run_result(result):
        messages = openai_agents.openai_agents_to_openai(result)
        return final_text(result.final_output), messages, openai_agents.openai_agents_usage(result)
    if pydantic_ai.is_agent_run_result(result):
        messages = pydantic_ai.pydantic_ai_to_openai(result)
        return final_text(result.output), messages, pydantic_ai.pydantic_ai_usage(result)
    if _is_response(result):
        messages = responses_to_openai(result)
        output = get(result, "output_text")
        output = output if isinstance(output, str) else _last_assistant_text(messages)
        usage = get(result, "usage")
        model = get(result, "model")
        models = {model} if isinstance(model, str) and model else set()
        block = (
            usage_block(get(usage, "input_tokens"), get(usage, "output_tokens"), models) if usage else None
        )
        return output, messages, block
    if _is_strands_result(result):
        return _strands_result(result)
    if _is_strands_agent(result):
        messages = strands_to_openai(list(result.messages))
        return _last_assistant_text(messages), messages, _strands_usage(result.event_loop_metrics, result)
    if isinstance(result, Mapping) and isinstance(result.get("messages"), (list, tuple)):
        return _message_list(list(result["messages"]))
    if isinstance(result, (list, tuple)):
        return _message_list(list(result))
    raise TypeError(f"TaskResult.from_run reads {ACCEPTED}; got {type(result).__name__}")


def _message_list(messages: list[Any]) -> RunParts:
    if pydantic_ai.is_message_list(messages):
        converted = pydantic_ai.pydantic_ai_to_openai(messages)
        return _last_assistant_text(converted), converted, pydantic_ai.messages_usage(messages)
    if any(get(m, "type") in _RESPONSES_TYPES for m in messages):
        converted = responses_to_openai(messages)
        return _last_assistant_text(converted), converted, None
    if _is_strands_messages(messages):
        converted = strands_to_openai(messages)
        return _last_assistant_text(converted), converted, None
    converted = to_openai_messages(messages)
    return _last_assistant_text(converted), converted, _langchain_usage(messages)


def _last_assistant_text(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "assistant":
            content = text(message.get("content"))
            if content:
                return content
    return ""


def _is_response(value: Any) -> bool:
    """A Responses API response (the SDK's object or its dict form): an ``output`` list and a
    ``usage`` or ``object: "response"``."""
    if isinstance(value, (list, tuple, str, bytes)):
        return False
    if not isinstance(get(value, "output"), (list, tuple)):
        return False
    return get(value, "object") == "response" or get(value, "usage") is not None


def _is_strands_result(value: Any) -> bool:
    message = getattr(value, "message", None)
    return hasattr(value, "stop_reason") and isinstance(message, Mapping) and "role" in message


def _is_strands_agent(value: Any) -> bool:
    return isinstance(getattr(value, "messages", None), list) and hasattr(value, "event_loop_metrics")


def _is_strands_messages(messages: list[Any]) -> bool:
    """Bedrock-style content blocks (``{"text"}``, ``{"toolUse"}``, ``{"toolResult"}``) with no
    OpenAI ``type`` key."""
    for message in messages:
        content = get(message, "content") if isinstance(message, Mapping) else None
        if isinstance(content, list) and any(
            isinstance(b, Mapping) and "type" not in b and any(k in b for k in _STRANDS_BLOCKS)
            for b in content
        ):
            return True
    return False


def _strands_result(result: Any) -> RunParts:
    """A Strands ``AgentResult``: its final message (the whole conversation is ``agent.messages``)."""
    messages = strands_to_openai([result.message])
    return _last_assistant_text(messages), messages, _strands_usage(getattr(result, "metrics", None), None)


def _strands_usage(metrics: Any, agent: Any) -> dict[str, Any] | None:
    """Strands' ``accumulated_usage`` (``inputTokens``/``outputTokens``) and the agent's ``model_id``."""
    usage = get(metrics, "accumulated_usage") if metrics is not None else None
    if not isinstance(usage, Mapping):
        return None
    config = get(getattr(agent, "model", None), "config") if agent is not None else None
    model = get(config, "model_id") if isinstance(config, Mapping) else None
    models = {model} if isinstance(model, str) and model else set()
    return usage_block(usage.get("inputTokens"), usage.get("outputTokens"), models)


def _langchain_usage(messages: list[Any]) -> dict[str, Any] | None:
    """The tokens LangChain AI messages report (``usage_metadata``), summed, and their model when one."""
    reports = from_messages(messages)
    if not reports:
        return None
    models = {r.model for r in reports if r.model}
    return usage_block(sum(r.input_tokens for r in reports), sum(r.output_tokens for r in reports), models)
