"""The transport rule: TLS anywhere, cleartext only on loopback; and every endpoint-taking scorer enforces it."""

from __future__ import annotations

import inspect

import openai
import pytest

from agent_evals.adapters.endpoint import ACCEPTED_ENDPOINT_FORMS, is_loopback_host, validate_endpoint
from agent_evals.adapters.scorers import registry

ACCEPTED = [
    "https://api.openai.com/v1",
    "HTTPS://API.EXAMPLE.COM/v1",
    "https://10.0.0.5:8443/v1",  # TLS protects a private host too
    "wss://realtime.example.com/ws",
    "https://user:secret@judge.example.com/v1",
    "http://localhost:11434/v1",
    "http://LocalHost:8080",
    "http://localhost.:11434/v1",  # the same name, fully qualified
    "http://127.0.0.1:11434",
    "http://127.8.9.10/v1",
    "http://[::1]:11434/v1",
    "ws://localhost:9000/socket",
    "ws://127.0.0.1/socket",
]

REFUSED = [
    ("http://example.com/v1", "cleartext"),
    ("http://api.openai.com/v1", "cleartext"),
    ("http://10.0.0.5:11434/v1", "cleartext"),
    ("http://192.168.1.20:11434", "cleartext"),
    ("http://172.16.0.1/v1", "cleartext"),
    ("http://169.254.169.254/latest", "cleartext"),
    ("http://0.0.0.0:11434", "cleartext"),
    ("http://[fe80::1]/v1", "cleartext"),
    ("http://[::ffff:127.0.0.1]/v1", "cleartext"),
    ("http://localhost.attacker.example/v1", "cleartext"),
    ("http://127.0.0.1.nip.io/v1", "cleartext"),
    ("http://2130706433/v1", "cleartext"),
    ("ws://chat.example.com/ws", "cleartext"),
    ("htps://api.openai.com/v1", "scheme 'htps'"),
    ("https:/api.openai.com/v1", "does not start with 'https://'"),
    ("http:localhost:11434", "does not start with 'http://'"),
    ("ftp://files.example.com/", "scheme 'ftp'"),
    ("file:///etc/passwd", "scheme 'file'"),
    ("localhost:11434", "scheme 'localhost'"),
    ("api.openai.com/v1", "no scheme"),
    ("https://", "no host"),
    ("http://localhost:99999/v1", "invalid host or port"),
    ("https://api.openai.com /v1", "whitespace"),
    ("", "empty"),
    ("   ", "empty"),
]


@pytest.mark.parametrize("url", ACCEPTED)
def test_validate_endpoint__tls_or_loopback__returns_value_unchanged(url: str) -> None:
    assert validate_endpoint(url, parameter="base_url") == url


@pytest.mark.parametrize(("url", "reason"), REFUSED)
def test_validate_endpoint__cleartext_remote_or_malformed__refused_with_reason(url: str, reason: str) -> None:
    with pytest.raises(ValueError) as info:
        validate_endpoint(url, parameter="judge_base_url")
    message = str(info.value)
    assert message.startswith("judge_base_url=")
    assert reason in message
    assert ACCEPTED_ENDPOINT_FORMS in message


def test_validate_endpoint__password_in_refused_url__is_masked() -> None:
    with pytest.raises(ValueError) as info:
        validate_endpoint("http://bob:s3cr3t-token@10.1.2.3:8080/v1", parameter="base_url")
    message = str(info.value)
    assert "s3cr3t-token" not in message
    assert "'http://bob:***@10.1.2.3:8080/v1'" in message


def test_validate_endpoint__password_in_malformed_url__is_masked() -> None:
    with pytest.raises(ValueError) as info:
        validate_endpoint("htp://bob:hunter2@judge.example.com", parameter="base_url")
    assert "hunter2" not in str(info.value)
    assert "bob:***@" in str(info.value)


@pytest.mark.parametrize("value", [None, 8080, b"https://api.openai.com"])
def test_validate_endpoint__not_a_string__refused_naming_parameter(value: object) -> None:
    with pytest.raises(ValueError, match=r"^base_url must be a URL string"):
        validate_endpoint(value, parameter="base_url")


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("localhost", True),
        ("localhost.", True),
        ("LOCALHOST.", True),
        ("localhost..", False),
        (".localhost", False),
        ("127.0.0.1", True),
        ("127.255.0.1", True),
        ("::1", True),
        ("10.0.0.1", False),
        ("0.0.0.0", False),
        ("example.com", False),
        ("::ffff:127.0.0.1", False),
    ],
)
def test_is_loopback_host__only_localhost_and_loopback_literals(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback


# --- every scorer factory that takes an endpoint enforces the rule -----------------------------

ENDPOINT_PARAMETERS = ("base_url", "judge_base_url")


def _endpoint_factories() -> list[tuple[str, str]]:
    found = []
    for name in registry.names():
        target = registry.factory(name)
        parameters = inspect.signature(target).parameters
        found.extend((name, p) for p in ENDPOINT_PARAMETERS if p in parameters)
    return found


ENDPOINT_FACTORIES = _endpoint_factories()


def test_endpoint_factories__enumeration_finds_every_model_backed_scorer() -> None:
    names = {name for name, _ in ENDPOINT_FACTORIES}
    assert names == {
        "EmbeddingSimilarity",
        "Factuality",
        "ClosedQA",
        "Humor",
        "Security",
        "Summary",
        "Translation",
        "Sql",
        "Possible",
        "Battle",
        "LLMClassifier",
        "Moderation",
        "TrajectoryLLMAsJudge",
        "GraphTrajectoryLLMAsJudge",
    }


@pytest.mark.parametrize(("name", "parameter"), ENDPOINT_FACTORIES)
@pytest.mark.parametrize(
    "url", ["http://192.168.1.20:11434/v1", "http://judge.example.com/v1", "htps://judge.example.com"]
)
def test_endpoint_factory__refused_endpoint__raises_at_construction(
    name: str, parameter: str, url: str
) -> None:
    factory = registry.factory(name)
    with pytest.raises(ValueError, match=rf"^{parameter}=.*is refused.*Accepted forms"):
        factory(**{parameter: url})


@pytest.mark.parametrize(("name", "parameter"), ENDPOINT_FACTORIES)
@pytest.mark.parametrize(
    "url", ["http://localhost:11434/v1", "http://127.0.0.1:8080/v1", "https://judge.example.com/v1"]
)
def test_endpoint_factory__accepted_endpoint__constructs_without_an_api_key(
    name: str, parameter: str, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    scorer = registry.factory(name)(**{parameter: url})
    assert callable(scorer)


@pytest.mark.parametrize(("name", "parameter"), [(n, p) for n, p in ENDPOINT_FACTORIES if p == "base_url"])
def test_endpoint_factory__client_with_cleartext_remote_base_url__refused(name: str, parameter: str) -> None:
    factory = registry.factory(name)
    client = openai.OpenAI(base_url="http://10.20.30.40/v1", api_key="test-key")
    try:
        with pytest.raises(ValueError, match=r"^client\.base_url=.*is refused"):
            factory(client=client)
    finally:
        client.close()


@pytest.mark.parametrize(
    ("name", "parameter"), [(n, p) for n, p in ENDPOINT_FACTORIES if p == "judge_base_url"]
)
def test_trajectory_judge__no_judge_base_url__raises_at_construction(name: str, parameter: str) -> None:
    with pytest.raises(ValueError, match=parameter):
        registry.factory(name)()


AUTOEVALS_JUDGES = [n for n, p in ENDPOINT_FACTORIES if p == "base_url"]


@pytest.mark.parametrize("name", AUTOEVALS_JUDGES)
def test_autoevals_judge__no_endpoint_and_no_key__constructs_for_openai_https_default(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    scorer = registry.factory(name)()
    assert scorer.endpoint == "https://api.openai.com/v1"


@pytest.mark.parametrize("name", AUTOEVALS_JUDGES)
def test_autoevals_judge__openai_base_url_env__used_when_no_base_url_and_checked(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    factory = registry.factory(name)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost.:8080/v1")
    assert factory().endpoint == "http://localhost.:8080/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://judge.example.com/v1")
    with pytest.raises(ValueError, match=r"^base_url \(from OPENAI_BASE_URL\)=.*cleartext"):
        factory()
    # an explicit base_url wins over the environment
    assert factory(base_url="https://judge.example.com/v1").endpoint == "https://judge.example.com/v1"
