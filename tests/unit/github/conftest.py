"""Fixtures for the GitHub package tests: the loopback GitHub server and a client that never really sleeps."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from agent_evals.github.client import GitHubClient
from servers.github_server import TOKEN, GitHubServer


@pytest.fixture
def github() -> Iterator[GitHubServer]:
    with GitHubServer() as server:
        yield server


@pytest.fixture
def sleeps() -> list[float]:
    """The waits the client asked for (its injected ``sleep`` records instead of sleeping)."""
    return []


@pytest.fixture
def client(github: GitHubServer, sleeps: list[float]) -> Iterator[GitHubClient]:
    with requests.Session() as session:
        yield GitHubClient(
            session, api_url=github.api_url, token=TOKEN, timeout=5.0, sleep=sleeps.append, jitter=lambda: 0.5
        )
