"""Fixtures for adapter tests: loopback OpenAI-compatible and Ollama-protocol servers started per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from servers.ollama_server import OllamaServer
from servers.openai_server import OpenAIServer


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """A running OpenAI-compatible server on a free loopback port (script its answers per test)."""
    with OpenAIServer() as server:
        yield server


@pytest.fixture
def ollama_server() -> Iterator[OllamaServer]:
    """A running Ollama-protocol server on a free loopback port."""
    with OllamaServer() as server:
        yield server


@pytest.fixture(autouse=True)
def _no_ambient_openai_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys and endpoints come from the test, never from the developer's environment."""
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OLLAMA_HOST",
        "LANGSMITH_TRACING",
        "LANGCHAIN_TRACING_V2",
    ):
        monkeypatch.delenv(name, raising=False)
