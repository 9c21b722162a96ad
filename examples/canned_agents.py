"""Offline stand-ins for real agents, so the examples run anywhere without keys or network (not named
agents.py: that would shadow the OpenAI Agents SDK, whose import name is `agents`)."""

from __future__ import annotations

import asyncio
import difflib
import json


async def support_agent(message: str) -> str:
    """A canned customer-support agent: acknowledges refunds, otherwise offers help."""
    await asyncio.sleep(0)
    if "refund" in message.lower():
        return "I'm sorry about that. I've started your refund; it reaches your card in 3-5 days."
    if "quantum" in message.lower():
        return "Quantum computers use qubits, which can hold superpositions of 0 and 1."
    return "Happy to help. Could you tell me a little more?"


async def api_agent(request: str) -> str:
    """A canned API agent: answers 'Get user N' with that user's JSON record."""
    await asyncio.sleep(0)
    words = request.split()
    if len(words) == 3 and words[:2] == ["Get", "user"] and words[2].isdigit():
        return json.dumps({"id": int(words[2]), "name": f"user-{words[2]}"})
    return "Sorry, I can only look up users."


def similarity(text: str, reference: str) -> float:
    """Character-level similarity of two texts, from 0 (nothing shared) to 1 (identical)."""
    return difflib.SequenceMatcher(None, text.lower(), reference.lower()).ratio()
