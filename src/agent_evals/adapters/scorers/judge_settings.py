"""Where an LLM judge is reached and with which key: endpoint rule applied, keys never guessed remotely."""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from agent_evals.adapters.endpoint import is_loopback_host, validate_endpoint

LOOPBACK_PLACEHOLDER_KEY = "agent-evals-loopback-no-key"
"""Sent as the API key to a loopback judge when none is configured (local servers ignore keys)."""


def resolve_api_key(
    api_key: str | None,
    *,
    base_url: str,
    scorer: str,
    env: Mapping[str, str] | None = None,
) -> str:
    """The API key for a judge at ``base_url``: the explicit one, else ``OPENAI_API_KEY``.

    A judge on a loopback address needs no key, so a placeholder is used there; a remote judge
    without any key is a ValueError at construction rather than a failed request at scoring time.
    """
    if api_key:
        return api_key
    environ = os.environ if env is None else env
    from_env = environ.get("OPENAI_API_KEY")
    if from_env:
        return from_env
    host = urlsplit(base_url).hostname or ""
    if is_loopback_host(host):
        return LOOPBACK_PLACEHOLDER_KEY
    raise ValueError(
        f"{scorer}: no API key for the judge at {base_url!r}: pass api_key=... "
        "(or a ready client=...), or set OPENAI_API_KEY."
    )


def client_base_url(client: object) -> str | None:
    """The base URL an OpenAI-style client object sends to, when it exposes one."""
    for candidate in (client, getattr(client, "openai", None)):  # autoevals' LLMClient wraps `.openai`
        url = getattr(candidate, "base_url", None)
        if url is not None:
            return str(url)
    return None


def check_client_endpoint(client: object, *, parameter: str) -> None:
    """Apply the endpoint rule to a ready client's base URL (clients without one are trusted as given)."""
    url = client_base_url(client)
    if url is not None:
        validate_endpoint(url, parameter=parameter)
