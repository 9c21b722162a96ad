"""The demo agents: a tool-calling loop over the simulated home, v1 and a regressed v2."""

from __future__ import annotations

import json
from typing import Any

from agent_evals import BaseAgent, TaskResult

from .home import TOOLS, SimulatedHome, ToolError
from .policy import RulePolicy

SYSTEM_PROMPT = "You control a smart home. Use the tools to act, then tell the user what you did."
MAX_ROUNDS = 6


def _tokens(messages: list[dict[str, Any]]) -> int:
    # A rough, deterministic stand-in for a tokenizer: one token per word.
    return sum(len(json.dumps(m.get("content") or m.get("tool_calls") or "").split()) for m in messages)


class HomeAgent(BaseAgent):
    """Runs the model/tool loop: ask the policy, execute its tool calls on the home, feed results back."""

    name = "home-agent"
    version = "1"
    policy_class: type[RulePolicy] = RulePolicy

    async def setup(self) -> None:
        """Create the policy once for the whole benchmark."""
        self.policy = self.policy_class()

    async def run_case(self, prompt: str, state: dict[str, Any] | None = None, **context: Any) -> TaskResult:
        """Answer one prompt against a fresh copy of the world; return messages and the final world."""
        home = SimulatedHome(state if state is not None else {})
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": prompt},
        ]
        usage = {"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0}
        for _ in range(MAX_ROUNDS):
            usage["input_tokens"] += _tokens(messages) + len(TOOLS) * 20
            reply = self.policy.next_message(messages)
            usage["output_tokens"] += _tokens([reply])
            messages.append(reply)
            if not reply.get("tool_calls"):
                break
            for call in reply["tool_calls"]:
                try:
                    args = json.loads(call["function"]["arguments"] or "{}")
                    result = home.execute(call["function"]["name"], args)
                except ToolError as exc:
                    result = {"error": str(exc)}
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)})
        output = next(
            (m["content"] for m in reversed(messages) if m["role"] == "assistant" and m.get("content")), ""
        )
        return TaskResult(
            output=output,
            context={"outputs": messages, "final_state": home.state, "usage": usage},
        )


class _PolicyV2(RulePolicy):
    # The v2 parser was rewritten to resolve a room first; "all lights" no longer has a room,
    # so it falls through to the default room (the living room). A realistic regression.
    all_lights_supported = False


class HomeAgentV2(HomeAgent):
    """Version 2: a refactored request parser that mishandles 'all lights' requests."""

    version = "2"
    policy_class = _PolicyV2
