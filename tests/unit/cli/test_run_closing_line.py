"""The closing line of ``agent-evals run``, and ``compare``'s view of a candidate, say what ran again or
was not run live: the trials ``--retry-errors`` retried and the model calls ``--cache replay`` answered
(the JSON's ``attempts`` and ``cache`` were the only place to find them)."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_evals.cli.main import cli
from servers.loopback_http import Failure
from servers.openai_server import OpenAIServer, TextAnswer

EVAL_FILE = """
    import os

    import openai
    from agent_evals import EvalContext, eval


    @eval(input="go", trials=2)
    def test_model(ctx: EvalContext) -> None:
        client = openai.OpenAI(base_url=os.environ["TEST_BASE_URL"], api_key="test-key", max_retries=0)
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": ctx.input}])
        ctx.output = reply.choices[0].message.content
        assert ctx.output == "ok"
"""


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        yield running


@pytest.fixture
def project(server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> OpenAIServer:
    """A folder with the eval file, its model at the loopback server, scripted to refuse the first
    call (429) and answer the next two."""
    pytest.importorskip("openai")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TEST_BASE_URL", server.base_url)
    (tmp_path / "eval_model_closing.py").write_text(textwrap.dedent(EVAL_FILE), encoding="utf-8")
    server.script(Failure(429, {"Retry-After": "0"}), TextAnswer("ok"), TextAnswer("ok"))
    return server


def _closing(*args: str) -> str:
    done = CliRunner().invoke(cli, ["run", "eval_model_closing.py", *args])
    assert done.exit_code == 0, done.output
    return [line for line in done.output.splitlines() if line.startswith("Run: ")][-1]


def test_run__retried_trials_and_replayed_calls__counted_in_the_closing_line(
    project: OpenAIServer,
) -> None:
    server = project
    recorded = _closing("--retry-errors", "1", "--cache", "record", "-o", "first.json")
    assert recorded.endswith("pass rate 100.0%; 1 trial retried (1 earlier attempt errored)")
    replayed = _closing("--cache", "replay", "-o", "second.json")
    assert replayed.endswith("pass rate 100.0%; 2 model calls replayed from the cache")
    assert server.chat_count == 3  # the replay reached no server


def _candidate_line(baseline: str, candidate: str) -> list[str]:
    done = CliRunner().invoke(cli, ["compare", baseline, candidate])
    assert done.exit_code == 0, done.output
    return [line for line in done.output.splitlines() if line.startswith("Candidate run: ")]


def test_compare__candidate_retried_and_replayed__said_under_the_verdict(
    project: OpenAIServer,
) -> None:
    server = project
    _closing("--retry-errors", "1", "--cache", "record", "-o", "first.json")
    _closing("--cache", "replay", "-o", "second.json")
    server.script(TextAnswer("ok"), TextAnswer("ok"))
    _closing("-o", "plain.json")
    assert _candidate_line("first.json", "plain.json") == []  # nothing ran again: no line
    assert _candidate_line("second.json", "first.json") == [
        "Candidate run: 1 trial retried (1 earlier attempt errored)."
    ]
    assert _candidate_line("first.json", "second.json") == [
        "Candidate run: 2 model calls replayed from the cache."
    ]
    assert _candidate_line("first.json", "first.json")[0].startswith("Candidate run: 1 trial")
    assert _candidate_line("second.json", "second.json")[0].endswith("replayed from the cache.")
