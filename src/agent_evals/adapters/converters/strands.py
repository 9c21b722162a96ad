"""Strands conversations -> OpenAI message dicts (the converter lives in core, for TaskResult.from_run)."""

from __future__ import annotations

from agent_evals.core.converters.strands import strands_to_openai

__all__ = ["strands_to_openai"]
