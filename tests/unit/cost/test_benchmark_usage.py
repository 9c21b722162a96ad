"""Benchmarks: a LangChain ChatOllama agent's usage is captured from its calls, and the budget stops trials."""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from agent_evals.benchmark.runner import run_benchmark
from agent_evals.cost.budget import budgeted
from agent_evals.cost.prices import BUILTIN, Price, PriceTable, use_table
from servers.ollama_server import OllamaAnswer, OllamaServer

pytest.importorskip("langchain_ollama")

SCORER = """
from agent_evals import Score


def ok(result, expected=None, **context):
    return Score(name="ok", value=1.0, passed=True)
"""


def _bench(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    module = f"usage_scorers_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{module}.py").write_text(SCORER, encoding="utf-8")
    path = tmp_path / "bench.yaml"
    path.write_text(
        textwrap.dedent(
            f"""
            benchmark: paid
            capabilities:
              - name: talk
                scenarios:
                  - id: one
                    prompt: "hello"
                    success:
                      scorers: [{{type: '{module}:ok'}}]
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    return path


def _agent(server: OllamaServer) -> Any:
    from langchain_core.messages import HumanMessage
    from langchain_ollama import ChatOllama

    from agent_evals import TaskResult

    model = ChatOllama(model="llama3.2:3b", base_url=server.root_url)

    def agent(prompt: str) -> TaskResult:
        question = HumanMessage(prompt)
        return TaskResult.from_messages([question, model.invoke([question])])

    return agent


def test_chat_ollama_agent__the_servers_counts_are_the_trials_usage_counted_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ollama_server: OllamaServer
) -> None:
    ollama_server.responder = lambda body: OllamaAnswer("hi", prompt_eval_count=44, eval_count=4)
    use_table(PriceTable({**BUILTIN, "llama3.2": Price(1.0, 2.0)}))
    (case,) = run_benchmark(_bench(tmp_path, monkeypatch), _agent(ollama_server)).cases
    [trial] = case.trials
    assert trial.passed, trial.error
    # the call was metered and the returned AIMessage reports it too: counted once, not twice
    assert trial.usage is not None
    assert trial.usage["models"] == {"llama3.2:3b": {"input_tokens": 44, "output_tokens": 4, "calls": 1}}
    assert trial.usage["cost_usd"] == pytest.approx((44 * 1.0 + 4 * 2.0) / 1e6)


def test_budget__a_benchmark_stops_starting_trials_and_is_incomplete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ollama_server: OllamaServer
) -> None:
    ollama_server.responder = lambda body: OllamaAnswer("hi", prompt_eval_count=1000, eval_count=0)
    use_table(PriceTable({"llama3.2": Price(10.0, 0.0)}))  # $0.01 per trial
    with budgeted(0.025) as budget:
        result = run_benchmark(_bench(tmp_path, monkeypatch), _agent(ollama_server), trials=6, concurrency=1)
    assert len(ollama_server.chat_requests) == 3
    assert [len(c.trials) for c in result.cases] == [3]
    assert result.complete is False
    assert budget is not None and budget.skipped == 3
