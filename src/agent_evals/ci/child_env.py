"""The environment of the process that runs the pull request's code: the job's credentials held back."""

# An agent, eval, scorer or evaluator is code of the pull request under test, and an LLM agent that
# runs tools can be steered by its inputs (prompt injection in a dataset). `ci` therefore starts it as
# a child process whose environment lacks every variable that could write to the repository, mint a
# token or act on the workflow: the GitHub tokens, the action's inputs (``INPUT_*``, such as
# ``INPUT_GITHUB-TOKEN``), the Actions runtime and OIDC request variables, and the workflow file-command
# paths (appending to ``GITHUB_ENV`` and friends sets variables, outputs or ``PATH`` for the later steps
# that hold the token). Model keys and every other variable pass; ``--hold-env NAME``
# (``AGENT_EVALS_HOLD_ENV``) holds back more. As ``python -m agent_evals.ci.child_env [--] COMMAND
# [ARG...]`` it runs COMMAND in that environment (the action's install and shard steps).

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence

from agent_evals.core.redact import SECRET_SUFFIXES
from agent_evals.errors import UsageError

HOLD_ENV_VARIABLE = "AGENT_EVALS_HOLD_ENV"
"""Extra names to hold back, separated by commas or whitespace (the ``--hold-env`` option's variable)."""

CREDENTIALS = (
    "GITHUB_TOKEN",
    "AGENT_EVALS_GITHUB_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_CACHE_URL",
    "ACTIONS_RESULTS_URL",
)
"""Variables that are, or lead to, a credential of the job: the API tokens and the Actions runtime
(artifact, cache and results services)."""

CREDENTIAL_PREFIXES = ("INPUT_", "ACTIONS_ID_TOKEN_REQUEST_")
"""Prefixes of the same: the action's inputs (``INPUT_GITHUB-TOKEN``) and the OIDC token request
(``ACTIONS_ID_TOKEN_REQUEST_URL`` and ``..._TOKEN``)."""

FILE_COMMANDS = ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_STATE")
"""The workflow file-command paths: what is appended to them acts on the job (variables and ``PATH`` of
later steps, step outputs, the job summary, the action's state)."""

HELD = (*CREDENTIALS, *(p + "*" for p in CREDENTIAL_PREFIXES), *FILE_COMMANDS)
"""Every name (or ``PREFIX*``) held back from the child, whatever the options say."""

_NAME = re.compile(r"[^\s,=*]+\*?")


def parse_hold_env(values: Iterable[str]) -> tuple[str, ...]:
    """The names of ``--hold-env`` values (each may list several, separated by commas or whitespace);
    ``PREFIX*`` holds every name that starts with PREFIX. A UsageError names a malformed entry."""
    names: list[str] = []
    for value in values:
        for entry in re.split(r"[\s,]+", value.strip()):
            if not entry:
                continue
            if not _NAME.fullmatch(entry):
                raise UsageError(
                    f"--hold-env / {HOLD_ENV_VARIABLE}: {entry!r} is not an environment variable name "
                    "(a name such as DEPLOY_KEY, or a prefix such as AWS_*; no '=')"
                )
            names.append(entry)
    return tuple(dict.fromkeys(names))


def _matches(name: str, patterns: Iterable[str]) -> bool:
    upper = name.upper()
    for pattern in (p.upper() for p in patterns):
        if upper.startswith(pattern[:-1]) if pattern.endswith("*") else upper == pattern:
            return True
    return False


def is_held(name: str, hold: Sequence[str] = ()) -> bool:
    """Whether the variable ``name`` is held back from the child (compared without case, as Windows
    does): one of :data:`HELD`, or named by ``hold``."""
    return _matches(name, (*HELD, *hold))


def child_env(env: Mapping[str, str], hold: Sequence[str] = ()) -> dict[str, str]:
    """``env`` without the variables the code under test must not hold (:func:`is_held`)."""
    return {name: value for name, value in env.items() if not is_held(name, hold)}


def redaction_names(env: Mapping[str, str], hold: Sequence[str] = ()) -> list[str]:
    """The held variables of ``env`` whose values are masked wherever the child's output or record shows
    them: the tokens, secret-looking inputs (``INPUT_GITHUB-TOKEN``) and the names of ``hold``; never
    the file-command paths and service URLs (no secrets), nor other inputs (``INPUT_PATH=.``)."""
    names = []
    for name in env:
        upper = name.upper()
        if upper in FILE_COMMANDS or upper.endswith("_URL"):
            continue
        token = upper in CREDENTIALS or upper.startswith("ACTIONS_ID_TOKEN_REQUEST_")
        secret_input = upper.startswith("INPUT_") and upper.replace("-", "_").endswith(SECRET_SUFFIXES)
        if token or secret_input or _matches(name, hold):
            names.append(name)
    return names


def main(argv: Sequence[str]) -> int:
    """Run ``argv`` (``[--] COMMAND ARG...``) with the child environment of this process's environment."""
    args = list(argv[1:] if argv and argv[0] == "--" else argv)
    if not args:
        print("usage: python -m agent_evals.ci.child_env [--] COMMAND [ARG...]", file=sys.stderr)
        return 2
    try:
        hold = parse_hold_env([os.environ.get(HOLD_ENV_VARIABLE, "")])
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    env = child_env(os.environ, hold)
    try:
        os.execvpe(args[0], args, env)
    except OSError as exc:
        print(f"error: cannot run {args[0]!r}: {exc.strerror or exc}", file=sys.stderr)
        return 127
    return 0  # not reached: exec replaced this process


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
