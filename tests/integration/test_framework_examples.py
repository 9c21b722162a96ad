"""framework-examples/: the OpenAI Agents SDK and PydanticAI lights assistants (a YAML benchmark and an eval
file each) run by `agent-evals run` against the loopback OpenAI-compatible server, as a user would run them."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from servers.openai_server import OpenAIServer, TextAnswer, ToolCallAnswer

REPO = Path(__file__).resolve().parents[2]
FRAMEWORKS = {"openai_agents": "agents", "pydantic_ai": "pydantic_ai"}  # example folder -> what it imports
TOOL_CALL_USAGE = {"prompt_tokens": 30, "completion_tokens": 7, "total_tokens": 37}
ANSWER_USAGE = {"prompt_tokens": 50, "completion_tokens": 9, "total_tokens": 59}


def _needs(folder: str) -> None:
    """Skip, saying why, only when the framework is genuinely missing (the dev extra installs both)."""
    if folder == "pydantic_ai" and sys.version_info < (3, 11):
        pytest.skip("pydantic-ai-slim 2.78 needs Python >= 3.11")
    if importlib.util.find_spec(FRAMEWORKS[folder]) is None:
        pytest.skip(f"{FRAMEWORKS[folder]} is not installed: pip install -e '.[dev]'")


def _responder(wrong_room: bool) -> Any:
    """A model that calls set_light for the room the user named (or always the bathroom), then answers."""

    def answer(body: dict[str, Any]) -> Any:
        messages = body["messages"]
        if messages[-1]["role"] == "tool":
            return TextAnswer(f"Done: {messages[-1]['content']}", usage=ANSWER_USAGE)
        prompt = next(str(m["content"]) for m in messages if m["role"] == "user")
        args = (
            {"room": "kitchen", "state": "on"} if "kitchen" in prompt else {"room": "hallway", "state": "off"}
        )
        if wrong_room:
            args["room"] = "bathroom"
        return ToolCallAnswer("set_light", args, usage=TOOL_CALL_USAGE)

    return answer


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as srv:
        yield srv


def _run(folder: str, server: OpenAIServer, out: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "OPENAI_BASE_URL": server.base_url,
        "OPENAI_API_KEY": "test-key",
        "OPENAI_AGENTS_DISABLE_TRACING": "1",  # the Agents SDK would upload its traces to OpenAI
    }
    return subprocess.run(
        [sys.executable, "-m", "agent_evals", "run", f"framework-examples/{folder}/", "-o", str(out)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def _trials(out: Path) -> dict[str, list[dict[str, Any]]]:
    record = json.loads(out.read_text(encoding="utf-8"))
    return {
        suite["kind"]: [t for case in suite["cases"] for t in case["trials"]] for suite in record["suites"]
    }


@pytest.mark.parametrize("folder", sorted(FRAMEWORKS))
def test_framework_example__benchmark_and_eval_file__pass_with_tool_calls_and_usage_from_from_run(
    folder: str, server: OpenAIServer, tmp_path: Path
) -> None:
    _needs(folder)
    server.responder = _responder(wrong_room=False)
    done = _run(folder, server, tmp_path / "run.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Run: 4 cases, 4 passed, 0 failed, 0 errored" in done.stdout
    trials = _trials(tmp_path / "run.json")
    assert len(trials["benchmark"]) == 4 and len(trials["evals"]) == 2
    for trial in trials["benchmark"]:  # the YAML's tool_use: check read the calls from_run gave
        assert trial["scores"]["ToolCallExactMatch"]["passed"], trial
    for trial in [*trials["benchmark"], *trials["evals"]]:
        assert (trial["usage"]["input_tokens"], trial["usage"]["output_tokens"]) == (80, 16), trial
        assert set(trial["usage"]["models"]) == {"gpt-4o-mini"}
    assert server.chat_count == 12  # two model calls per trial: the tool call, then the answer


@pytest.mark.parametrize("folder", sorted(FRAMEWORKS))
def test_framework_example__agent_calls_the_wrong_room__tool_call_checks_fail(
    folder: str, server: OpenAIServer, tmp_path: Path
) -> None:
    _needs(folder)
    server.responder = _responder(wrong_room=True)
    done = _run(folder, server, tmp_path / "run.json")
    assert done.returncode == 0, done.stdout + done.stderr  # failures are results; no gate was asked for
    assert "Run: 4 cases, 0 passed, 4 failed, 0 errored" in done.stdout
    trials = _trials(tmp_path / "run.json")
    assert not any(t["scores"]["ToolCallExactMatch"]["passed"] for t in trials["benchmark"])
    assert not any(t["scores"]["tool_calls"]["passed"] for t in trials["evals"])
    notes = trials["benchmark"][0]["scores"]["ToolCallExactMatch"]["notes"]
    assert "bathroom" in notes, notes
