"""LLM judges end to end: run_eval_async -> wrapper -> SDK -> real loopback HTTP servers -> Scores."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_evals import run_eval_async
from agent_evals.adapters.scorers.agentevals import TrajectoryLLMAsJudge
from agent_evals.adapters.scorers.autoevals import ClosedQA, EmbeddingSimilarity, Factuality, LLMClassifier
from agent_evals.core.types import EvalConfig, ExampleData, ExpectedResult, TaskResult
from servers.ollama_server import OllamaAnswer, OllamaServer
from servers.openai_server import Answer, OpenAIServer, TextAnswer, select_choice


@pytest.fixture(autouse=True)
def _fresh_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs without a platform record under ./local_eval_results: keep that out of the checkout."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as server:
        yield server


@pytest.fixture
def ollama_server() -> Iterator[OllamaServer]:
    with OllamaServer() as server:
        yield server


@pytest.fixture(autouse=True)
def _no_ambient_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OLLAMA_HOST", "LANGSMITH_TRACING"):
        monkeypatch.delenv(name, raising=False)


ANSWERS = {
    "What is the capital of France?": "Paris",
    "What is the capital of Italy?": "Milan",
    "What is 2 + 2?": "4",
}


def capital_agent(question: str) -> TaskResult:
    return TaskResult(output=ANSWERS.get(question, "I don't know"))


def _grade_by_submission(body: dict[str, Any]) -> Answer:
    """A judge that agrees with Paris and 4, and disagrees with anything else."""
    prompt = body["messages"][0]["content"]
    good = "[Submission]: Paris" in prompt or "[Submission]: 4" in prompt
    return select_choice("C" if good else "D", "Matches the expert." if good else "Contradicts the expert.")


async def test_factuality__run_eval__judges_each_example_with_its_question(
    openai_server: OpenAIServer,
) -> None:
    openai_server.responder = _grade_by_submission
    dataset = [
        ExampleData(input="What is the capital of France?", expected=ExpectedResult(expected="Paris")),
        ExampleData(input="What is the capital of Italy?", expected=ExpectedResult(expected="Rome")),
        ExampleData(input="What is 2 + 2?", expected=ExpectedResult(expected="")),  # no reference
    ]
    scorer = Factuality(base_url=openai_server.base_url, api_key="test-key", model="judge")
    result = await run_eval_async(task=capital_agent, dataset=dataset, scorers=[scorer])

    scores = [example.scores["Factuality"] for example in result.examples]
    assert [(s.value, s.passed) for s in scores] == [(1.0, True), (0.0, False), (0.0, False)]
    assert scores[1].reasoning == "Contradicts the expert."
    assert scores[2].metadata["error"] == "Expected value is required for Factuality"
    assert result.pass_rates["Factuality"] == pytest.approx(1 / 3)
    prompts = [body["messages"][0]["content"] for body in openai_server.chat_requests]
    assert len(prompts) == 2  # the example without a reference never reached the judge
    assert "[Question]: What is the capital of France?" in prompts[0]
    assert "[Expert]: Rome" in prompts[1]


async def test_closed_qa__run_eval__criteria_and_input_reach_the_judge(openai_server: OpenAIServer) -> None:
    openai_server.script(select_choice("Y", "Names a capital."), select_choice("N", "Wrong city."))
    dataset = [
        ExampleData(input="What is the capital of France?"),
        ExampleData(input="What is the capital of Italy?"),
    ]
    scorer = ClosedQA(
        base_url=openai_server.base_url,
        api_key="test-key",
        model="judge",
        criteria="Names the correct capital",
    )
    result = await run_eval_async(task=capital_agent, dataset=dataset, scorers=[scorer])

    assert [e.scores["ClosedQA"].passed for e in result.examples] == [True, False]
    assert result.pass_rates == {"ClosedQA": 0.5}
    first = openai_server.chat_requests[0]["messages"][0]["content"]
    assert "[Task]: What is the capital of France?" in first
    assert "[Criterion]: Names the correct capital" in first
    tools = openai_server.chat_requests[0]["tools"]
    assert tools[0]["function"]["name"] == "select_choice"
    assert tools[0]["function"]["parameters"]["properties"]["choice"]["enum"] == ["Y", "N"]


async def test_llm_classifier__run_eval__label_must_match_and_must_be_known(
    openai_server: OpenAIServer,
) -> None:
    openai_server.script(select_choice("capital", "A city."), select_choice("number", "A sum."))
    dataset = [
        ExampleData(input="What is the capital of France?", expected=ExpectedResult(expected="capital")),
        ExampleData(input="What is 2 + 2?", expected=ExpectedResult(expected="capital")),
        ExampleData(input="What is the capital of Italy?", expected=ExpectedResult(expected="landmark")),
        ExampleData(input="What is the capital of Italy?"),
    ]
    scorer = LLMClassifier(
        "AnswerKind",
        "Question: {{input}}\nAnswer: {{output}}\nWhat kind of answer is it?",
        {"capital": 1, "number": 1, "other": 0},
        base_url=openai_server.base_url,
        api_key="test-key",
        model="judge",
    )
    result = await run_eval_async(task=capital_agent, dataset=dataset, scorers=[scorer])

    scores = [e.scores["AnswerKind"] for e in result.examples]
    assert [(s.value, s.passed) for s in scores] == [(1.0, True), (0.0, False), (0.0, False), (0.0, False)]
    assert scores[1].metadata["choice"] == "number"
    assert scores[2].error is not None and "'landmark' is not one of its choices" in scores[2].error
    assert scores[3].error is not None and "needs the expected label" in scores[3].error
    assert len(openai_server.chat_requests) == 2
    assert (
        "Question: What is the capital of France?\nAnswer: Paris"
        in (openai_server.chat_requests[0]["messages"][0]["content"])
    )


async def test_embedding_similarity__run_eval__scores_from_served_embeddings(
    openai_server: OpenAIServer,
) -> None:
    openai_server.embeddings = {
        "Paris": [1.0, 0.0, 0.0],
        "Paris, France": [0.99, 0.141, 0.0],
        "Milan": [0.0, 1.0, 0.0],
        "Rome": [0.6, 0.0, 0.8],
    }
    dataset = [
        ExampleData(
            input="What is the capital of France?", expected=ExpectedResult(expected="Paris, France")
        ),
        ExampleData(input="What is the capital of Italy?", expected=ExpectedResult(expected="Rome")),
    ]
    scorer = EmbeddingSimilarity(base_url=openai_server.base_url, api_key="test-key", model="embed")
    result = await run_eval_async(
        task=capital_agent, dataset=dataset, scorers=[scorer], config=EvalConfig(max_concurrency=2)
    )

    first, second = (e.scores["EmbeddingSimilarity"] for e in result.examples)
    assert first.passed is True and first.value > 0.9
    assert (second.value, second.passed) == (0.0, False)
    assert result.scores["EmbeddingSimilarity"] == pytest.approx(first.value / 2)


TRAJECTORY = [
    {"role": "user", "content": "What's the weather in SF?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "SF"}'},
            }
        ],
    },
    {"role": "tool", "content": "It's 75 degrees and sunny in SF.", "tool_call_id": "c1"},
    {"role": "assistant", "content": "The weather in SF is 75 degrees and sunny."},
]


def weather_agent(question: str) -> TaskResult:
    return TaskResult.from_messages(TRAJECTORY)


def _judge_reply(score: Any, reasoning: str) -> str:
    return json.dumps({"reasoning": reasoning, "score": score})


async def test_trajectory_llm_as_judge__openai_model__run_eval_with_and_without_reference(
    openai_server: OpenAIServer,
) -> None:
    openai_server.script(
        TextAnswer(_judge_reply(True, "Sensible and efficient.")),
        TextAnswer(_judge_reply(False, "Differs from the reference.")),
    )
    dataset = [
        ExampleData(input="What's the weather in SF?"),
        ExampleData(
            input="What's the weather in SF?",
            expected=ExpectedResult(expected="", context={"reference_outputs": {"messages": TRAJECTORY[:2]}}),
        ),
    ]
    scorer = TrajectoryLLMAsJudge(model="openai:gpt-4o-mini", judge_base_url=openai_server.base_url)
    result = await run_eval_async(task=weather_agent, dataset=dataset, scorers=[scorer])

    scores = [e.scores["TrajectoryLLMAsJudge"] for e in result.examples]
    assert [(s.value, s.passed, s.reasoning) for s in scores] == [
        (1.0, True, "Sensible and efficient."),
        (0.0, False, "Differs from the reference."),
    ]
    first, second = (body["messages"][0]["content"] for body in openai_server.chat_requests)
    assert "<reference_trajectory>" not in first and "get_weather" in first
    assert "<reference_trajectory>" in second
    assert openai_server.chat_requests[0]["model"] == "gpt-4o-mini"
    assert openai_server.chat_requests[0]["response_format"]["type"] == "json_schema"


async def test_trajectory_llm_as_judge__ollama_model__continuous_score_kept(
    ollama_server: OllamaServer,
) -> None:
    ollama_server.script(OllamaAnswer(content=_judge_reply(0.75, "Mostly right.")))
    scorer = TrajectoryLLMAsJudge(
        model="ollama:gpt-oss:20b", judge_base_url=f"{ollama_server.root_url}/v1", continuous=True
    )
    result = await run_eval_async(
        task=weather_agent, dataset=[ExampleData(input="What's the weather in SF?")], scorers=[scorer]
    )

    score = result.examples[0].scores["TrajectoryLLMAsJudge"]
    assert (score.value, score.passed, score.reasoning) == (0.75, True, "Mostly right.")
    request = ollama_server.chat_requests[0]
    assert request["model"] == "gpt-oss:20b"
    assert "It's 75 degrees and sunny in SF." in request["messages"][0]["content"]
