"""Where an LLM judge is reached and with which key: endpoint rule applied, keys read when first needed."""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable, Mapping
from typing import Any, TypedDict, TypeVar, cast
from urllib.parse import urlsplit

from agent_evals.adapters.endpoint import is_loopback_host, validate_endpoint

LOOPBACK_PLACEHOLDER_KEY = "agent-evals-loopback-no-key"
"""Sent as the API key to a loopback judge when none is configured (local servers ignore keys)."""

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
"""Where an autoevals judge without ``base_url``, ``client`` or ``OPENAI_BASE_URL`` sends prompts."""


class JudgeKeyMissing(ValueError):
    """A remote judge has no API key; raised when the judge is first called, never at construction."""


def judge_endpoint(base_url: str | None, *, env: Mapping[str, str] | None = None) -> str:
    """The endpoint an autoevals judge sends to, checked by the transport rule.

    ``base_url`` when given, else ``OPENAI_BASE_URL`` from the environment, else OpenAI's https
    endpoint (never autoevals' own fallback, a third-party gateway). A cleartext URL to a host that
    is not loopback raises ValueError naming where the URL came from.
    """
    if base_url is not None:
        return validate_endpoint(base_url, parameter="base_url")
    environ = os.environ if env is None else env
    from_env = environ.get("OPENAI_BASE_URL")
    if from_env:
        return validate_endpoint(from_env, parameter="base_url (from OPENAI_BASE_URL)")
    return OPENAI_DEFAULT_BASE_URL


def resolve_api_key(
    api_key: str | None,
    *,
    base_url: str,
    scorer: str,
    env: Mapping[str, str] | None = None,
) -> str:
    """The API key for a judge at ``base_url``: the explicit one, else ``OPENAI_API_KEY``.

    A judge on a loopback address needs no key, so a placeholder is used there; for a remote judge
    without any key this raises JudgeKeyMissing (the wrappers call it when the judge is first used
    and turn it into an errored Score, so a missing key can never pass an example).
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
    raise JudgeKeyMissing(
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


class JudgeSettings(TypedDict, total=False):
    """The keywords every autoevals LLM-as-judge scorer takes (Factuality ... LLMClassifier), defined once."""

    threshold: float | None
    """The pass mark of the judge's score (None: the scorer's own default)."""
    model: str
    """The chat model the judge asks."""
    base_url: str | None
    """Where the judge is reached (default: ``OPENAI_BASE_URL``, else OpenAI's https endpoint)."""
    api_key: str | None
    """The judge's API key (default: ``OPENAI_API_KEY``, read on the first call)."""
    client: Any | None
    """A ready OpenAI-style client, instead of ``base_url`` and ``api_key``."""
    use_cot: bool | None
    """Ask the judge to reason before it answers (None: autoevals' default)."""
    temperature: float | None
    """The judge's sampling temperature (None: autoevals' default)."""
    max_tokens: int | None
    """The most tokens the judge may answer with (None: autoevals' default)."""
    timeout_s: float
    """How long one judge call may take, in seconds."""


Init = TypeVar("Init", bound=Callable[..., None])


def takes_judge_settings(defaults: Mapping[str, Any]) -> Callable[[Init], Init]:
    """Decorate a judge's ``__init__(self, ..., **settings: Unpack[JudgeSettings])``.

    Its ``**settings`` show as the keyword-only parameters of :class:`JudgeSettings` with ``defaults``
    (as ``help()``, IDEs and ``inspect.signature`` read them), and every call is bound to that
    signature: an unknown keyword is a TypeError, and each setting not given arrives as its default.
    """

    def wrap(init: Init) -> Init:
        own = inspect.signature(init)
        params = [p for p in own.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        params += [
            inspect.Parameter(
                key,
                inspect.Parameter.KEYWORD_ONLY,
                default=defaults[key],
                annotation=getattr(hint, "__forward_arg__", hint),  # as the other parameters show theirs
            )
            for key, hint in JudgeSettings.__annotations__.items()
        ]
        shown = own.replace(parameters=params)

        @functools.wraps(init)
        def bound_init(*args: Any, **kwargs: Any) -> None:
            try:
                call = shown.bind(*args, **kwargs)
            except TypeError as exc:
                raise TypeError(f"{init.__qualname__}() {exc}") from None
            call.apply_defaults()
            init(*call.args, **call.kwargs)

        bound_init.__signature__ = shown  # type: ignore[attr-defined]
        return cast(Init, bound_init)

    return wrap
