"""The seed's autoevals and agentevals examples run unchanged as scripts and print what the seed shows."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from servers.ollama_server import OLLAMA_PORT, OllamaAnswer, OllamaServer, by_turn

SEED_EXAMPLES = Path(__file__).parent / "seed_examples"


def _run_script(script: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    # a clean environment: no proxy, Ollama host, OpenAI key or tracing from the developer's shell
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OLLAMA", "OPENAI", "LANGSMITH", "LANGCHAIN"))
        and k.lower() not in ("http_proxy", "https_proxy", "all_proxy")
    }
    env["PYTHONIOENCODING"] = "utf-8"
    return subprocess.run(
        [sys.executable, str(script)], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_seed_validjson_and_custom_scorer_example__prints_seed_output_exactly(tmp_path: Path) -> None:
    done = _run_script(SEED_EXAMPLES / "autoevals_multi_scorer.py", tmp_path)
    assert done.returncode == 0, done.stderr
    expected = (SEED_EXAMPLES / "autoevals_multi_scorer.expected.txt").read_text(encoding="utf-8")
    assert done.stdout == expected
    runs = list((tmp_path / ".agent-evals" / "experiments" / "multi_scorer").iterdir())
    assert len(runs) == 1  # LocalConfig wrote the run under the working directory


def _port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.fixture
def ollama_on_default_port() -> Iterator[OllamaServer]:
    """The Ollama-protocol server on localhost:11434, where ChatOllama looks by default."""
    if not _port_is_free(OLLAMA_PORT):
        pytest.skip(f"port {OLLAMA_PORT} is taken (a real Ollama may be running); the seed example needs it")
    with OllamaServer(port=OLLAMA_PORT) as server:
        yield server


def test_seed_langgraph_chatollama_example__strict_trajectory_match_passes(
    ollama_on_default_port: OllamaServer, tmp_path: Path
) -> None:
    # The model answers with the reference trajectory's tool calls, one turn at a time.
    ollama_on_default_port.responder = by_turn(
        OllamaAnswer(tool_calls=[("lookup_employee_by_id", {"employee_id": 1001})]),
        OllamaAnswer(tool_calls=[("get_hr_data", {"employee_id": 1001})]),
        OllamaAnswer(content="Alice Smith works in Engineering"),
    )
    done = _run_script(SEED_EXAMPLES / "agentevals_langgraph_ollama.py", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Result: ✓ PASSED\nScore: 1.0\n"
    requests = ollama_on_default_port.chat_requests
    assert [r["model"] for r in requests] == ["gpt-oss:20b"] * 3
    assert {t["function"]["name"] for t in requests[0]["tools"]} == {"lookup_employee_by_id", "get_hr_data"}
    tool_results = [m["content"] for m in requests[-1]["messages"] if m["role"] == "tool"]
    assert tool_results[0] == "Alice Smith"  # the real tools ran on the scripted calls
    assert "Engineering" in tool_results[1]


def test_seed_langgraph_chatollama_example__wrong_tool_order__fails(
    ollama_on_default_port: OllamaServer, tmp_path: Path
) -> None:
    ollama_on_default_port.responder = by_turn(
        OllamaAnswer(tool_calls=[("get_hr_data", {"employee_id": 1001})]),
        OllamaAnswer(tool_calls=[("lookup_employee_by_id", {"employee_id": 1001})]),
        OllamaAnswer(content="Alice Smith works in Engineering"),
    )
    done = _run_script(SEED_EXAMPLES / "agentevals_langgraph_ollama.py", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Result: ✗ FAILED\nScore: 0.0\n"
