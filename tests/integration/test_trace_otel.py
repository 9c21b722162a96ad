"""`--trace otel`, `execution: {trace: otel}` and `@eval(trace="otel")`: agents that return only text, whose
OpenTelemetry GenAI spans (PydanticAI's own, or a hand-made execute_tool span) give agent-evals their tool
calls, usage and models. The real SDK, the real PydanticAI against the loopback OpenAI server, the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from servers.openai_server import OpenAIServer, TextAnswer, ToolCallAnswer

if sys.version_info < (3, 11):  # pragma: no cover - the dev extra installs PydanticAI 2.78 only on 3.11+
    pytest.skip("pydantic-ai-slim 2.78 needs Python >= 3.11", allow_module_level=True)
pytest.importorskip(
    "pydantic_ai", reason="pydantic-ai-slim[openai] is in the dev extra: pip install -e '.[dev]'"
)
pytest.importorskip(
    "opentelemetry.sdk.trace", reason="the otel extra is in the dev extra: pip install -e '.[dev]'"
)

PROJECT = Path(__file__).with_name("otel_project")
TOOL_CALL_USAGE = {"prompt_tokens": 30, "completion_tokens": 7, "total_tokens": 37}
ANSWER_USAGE = {"prompt_tokens": 50, "completion_tokens": 9, "total_tokens": 59}


def _answer(body: dict[str, Any]) -> Any:
    """Calls set_light for the room the user named, then answers with the tool's result."""
    messages = body["messages"]
    if messages[-1]["role"] == "tool":
        return TextAnswer(f"Done: {messages[-1]['content']}", usage=ANSWER_USAGE)
    prompt = next(str(m["content"]) for m in messages if m["role"] == "user")
    args = {"room": "kitchen", "state": "on"} if "kitchen" in prompt else {"room": "hallway", "state": "off"}
    return ToolCallAnswer("set_light", args, usage=TOOL_CALL_USAGE)


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as srv:
        srv.responder = _answer
        yield srv


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    shutil.copytree(PROJECT, folder)
    text = (folder / "lights.yaml").read_text(encoding="utf-8")
    (folder / "untraced.yaml").write_text(
        text.replace(", trace: otel}", "}").replace("lights-traced", "lights-untraced"), encoding="utf-8"
    )
    return folder


def _run(
    project: Path, server: OpenAIServer | None, *args: str, env: dict[str, str] | None = None, code: str = ""
) -> subprocess.CompletedProcess[str]:
    """`agent-evals run ARGS` in the project (``code``: Python run first in the same process)."""
    full_env = {**os.environ, "OPENAI_API_KEY": "test-key", **(env or {})}
    if server is not None:
        full_env["OPENAI_BASE_URL"] = server.base_url
    main = f"{code}\nimport sys\nsys.argv = ['agent-evals', 'run', *sys.argv[1:]]\nfrom agent_evals.cli.main import main\nmain()"
    return subprocess.run(
        [sys.executable, "-c", main, *args],
        cwd=project,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def _suites(out: Path) -> list[dict[str, Any]]:
    return list(json.loads(out.read_text(encoding="utf-8"))["suites"])


def _trials(suite: dict[str, Any]) -> list[dict[str, Any]]:
    return [trial for case in suite["cases"] for trial in case["trials"]]


def test_trace_otel__text_only_pydantic_ai_agent__passes_the_yaml_tool_use_check(
    project: Path, server: OpenAIServer, tmp_path: Path
) -> None:
    out = tmp_path / "run.json"
    done = _run(project, server, "lights.yaml", "-o", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 cases, 2 passed, 0 failed, 0 errored" in done.stdout, done.stdout
    (suite,) = _suites(out)
    trials = _trials(suite)
    assert len(trials) == 4 and all(t["scores"]["ToolCallExactMatch"]["passed"] for t in trials)
    for trial in trials:  # four trials at once, each its own trace: one call each, its own tokens
        assert (trial["usage"]["input_tokens"], trial["usage"]["output_tokens"]) == (80, 16), trial
    assert suite["models"]["agent"] == ["gpt-4o-mini"], suite["models"]
    assert server.chat_count == 8


def test_trace_otel__same_benchmark_untraced__tool_use_fails_then_passes_with_the_flag(
    project: Path, server: OpenAIServer, tmp_path: Path
) -> None:
    out = tmp_path / "off.json"
    done = _run(project, server, "untraced.yaml", "-o", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 passed, 2 failed" in done.stdout, done.stdout  # a text-only agent shows no tool call
    done = _run(project, server, "untraced.yaml", "--trace", "otel", "-o", str(tmp_path / "on.json"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 cases, 2 passed, 0 failed, 0 errored" in done.stdout, done.stdout


@pytest.mark.parametrize(
    ("agent", "passed"),
    [
        ("lights_traced:own_outputs", "0 passed, 2 failed"),  # the agent's own trajectory wins over its spans
        ("lights_traced:hand_instrumented", "2 passed, 0 failed"),  # execute_tool spans alone, no model call
    ],
    ids=["agent-outputs-win", "execute-tool-spans-only"],
)
def test_trace_otel__agent_variants__what_the_agent_returned_wins_and_tool_spans_suffice(
    project: Path, server: OpenAIServer, tmp_path: Path, agent: str, passed: str
) -> None:
    done = _run(project, server, "lights.yaml", "--agent", agent, "-o", str(tmp_path / "run.json"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert passed in done.stdout, done.stdout


def test_trace_otel__users_own_sdk_provider__our_processor_added_theirs_still_exports(
    project: Path, server: OpenAIServer, tmp_path: Path
) -> None:
    # after the run, the user's exporter must still hold PydanticAI's spans and our trial roots
    code = "import atexit, lights_traced\natexit.register(lambda: print('SEEN', sorted(set(lights_traced.spans_seen()))))"
    done = _run(
        project,
        server,
        "lights.yaml",
        "-o",
        str(tmp_path / "run.json"),
        env={"LIGHTS_OWN_PROVIDER": "1"},
        code=code,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 cases, 2 passed, 0 failed, 0 errored" in done.stdout, done.stdout
    seen = next(line for line in done.stdout.splitlines() if line.startswith("SEEN"))
    assert (
        "'agent-evals trial'" in seen and "'execute_tool set_light'" in seen and "'chat gpt-4o-mini'" in seen
    ), seen


def test_trace_otel__eval_file__usage_and_models_from_spans_per_trial(
    project: Path, server: OpenAIServer, tmp_path: Path
) -> None:
    out = tmp_path / "run.json"
    done = _run(project, server, "eval_lights_traced.py", "--concurrency", "4", "-o", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed, 0 failed, 0 errored" in done.stdout, done.stdout
    (suite,) = _suites(out)
    trials = _trials(suite)
    assert len(trials) == 6, trials
    local = [t for t in trials if t["usage"]["input_tokens"] == 7]
    remote = [t for t in trials if t["usage"]["input_tokens"] == 80]
    assert len(local) == 2 and len(remote) == 4, trials  # each trial its own tokens, none doubled
    for trial in local:  # no HTTP hook saw the in-process model: only its spans told its tokens
        assert trial["usage"]["output_tokens"] == 3
    assert sorted(suite["models"]["agent"]) == ["gpt-4o-mini", "local-llm"], suite["models"]


def test_trace_otel__sdk_missing__exit_2_saying_how_to_install(project: Path, tmp_path: Path) -> None:
    code = "import sys\nsys.modules['opentelemetry.sdk.trace'] = None  # as if opentelemetry-sdk were not installed"
    out = tmp_path / "run.json"
    for args in (["eval_lights_traced.py"], ["untraced.yaml", "--trace", "otel"], ["lights.yaml"]):
        done = _run(project, None, *args, "-o", str(out), code=code)
        assert done.returncode == 2, done.stdout + done.stderr
        assert "pip install 'agent-evals[otel]'" in done.stderr, done.stderr
        assert not out.exists()


PLAIN_EVAL = """from agent_evals import EvalContext, eval


@eval(input="hi", trials=2)
def plain(ctx: EvalContext):
    ctx.output = "hi"
"""
PLAIN_BENCHMARK = """benchmark: plain
agent: plain_agent:echo
execution: {runs_per_scenario: 2}
capabilities:
  - name: echo
    scenarios:
      - id: hi
        prompt: hi
        success: {output: {contains: hi}}
"""


def test_trace_off__run__opentelemetry_never_imported(tmp_path: Path) -> None:
    (tmp_path / "eval_plain.py").write_text(PLAIN_EVAL, encoding="utf-8")
    (tmp_path / "plain.yaml").write_text(PLAIN_BENCHMARK, encoding="utf-8")
    (tmp_path / "plain_agent.py").write_text("def echo(prompt):\n    return prompt\n", encoding="utf-8")
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('OTEL', sorted(m for m in sys.modules if m.startswith('opentelemetry'))))"
    )
    done = _run(tmp_path, None, "eval_plain.py", "plain.yaml", "-o", str(tmp_path / "run.json"), code=code)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 cases, 2 passed" in done.stdout, done.stdout
    assert "OTEL []" in done.stdout, done.stdout
