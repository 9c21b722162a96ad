"""GitHub REST objects shaped as GitHub's OpenAPI description requires, and the facts vendored from it."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

FACTS_FILE = Path(__file__).with_name("github_api_facts.json")
BOT_LOGIN = "github-actions[bot]"
NOW = "2026-01-10T00:00:00Z"
# Answers GitHub may give on any endpoint (authentication, rate limits, outages), documented in the
# REST guides rather than per operation.
ANY_ENDPOINT_STATUSES = frozenset({401, 403, 429, 500, 502, 503, 504})


@cache
def facts() -> dict[str, Any]:
    """The vendored facts: ``endpoints[<METHOD> <path template>]`` -> statuses, required fields, headers."""
    data: dict[str, Any] = json.loads(FACTS_FILE.read_text(encoding="utf-8"))
    return data


def endpoint_of(method: str, path: str) -> str | None:
    """The documented ``METHOD /template`` that a concrete request path matches, if any."""
    for key in facts()["endpoints"]:
        verb, template = key.split(" ", 1)
        pattern = re.sub(r"\{[^}]+\}", "[^/]+", template.replace("{path}", "(.+)"))
        if verb == method and re.fullmatch(pattern, path):
            return key
    return None


def conform(obj: dict[str, Any], endpoint: str) -> dict[str, Any]:
    """``obj`` with every field the endpoint's schema requires present (absent ones set to None)."""
    for name in facts()["endpoints"][endpoint].get("required", []):
        obj.setdefault(name, None)
    return obj


def user(login: str, *, user_id: int = 41898282) -> dict[str, Any]:
    """A simple-user object."""
    kind = "Bot" if login.endswith("[bot]") else "User"
    return {
        "login": login,
        "id": user_id,
        "node_id": f"U_{user_id}",
        "type": kind,
        "site_admin": False,
        "url": f"https://api.github.example/users/{login}",
        "html_url": f"https://github.example/{login}",
        **{
            f: ""
            for f in (
                "avatar_url",
                "events_url",
                "followers_url",
                "following_url",
                "gists_url",
                "gravatar_id",
                "organizations_url",
                "received_events_url",
                "repos_url",
                "starred_url",
                "subscriptions_url",
            )
        },
    }


ACTIONS_APP_ID = 15368
"""The GitHub Actions app, whose bot user ``github-actions[bot]`` writes ``GITHUB_TOKEN``'s comments."""


def app(slug: str) -> dict[str, Any]:
    """The integration object of a GitHub App (``performed_via_github_app``)."""
    app_id = ACTIONS_APP_ID if slug == "github-actions" else 900_000 + sum(map(ord, slug))
    return {
        "id": app_id,
        "slug": slug,
        "node_id": f"A_{app_id}",
        "owner": user("octo-org", user_id=7),
        "name": slug.replace("-", " ").title(),
        "description": None,
        "external_url": f"https://github.example/apps/{slug}",
        "html_url": f"https://github.example/apps/{slug}",
        "created_at": NOW,
        "updated_at": NOW,
        "permissions": {"issues": "write", "pull_requests": "write"},
        "events": [],
    }


def comment(repo: str, number: int, cid: int, body: str, login: str) -> dict[str, Any]:
    """An issue-comment object; a bot's (``<slug>[bot]``) names the app it was made through, as
    GitHub's do (``performed_via_github_app``), a person's token's names none."""
    return {
        "performed_via_github_app": app(login.removesuffix("[bot]")) if login.endswith("[bot]") else None,
        "id": cid,
        "node_id": f"IC_{cid}",
        "body": body,
        "user": user(login),
        "author_association": "NONE" if login.endswith("[bot]") else "MEMBER",
        "url": f"https://api.github.example/repos/{repo}/issues/comments/{cid}",
        "html_url": f"https://github.example/{repo}/pull/{number}#issuecomment-{cid}",
        "issue_url": f"https://api.github.example/repos/{repo}/issues/{number}",
        "created_at": NOW,
        "updated_at": NOW,
    }


def status(repo: str, sha: str, status_id: int, body: dict[str, Any], login: str) -> dict[str, Any]:
    """A commit-status object (``POST /repos/{owner}/{repo}/statuses/{sha}``)."""
    return {
        "url": f"https://api.github.example/repos/{repo}/statuses/{sha}",
        "avatar_url": None,
        "id": status_id,
        "node_id": f"SC_{status_id}",
        "state": body["state"],
        "description": body.get("description"),
        "target_url": body.get("target_url"),
        "context": body.get("context") or "default",
        "created_at": NOW,
        "updated_at": NOW,
        "creator": user(login),
    }


def label(name: str, label_id: int) -> dict[str, Any]:
    """A label object."""
    return {
        "id": label_id,
        "node_id": f"LA_{label_id}",
        "url": f"https://api.github.example/labels/{label_id}",
        "name": name,
        "description": None,
        "color": "ededed",
        "default": False,
    }


def workflow_run(
    repo: str,
    run_id: int,
    *,
    workflow: str,
    head_sha: str,
    created_at: str,
    branch: str,
    event: str,
    conclusion: str,
    head_repo: str,
) -> dict[str, Any]:
    """A workflow-run object (completed)."""
    api = f"https://api.github.example/repos/{repo}/actions/runs/{run_id}"
    return conform(
        {
            "id": run_id,
            "node_id": f"WFR_{run_id}",
            "name": workflow,
            "display_title": workflow,
            "run_number": run_id,
            "head_sha": head_sha,
            "head_branch": branch,
            "event": event,
            "status": "completed",
            "conclusion": conclusion,
            "created_at": created_at,
            "updated_at": created_at,
            "path": f".github/workflows/{workflow}",
            "workflow_id": 1,
            "url": api,
            "html_url": f"https://github.example/{repo}/actions/runs/{run_id}",
            "artifacts_url": f"{api}/artifacts",
            "head_repository": {"full_name": head_repo},
            "repository": {"full_name": repo},
            "pull_requests": [],
        },
        "GET /repos/{owner}/{repo}/actions/runs/{run_id}",
    )


def artifact(
    repo: str, artifact_id: int, run_id: int, *, name: str, size: int, expired: bool
) -> dict[str, Any]:
    """An artifact object."""
    api = f"https://api.github.example/repos/{repo}/actions/artifacts/{artifact_id}"
    return {
        "id": artifact_id,
        "node_id": f"MDg_{artifact_id}",
        "name": name,
        "size_in_bytes": size,
        "expired": expired,
        "url": api,
        "archive_download_url": f"{api}/zip",
        "created_at": NOW,
        "updated_at": NOW,
        "expires_at": "2026-04-10T00:00:00Z",
        "workflow_run": {"id": run_id},
    }


def blob_sha(data: bytes) -> str:
    """Git's blob id of ``data``."""
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def content_file(repo: str, path: str, data: bytes) -> dict[str, Any]:
    """A content-file object (base64 content)."""
    import base64

    url = f"https://api.github.example/repos/{repo}/contents/{path}"
    return {
        "type": "file",
        "encoding": "base64",
        "size": len(data),
        "name": path.rsplit("/", 1)[-1],
        "path": path,
        "content": base64.b64encode(data).decode(),
        "sha": blob_sha(data),
        "url": url,
        "git_url": None,
        "html_url": None,
        "download_url": None,
        "_links": {"self": url},
    }


def file_commit(repo: str, path: str, data: bytes | None) -> dict[str, Any]:
    """A file-commit object (the answer to a contents write or delete)."""
    return {
        "content": content_file(repo, path, data) if data is not None else None,
        "commit": {"sha": blob_sha(path.encode()), "message": "agent-evals"},
    }
