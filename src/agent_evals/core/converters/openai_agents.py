"""OpenAI Agents SDK run results -> OpenAI chat-completions messages and usage (the SDK is never imported)."""

from __future__ import annotations

from typing import Any

from agent_evals.core.converters.responses import responses_to_openai
from agent_evals.core.converters.shapes import get, usage_block


def is_run_result(value: Any) -> bool:
    """True for an Agents SDK ``RunResult`` or ``RunResultStreaming`` (read by its shape)."""
    return hasattr(value, "new_items") and callable(getattr(value, "to_input_list", None))


def _check_finished(result: Any) -> None:
    if getattr(result, "is_complete", True) is False:
        raise ValueError(
            "this streamed Agents SDK run has not finished: consume `result.stream_events()` to the "
            "end (async for event in result.stream_events(): ...) before converting it"
        )


def openai_agents_to_openai(result: Any) -> list[dict[str, Any]]:
    """An OpenAI Agents SDK run (``Runner.run(...)``, or a finished ``Runner.run_streamed(...)``)
    as OpenAI chat messages: its input, then every item the run produced, in order.

    Read from ``result.to_input_list()``: the user's input, assistant messages, each tool call as
    an assistant ``tool_calls`` entry (arguments as JSON text, handoffs included) and each tool
    result as a ``tool`` message. A list of run items (``result.new_items``) is accepted too.

    Raises TypeError for anything else, ValueError for a streamed run that has not finished.
    """
    if isinstance(result, (list, tuple)):
        return responses_to_openai([_input_item(item) for item in result])
    if not is_run_result(result):
        raise TypeError(
            "openai_agents_to_openai expects an Agents SDK RunResult (Runner.run), a finished "
            f"RunResultStreaming (Runner.run_streamed) or a list of its new_items, got {type(result).__name__}"
        )
    _check_finished(result)
    return responses_to_openai(result.to_input_list())


def _input_item(item: Any) -> Any:
    """A run item's Responses API item (``RunItem.to_input_item()``, else its ``raw_item``)."""
    to_input = getattr(item, "to_input_item", None)
    if callable(to_input):
        return to_input()
    raw = getattr(item, "raw_item", None)
    return item if raw is None else raw


def _model_name(value: Any) -> str | None:
    """A model's name: the string itself, or a model object's ``model`` / ``model_name``."""
    if isinstance(value, str):
        return value or None
    for attribute in ("model", "model_name"):
        name = getattr(value, attribute, None)
        if isinstance(name, str) and name:
            return name
    return None


def openai_agents_models(result: Any) -> set[str]:
    """The models that answered in the run: each item's ``provider_data["model"]``, else the last
    agent's model."""
    models: set[str] = set()
    for item in getattr(result, "new_items", None) or ():
        data = get(getattr(item, "raw_item", None), "provider_data")
        name = get(data, "model") if data is not None else None
        if isinstance(name, str) and name:
            models.add(name)
    if not models:
        agent = getattr(result, "last_agent", None)
        name = _model_name(getattr(agent, "model", None)) if agent is not None else None
        if name:
            models.add(name)
    return models


def openai_agents_usage(result: Any) -> dict[str, Any] | None:
    """The run's tokens (``result.context_wrapper.usage``) and its model when only one answered."""
    usage = getattr(getattr(result, "context_wrapper", None), "usage", None)
    if usage is None:
        return None
    return usage_block(get(usage, "input_tokens"), get(usage, "output_tokens"), openai_agents_models(result))
