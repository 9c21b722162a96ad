"""The Actions settings object: environment, event payload, fork detection, and a token kept secret."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_evals.errors import UsageError
from agent_evals.github.settings import ActionsSettings

TOKEN = "ghs_secretTOKENvalue42"


def _pr_event(tmp_path: Path, head_repo: str = "octo/demo") -> Path:
    payload: dict[str, Any] = {
        "number": 9,
        "repository": {"full_name": "octo/demo", "default_branch": "trunk"},
        "pull_request": {
            "number": 9,
            "labels": [{"name": "agent-evals:accept-regression"}, {"name": "docs"}],
            "base": {"sha": "b" * 40, "ref": "trunk", "repo": {"full_name": "octo/demo"}},
            "head": {"sha": "h" * 40, "ref": "feature", "repo": {"full_name": head_repo}},
        },
    }
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload))
    return path


def _env(event: Path) -> dict[str, str]:
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": "octo/demo",
        "GITHUB_API_URL": "http://127.0.0.1:1/",
        "GITHUB_REF": "refs/pull/9/merge",
        "GITHUB_WORKFLOW_REF": "octo/demo/.github/workflows/gate.yml@refs/pull/9/merge",
        "GITHUB_TOKEN": TOKEN,
    }


def test_from_env__pull_request__parses_payload(tmp_path: Path) -> None:
    s = ActionsSettings.from_env(_env(_pr_event(tmp_path)))
    assert s.in_actions and s.pr_number == 9 and s.owner_repo == ("octo", "demo")
    assert s.event.labels == ("agent-evals:accept-regression", "docs")
    assert (s.event.base_sha, s.event.default_branch, s.event.is_fork) == ("b" * 40, "trunk", False)
    assert s.workflow_file == "gate.yml" and s.branch is None
    assert s.api_url == "http://127.0.0.1:1"


def test_from_env__head_from_other_repository__is_fork(tmp_path: Path) -> None:
    assert ActionsSettings.from_env(_env(_pr_event(tmp_path, head_repo="someone/demo"))).event.is_fork


def test_from_env__token__never_in_repr_str_or_json(tmp_path: Path) -> None:
    s = ActionsSettings.from_env(_env(_pr_event(tmp_path)))
    assert s.token_value() == TOKEN
    for text in (repr(s), str(s), s.model_dump_json()):
        assert TOKEN not in text


def test_from_env__explicit_token__overrides_environment(tmp_path: Path) -> None:
    assert ActionsSettings.from_env(_env(_pr_event(tmp_path)), token="other").token_value() == "other"


def test_from_env__outside_actions__defaults() -> None:
    s = ActionsSettings.from_env({})
    assert (s.in_actions, s.event_name, s.pr_number, s.token) == (False, None, None, None)
    with pytest.raises(UsageError, match="GITHUB_REPOSITORY"):
        _ = s.owner_repo


def test_from_env__broken_payload__usage_error_names_file(tmp_path: Path) -> None:
    bad = tmp_path / "event.json"
    bad.write_text("{nope")
    with pytest.raises(UsageError, match=r"event\.json:1: the event payload is not valid JSON"):
        ActionsSettings.from_env({"GITHUB_EVENT_PATH": str(bad)})


def test_branch__push_ref__stripped() -> None:
    assert ActionsSettings.from_env({"GITHUB_REF": "refs/heads/release/1.x"}).branch == "release/1.x"
