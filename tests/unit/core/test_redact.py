"""Secret values from the environment never survive redaction."""

from __future__ import annotations

import pytest

from agent_evals.core.redact import MASK, Redactor, is_secret_name, redact, secret_values


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("OPENAI_API_KEY", True),
        ("GITHUB_TOKEN", True),
        ("CLIENT_SECRET", True),
        ("DB_PASSWORD", True),
        ("db_password", True),
        ("KEYBOARD", False),
        ("TOKEN_COUNT", False),
        ("PATH", False),
    ],
)
def test_is_secret_name__suffix_rule(name: str, secret: bool) -> None:
    assert is_secret_name(name) is secret


def test_redact__secret_values__are_masked_everywhere() -> None:
    env = {"OPENAI_API_KEY": "sk-abc123456", "HOME": "/root"}
    text = "key=sk-abc123456 again sk-abc123456 home=/root"
    assert redact(text, env=env) == f"key={MASK} again {MASK} home=/root"


def test_redact__short_values__are_left_alone() -> None:
    env = {"A_TOKEN": "abc", "B_KEY": ""}
    assert redact("abc is fine", env=env) == "abc is fine"


def test_redact__extra_names__are_treated_as_secrets() -> None:
    env = {"MY_DSN": "postgres://u:pw@host/db"}
    assert redact("dsn postgres://u:pw@host/db", env=env) == "dsn postgres://u:pw@host/db"
    assert redact("dsn postgres://u:pw@host/db", env=env, extra_names=["my_dsn"]) == f"dsn {MASK}"


def test_redact__overlapping_secrets__longest_wins_so_nothing_leaks() -> None:
    env = {"A_KEY": "abcd", "B_KEY": "abcdefgh"}
    assert redact("abcdefgh", env=env) == MASK


def test_redact__json_and_url_encoded_forms__are_masked_too() -> None:
    env = {"X_PASSWORD": 'p"a/ss word'}
    assert redact('{"pw": "p\\"a/ss word"}', env=env) == '{"pw": "***"}'
    assert redact("https://h/?pw=p%22a%2Fss%20word", env=env) == "https://h/?pw=***"


def test_redact__default_env__is_os_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AE_TEST_TOKEN", "tok-xyz-987")
    assert redact("value tok-xyz-987") == f"value {MASK}"


def test_redactor__no_secrets__is_inactive_and_identity() -> None:
    redactor = Redactor.from_env({"HOME": "/root"})
    assert not redactor.active
    assert redactor("anything") == "anything"


def test_secret_values__longest_first_without_duplicates() -> None:
    values = secret_values({"A_KEY": "abcd", "B_TOKEN": "abcdefgh", "C_SECRET": "abcd"})
    assert values == ["abcdefgh", "abcd"]
