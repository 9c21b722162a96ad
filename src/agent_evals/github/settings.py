"""One typed settings object built from the GitHub Actions environment and the event payload."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from agent_evals.errors import UsageError

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_SERVER_URL = "https://github.com"


class EventInfo(BaseModel):
    """The facts agent-evals needs from the event payload (``GITHUB_EVENT_PATH``)."""

    model_config = ConfigDict(frozen=True)

    pr_number: int | None = None
    """Pull request number (pull_request / pull_request_target events)."""
    base_sha: str | None = None
    """The pull request's base commit."""
    head_sha: str | None = None
    """The pull request's head commit."""
    base_ref: str | None = None
    """The pull request's base branch name."""
    labels: tuple[str, ...] = ()
    """Names of the labels on the pull request."""
    default_branch: str | None = None
    """``repository.default_branch`` from the payload."""
    head_repo: str | None = None
    """``owner/name`` of the repository the pull request comes from."""
    is_fork: bool = False
    """True when the pull request comes from another repository (its token is read-only)."""


class ActionsSettings(BaseModel):
    """The GitHub Actions environment, read once and passed down.

    The token is a secret: it is excluded from ``repr`` and never rendered into messages.
    """

    model_config = ConfigDict(frozen=True)

    in_actions: bool = False
    """True when ``GITHUB_ACTIONS`` is ``true``."""
    event_name: str | None = None
    """``GITHUB_EVENT_NAME``: pull_request, push, workflow_dispatch, merge_group, schedule, ..."""
    event_path: str | None = None
    """``GITHUB_EVENT_PATH``: the JSON payload of the event."""
    repository: str | None = None
    """``GITHUB_REPOSITORY``: ``owner/name``."""
    api_url: str = DEFAULT_API_URL
    """``GITHUB_API_URL``: the REST API root."""
    server_url: str = DEFAULT_SERVER_URL
    """``GITHUB_SERVER_URL``: the web root, for links."""
    sha: str | None = None
    """``GITHUB_SHA``: the commit the workflow runs on."""
    ref: str | None = None
    """``GITHUB_REF``: the full ref, e.g. ``refs/heads/main``."""
    base_ref: str | None = None
    """``GITHUB_BASE_REF``: the pull request's base branch."""
    head_ref: str | None = None
    """``GITHUB_HEAD_REF``: the pull request's head branch."""
    run_id: str | None = None
    """``GITHUB_RUN_ID``."""
    workflow_ref: str | None = None
    """``GITHUB_WORKFLOW_REF``: ``owner/repo/.github/workflows/file.yml@ref``."""
    step_summary: str | None = None
    """``GITHUB_STEP_SUMMARY``: the job summary file."""
    output: str | None = None
    """``GITHUB_OUTPUT``: the step outputs file."""
    token: SecretStr | None = Field(default=None, repr=False)
    """The API token (``--github-token`` or ``GITHUB_TOKEN``); never printed."""
    event: EventInfo = Field(default_factory=EventInfo)
    """Facts parsed from the event payload."""

    @classmethod
    def from_env(cls, env: Mapping[str, str], *, token: str | None = None) -> ActionsSettings:
        """Read the settings from an environment mapping; ``token`` overrides ``GITHUB_TOKEN``."""

        def get(name: str) -> str | None:
            value = env.get(name)
            return value if value else None

        raw_token = token or get("GITHUB_TOKEN")
        event_path = get("GITHUB_EVENT_PATH")
        event = parse_event(Path(event_path), get("GITHUB_REPOSITORY")) if event_path else EventInfo()
        return cls(
            in_actions=env.get("GITHUB_ACTIONS") == "true",
            event_name=get("GITHUB_EVENT_NAME"),
            event_path=event_path,
            repository=get("GITHUB_REPOSITORY"),
            api_url=(get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/"),
            server_url=(get("GITHUB_SERVER_URL") or DEFAULT_SERVER_URL).rstrip("/"),
            sha=get("GITHUB_SHA"),
            ref=get("GITHUB_REF"),
            base_ref=get("GITHUB_BASE_REF"),
            head_ref=get("GITHUB_HEAD_REF"),
            run_id=get("GITHUB_RUN_ID"),
            workflow_ref=get("GITHUB_WORKFLOW_REF"),
            step_summary=get("GITHUB_STEP_SUMMARY"),
            output=get("GITHUB_OUTPUT"),
            token=SecretStr(raw_token) if raw_token else None,
            event=event,
        )

    @property
    def owner_repo(self) -> tuple[str, str]:
        """``(owner, name)`` of the repository; a UsageError when ``GITHUB_REPOSITORY`` is unset."""
        if not self.repository or "/" not in self.repository:
            raise UsageError(
                f"GITHUB_REPOSITORY must be 'owner/name', found {self.repository!r}; "
                "run inside GitHub Actions or set it explicitly"
            )
        owner, _, name = self.repository.partition("/")
        return owner, name

    @property
    def branch(self) -> str | None:
        """The branch the run is on (``refs/heads/`` stripped), None for tags and PR merge refs."""
        if self.ref and self.ref.startswith("refs/heads/"):
            return self.ref[len("refs/heads/") :]
        return None

    @property
    def workflow_file(self) -> str | None:
        """The current workflow's file name (``gate.yml``) from ``GITHUB_WORKFLOW_REF``."""
        if not self.workflow_ref:
            return None
        path = self.workflow_ref.split("@", 1)[0]
        return path.rsplit("/", 1)[-1] or None

    @property
    def pr_number(self) -> int | None:
        """The pull request number of the event, when any."""
        return self.event.pr_number

    @property
    def run_url(self) -> str | None:
        """Web link to the current workflow run."""
        if not (self.repository and self.run_id):
            return None
        return f"{self.server_url}/{self.repository}/actions/runs/{self.run_id}"

    def token_value(self) -> str | None:
        """The raw token, for the Authorization header only."""
        return self.token.get_secret_value() if self.token else None


def parse_event(path: Path, repository: str | None) -> EventInfo:
    """Parse an Actions event payload file into :class:`EventInfo`; a UsageError names the file."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read the event payload GITHUB_EVENT_PATH={path}: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}:{exc.lineno}: the event payload is not valid JSON: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise UsageError(f"{path}: the event payload must be a JSON object")
    repo = _obj(data.get("repository"))
    default_branch = repo.get("default_branch")
    default_branch = default_branch if isinstance(default_branch, str) else None
    group = _obj(data.get("merge_group"))
    if group:  # a merge queue entry: compare its head with the base branch it will land on
        base_ref = _str(group.get("base_ref"))
        return EventInfo(
            base_sha=_str(group.get("base_sha")),
            head_sha=_str(group.get("head_sha")),
            base_ref=base_ref.removeprefix("refs/heads/") if base_ref else None,
            default_branch=default_branch,
        )
    pr = _obj(data.get("pull_request"))
    if not pr:
        return EventInfo(default_branch=default_branch)
    base = _obj(pr.get("base"))
    head = _obj(pr.get("head"))
    head_repo = _obj(head.get("repo")).get("full_name")
    base_repo = _obj(base.get("repo")).get("full_name") or repository
    labels = tuple(
        str(label["name"])
        for label in pr.get("labels") or []
        if isinstance(label, dict) and isinstance(label.get("name"), str)
    )
    number = pr.get("number", data.get("number"))
    return EventInfo(
        pr_number=number if isinstance(number, int) else None,
        base_sha=_str(base.get("sha")),
        head_sha=_str(head.get("sha")),
        base_ref=_str(base.get("ref")),
        labels=labels,
        default_branch=default_branch,
        head_repo=_str(head_repo),
        # `head.repo.fork` is true for any fork, even for a PR inside it; compare names instead.
        is_fork=bool(head_repo and base_repo and head_repo != base_repo),
    )


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
