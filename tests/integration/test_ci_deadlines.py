"""`agent-evals ci` against a GitHub that stalls, trickles or asks for a long wait while the baseline is
looked up: no verdict (exit 3) within --github-deadline-s, naming the host and what timed out."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import pytest
from test_cli_ci import CASES, Harness, _comments, h  # noqa: F401  # h: the fixture

from servers.github_server import TOKEN, Fault, Slow

DEADLINE_S = 2


def _rows() -> dict[str, tuple[list[Slow], list[Fault], str, str]]:
    """Fresh faults per test: (slow answers, scripted faults, host named, what timed out)."""
    return {
        "api-call-stalls": (
            [Slow(r"/actions/workflows/gate.yml/runs$", stall=True)], [], "api",
            "the API call GET /repos/octo/demo/actions/workflows/gate.yml/runs",
        ),
        "api-body-trickles": (
            [Slow(r"/actions/runs/\d+/artifacts$", chunk=1, every_s=0.5)], [], "api",
            "the API call GET /repos/octo/demo/actions/runs/",
        ),
        "artifact-zip-trickles": (
            [Slow(r"/blob/", host="zip", chunk=1, every_s=0.5)], [], "zip", "the baseline artifact download",
        ),
        "redirect-target-stalls": (
            [Slow(r"/blob/", host="zip", stall=True)], [], "zip", "the baseline artifact download",
        ),
        "retry-after-beyond-the-deadline": (
            [], [Fault("GET", r"/artifacts/\d+/zip$", 429, {"message": "x"}, {"retry-after": "30"})], "api",
            "a wait of 30 s is longer than what is left",
        ),
    }  # fmt: skip


@pytest.mark.parametrize("kind", sorted(_rows()))
def test_ci__github_slow_while_the_baseline_is_looked_up__no_verdict_exit_3_within_the_deadline(
    h: Harness,  # noqa: F811
    kind: str,
) -> None:
    slow, faults, host, says = _rows()[kind]
    h.add_baseline_run(h.baseline_zip())
    h.github.state.slow += slow
    h.github.state.faults += faults
    started = time.monotonic()
    result = h.run(
        "--github-deadline-s", str(DEADLINE_S), "--on-missing-baseline", "pass", fail=tuple(CASES[:8])
    )
    elapsed = time.monotonic() - started
    assert result.code == 3, result.stdout + result.stderr
    assert result.outputs["status"] == "error"
    [comment] = _comments(h)
    assert "no verdict" in comment["body"].splitlines()[1]
    netloc = urlsplit(h.github.zip_url if host == "zip" else h.github.api_url).netloc
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error::")]
    assert any(f"from {netloc} within {DEADLINE_S} s" in e and says in e for e in errors), result.stdout
    assert TOKEN not in result.stdout + result.stderr + result.summary
    # the run of the suites and the comment take a few seconds; the lookup itself at most DEADLINE_S
    assert elapsed < 25, elapsed


def test_ci__github_deadline__defaults_to_60_seconds_and_is_documented() -> None:
    from agent_evals.ci.options import CIOptions
    from agent_evals.cli.ci import ci
    from agent_evals.cli.publish import publish

    assert CIOptions().github_deadline_s == 60
    for command in (ci, publish):
        [option] = [p for p in command.params if p.name == "github_deadline_s"]
        assert option.default == 60 and "exit 3" in (option.help or "")  # type: ignore[attr-defined]
