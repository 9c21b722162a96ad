"""Fixtures for the cost tests: loopback model servers, a clean price table and environment."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent_evals.cost.prices import use_table
from servers.ollama_server import OllamaServer
from servers.openai_server import OpenAIServer


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """A running OpenAI-compatible server on a free loopback port."""
    with OpenAIServer() as server:
        yield server


@pytest.fixture
def ollama_server() -> Iterator[OllamaServer]:
    """A running Ollama-protocol server on a free loopback port."""
    with OllamaServer(models=("llama3.2:3b",)) as server:
        yield server


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OLLAMA_HOST",
        "LANGSMITH_TRACING",
        "LANGCHAIN_TRACING_V2",
    ):
        monkeypatch.delenv(name, raising=False)
    use_table(None)
    yield
    use_table(None)
