"""Usage is captured without user code: model calls through httpx (OpenAI, Ollama), returned
LangChain messages, and the agent's own ``context["usage"]``, priced with the price table."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from agent_evals.record.model import Trial
from agent_evals.run.session import RunBuilder, run_paths
from servers.ollama_server import OllamaAnswer, OllamaServer
from servers.openai_server import OpenAIServer, TextAnswer

pytest.importorskip("openai")


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, url: str, **kw: Any) -> list[Trial]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MODEL_URL", url)
    path = tmp_path / "evals" / "eval_usage.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    record = run_paths(["evals"], builder=RunBuilder(env={}), **kw)
    return [t for s in record.suites for c in s.cases for t in c.trials]


SYNC_OPENAI = """
import os
import openai
from agent_evals import EvalContext, eval

@eval(input="hi")
def test_two_calls(ctx: EvalContext):
    client = openai.OpenAI(base_url=os.environ["MODEL_URL"], api_key="sk-test")
    for _ in range(2):
        reply = client.chat.completions.create(
            model="gpt-4o-mini-2024-07-18", messages=[{"role": "user", "content": ctx.input}]
        )
    ctx.output = reply.choices[0].message.content
"""


def test_openai_sync_client__usage_the_server_reports__is_recorded_per_model_and_priced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openai_server: OpenAIServer
) -> None:
    openai_server.script(
        TextAnswer("one", usage={"prompt_tokens": 123, "completion_tokens": 45}),
        TextAnswer("two", usage={"prompt_tokens": 7, "completion_tokens": 3}),
    )
    [trial] = _run(tmp_path, monkeypatch, SYNC_OPENAI, openai_server.base_url)
    assert trial.usage is not None
    assert (trial.usage.input_tokens, trial.usage.output_tokens) == (130, 48)
    assert trial.usage.models is not None
    [(model, tally)] = trial.usage.models.items()
    assert (model, tally.input_tokens, tally.output_tokens, tally.calls) == (
        "gpt-4o-mini-2024-07-18",
        130,
        48,
        2,
    )
    # the built-in price of gpt-4o-mini: $0.15 / $0.60 per million tokens
    assert trial.usage.cost_usd == pytest.approx((130 * 0.15 + 48 * 0.60) / 1e6)


ASYNC_CONCURRENT = """
import os
import openai
from agent_evals import EvalContext, eval

@eval(cases=[{"id": f"c{n}", "input": n} for n in range(1, 7)])
async def test_async(ctx: EvalContext):
    client = openai.AsyncOpenAI(base_url=os.environ["MODEL_URL"], api_key="sk-test")
    reply = await client.chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": str(ctx.input)}]
    )
    ctx.output = reply.choices[0].message.content
"""


def test_openai_async_client__concurrent_trials__each_trial_counts_only_its_own_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openai_server: OpenAIServer
) -> None:
    def respond(body: dict[str, Any]) -> TextAnswer:
        n = int(body["messages"][0]["content"])
        return TextAnswer(str(n), usage={"prompt_tokens": 100 * n, "completion_tokens": n})

    openai_server.responder = respond
    trials = _run(tmp_path, monkeypatch, ASYNC_CONCURRENT, openai_server.base_url, concurrency=6)
    assert [(t.usage.input_tokens, t.usage.output_tokens) for t in trials if t.usage] == [
        (100 * n, n) for n in range(1, 7)
    ]


def test_price_table__agent_evals_yaml_prices__override_the_built_in_ones_and_an_unknown_model_has_no_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openai_server: OpenAIServer
) -> None:
    (tmp_path / "agent-evals.yaml").write_text("prices:\n  gpt-4o-mini: {input: 1.0, output: 2.0}\n")
    openai_server.script(TextAnswer("a", usage={"prompt_tokens": 1000, "completion_tokens": 500}))
    openai_server.script(TextAnswer("b", usage={"prompt_tokens": 1000, "completion_tokens": 500}))
    [trial] = _run(tmp_path, monkeypatch, SYNC_OPENAI, openai_server.base_url)
    assert trial.usage is not None and trial.usage.cost_usd == pytest.approx((2000 * 1.0 + 1000 * 2.0) / 1e6)

    unknown = SYNC_OPENAI.replace("gpt-4o-mini-2024-07-18", "house-model")
    openai_server.script(TextAnswer("a"), TextAnswer("b"))
    [trial] = _run(tmp_path, monkeypatch, unknown, openai_server.base_url)
    assert trial.usage is not None
    assert (trial.usage.input_tokens, trial.usage.cost_usd) == (20, None)


def test_price_table__a_malformed_prices_key__is_an_error_naming_the_file_and_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openai_server: OpenAIServer
) -> None:
    from agent_evals.errors import PolicyError

    (tmp_path / "agent-evals.yaml").write_text("prices:\n  gpt-4o-mini: {input: cheap}\n")
    with pytest.raises(PolicyError, match=r"agent-evals.yaml: prices.gpt-4o-mini.input must be a number"):
        _run(tmp_path, monkeypatch, SYNC_OPENAI, openai_server.base_url)


OLLAMA_STREAM = """
import os
import ollama
from agent_evals import EvalContext, eval

@eval(input="hi")
def test_ollama(ctx: EvalContext):
    client = ollama.Client(host=os.environ["MODEL_URL"])
    text = ""
    for part in client.chat(model="llama3.2:3b", messages=[{"role": "user", "content": "hi"}], stream=True):
        text += part.message.content or ""
    ctx.output = text
"""


def test_ollama_streamed_chat__the_final_chunks_counts__are_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ollama_server: OllamaServer
) -> None:
    pytest.importorskip("ollama")
    ollama_server.script(OllamaAnswer("hello", prompt_eval_count=33, eval_count=11))
    [trial] = _run(tmp_path, monkeypatch, OLLAMA_STREAM, ollama_server.root_url)
    assert trial.output == "hello"
    assert trial.usage is not None and trial.usage.models is not None
    assert trial.usage.models["llama3.2:3b"].model_dump() == {
        "input_tokens": 33,
        "output_tokens": 11,
        "calls": 1,
    }
    assert trial.usage.cost_usd is None  # no price for a local model unless agent-evals.yaml gives one


LANGCHAIN_MESSAGES = """
from langchain_core.messages import AIMessage, HumanMessage
from agent_evals import EvalContext, TaskResult, eval

def agent(text):
    return TaskResult.from_messages([
        HumanMessage(text),
        AIMessage("thinking", usage_metadata={"input_tokens": 40, "output_tokens": 4, "total_tokens": 44},
                  response_metadata={"model_name": "gpt-4o"}),
        AIMessage("done", usage_metadata={"input_tokens": 60, "output_tokens": 6, "total_tokens": 66},
                  response_metadata={"model_name": "gpt-4o"}),
    ])

@eval(input="hi", target=agent)
def test_messages(ctx: EvalContext):
    assert ctx.output == "done"
"""


def test_task_result_from_langchain_messages__their_usage_metadata__is_recorded_without_user_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("langchain_core")
    [trial] = _run(tmp_path, monkeypatch, LANGCHAIN_MESSAGES, "unused")
    assert trial.passed
    assert trial.usage is not None
    assert (trial.usage.input_tokens, trial.usage.output_tokens) == (100, 10)
    assert trial.usage.cost_usd == pytest.approx((100 * 2.50 + 10 * 10.0) / 1e6)


EXPLICIT = """
import os
import openai
from agent_evals import EvalContext, TaskResult, eval

def agent(text):
    client = openai.OpenAI(base_url=os.environ["MODEL_URL"], api_key="sk-test")
    client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": text}])
    return TaskResult(output="x", context={"usage": {"prompt_tokens": 1, "completion_tokens": 2, "cost": 0.5}})

@eval(input="hi", target=agent)
def test_explicit(ctx: EvalContext):
    pass
"""


def test_context_usage__the_agents_own_report__replaces_the_captured_counts_and_is_not_repriced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openai_server: OpenAIServer
) -> None:
    openai_server.script(TextAnswer("x", usage={"prompt_tokens": 500, "completion_tokens": 50}))
    [trial] = _run(tmp_path, monkeypatch, EXPLICIT, openai_server.base_url)
    assert trial.usage is not None
    assert trial.usage.model_dump() == {
        "input_tokens": 1,
        "output_tokens": 2,
        "cost_usd": 0.5,
        "models": None,
        "replayed": None,
    }


ERRORS_AFTER_A_CALL = """
import os
import openai
from agent_evals import EvalContext, eval

@eval(input="hi")
def test_breaks(ctx: EvalContext):
    client = openai.OpenAI(base_url=os.environ["MODEL_URL"], api_key="sk-test")
    client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    raise RuntimeError("tool failed")
"""


def test_errored_trial__the_calls_it_made_before_the_fault__are_still_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openai_server: OpenAIServer
) -> None:
    openai_server.script(TextAnswer("x", usage={"prompt_tokens": 70, "completion_tokens": 7}))
    [trial] = _run(tmp_path, monkeypatch, ERRORS_AFTER_A_CALL, openai_server.base_url)
    assert trial.error is not None and "tool failed" in trial.error
    assert trial.usage is not None and (trial.usage.input_tokens, trial.usage.output_tokens) == (70, 7)
