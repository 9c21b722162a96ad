"""The child run's environment: which variables are held back, how --hold-env is read, what is masked."""

from __future__ import annotations

import pytest

from agent_evals.ci.child_env import child_env, is_held, parse_hold_env, redaction_names
from agent_evals.errors import UsageError


@pytest.mark.parametrize(
    ("name", "held"),
    [
        ("GITHUB_TOKEN", True),
        ("github_token", True),  # Windows compares names without case
        ("AGENT_EVALS_GITHUB_TOKEN", True),
        ("INPUT_GITHUB-TOKEN", True),
        ("INPUT_PATH", True),
        ("ACTIONS_RUNTIME_TOKEN", True),
        ("ACTIONS_ID_TOKEN_REQUEST_URL", True),
        ("ACTIONS_ID_TOKEN_REQUEST_TOKEN", True),
        ("ACTIONS_CACHE_URL", True),
        ("ACTIONS_RESULTS_URL", True),
        *(
            (n, True)
            for n in ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_STATE")
        ),
        ("OPENAI_API_KEY", False),
        ("GITHUB_SHA", False),
        ("GITHUB_REF", False),
        ("GITHUB_RUN_ID", False),
        ("GITHUB_ENVIRONMENT", False),  # a name, not a prefix
        ("PATH", False),
    ],
)
def test_is_held__job_credentials_and_file_commands__held_model_keys_and_context_pass(
    name: str, held: bool
) -> None:
    assert is_held(name) is held


def test_child_env__hold_names_and_prefixes__held_too() -> None:
    env = {"GITHUB_TOKEN": "t", "DEPLOY_KEY": "d", "AWS_A": "a", "AWS_B": "b", "OPENAI_API_KEY": "k"}
    assert child_env(env, ("deploy_key", "AWS_*")) == {"OPENAI_API_KEY": "k"}


@pytest.mark.parametrize(
    ("values", "names"),
    [
        ((), ()),
        (("A",), ("A",)),
        (("A, B C",), ("A", "B", "C")),
        (("A", "A,B"), ("A", "B")),
        (("AWS_*",), ("AWS_*",)),
        (("  ",), ()),
    ],
)
def test_parse_hold_env__commas_and_whitespace__split(
    values: tuple[str, ...], names: tuple[str, ...]
) -> None:
    assert parse_hold_env(values) == names


@pytest.mark.parametrize("bad", ["A=B", "*", "A*B", "**"])
def test_parse_hold_env__not_a_name__usage_error_naming_it(bad: str) -> None:
    with pytest.raises(UsageError, match="--hold-env"):
        parse_hold_env([bad])


def test_redaction_names__tokens_secret_inputs_and_held_names__not_paths_urls_or_plain_inputs() -> None:
    env = {
        "GITHUB_TOKEN": "t",
        "INPUT_GITHUB-TOKEN": "t",
        "INPUT_PATH": ".",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "o",
        "ACTIONS_ID_TOKEN_REQUEST_URL": "u",
        "GITHUB_OUTPUT": "/tmp/out",
        "DEPLOY_HOST": "h",
        "OPENAI_API_KEY": "k",
    }
    assert sorted(redaction_names(env, ("DEPLOY_HOST",))) == [
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        "DEPLOY_HOST",
        "GITHUB_TOKEN",
        "INPUT_GITHUB-TOKEN",
    ]
