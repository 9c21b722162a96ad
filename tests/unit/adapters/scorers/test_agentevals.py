"""agentevals wrappers: the trajectory-match modes of the weather/events example, tool-arg rules, judges."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agent_evals.adapters.scorers import agentevals as ag
from agent_evals.core.types import ExpectedResult, TaskResult
from agent_evals.errors import MissingDependency
from servers.ollama_server import OllamaAnswer, OllamaServer
from servers.openai_server import OpenAIServer, TextAnswer


def _ai_calls(*calls: tuple[str, dict[str, Any]]) -> AIMessage:
    return AIMessage(
        content="",
        tool_calls=[{"id": f"call_{i}", "name": n, "args": a} for i, (n, a) in enumerate(calls, 1)],
    )


def _agent(*messages: dict[str, Any]) -> TaskResult:
    """An agent's trajectory as OpenAI dicts (what convert_to_openai_messages gives)."""
    return TaskResult(output="", context={"outputs": list(messages)})


def _calls(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, (n, a) in enumerate(calls)
        ],
    }


def _tool(content: str) -> dict[str, Any]:
    return {"role": "tool", "content": content, "tool_call_id": "c0"}


def _reference(*messages: Any) -> ExpectedResult:
    return ExpectedResult(expected="", context={"reference_outputs": list(messages)})


# Reference trajectories as LangChain message objects, like the seed's examples.
WEATHER_SF = _reference(
    HumanMessage("What's the weather in San Francisco?"),
    _ai_calls(("get_weather", {"city": "San Francisco"})),
    ToolMessage(content="It's 75 degrees and sunny in San Francisco.", tool_call_id="call_1"),
    AIMessage("The weather in San Francisco is 75 degrees and sunny."),
)
EVENTS_AND_WEATHER_SF = _reference(
    HumanMessage("What's happening in SF today?"),
    _ai_calls(("get_events", {"city": "SF"}), ("get_weather", {"city": "SF"})),
    ToolMessage(content="Concert at the park in SF tonight.", tool_call_id="call_1"),
    ToolMessage(content="It's 75 degrees and sunny in SF.", tool_call_id="call_2"),
    AIMessage("Today in SF: 75 degrees and sunny with a concert at the park tonight."),
)
WEATHER_BOSTON = _reference(
    HumanMessage("What's the weather in Boston?"),
    _ai_calls(("get_weather", {"city": "Boston"})),
    ToolMessage(content="It's 75 degrees and sunny in Boston.", tool_call_id="call_1"),
    AIMessage("The weather in Boston is 75 degrees and sunny."),
)
WEATHER_AND_FORECAST_BOSTON = _reference(
    HumanMessage("What's the weather in Boston?"),
    _ai_calls(("get_weather", {"city": "Boston"}), ("get_detailed_forecast", {"city": "Boston"})),
    ToolMessage(content="It's 75 degrees and sunny in Boston.", tool_call_id="call_1"),
    ToolMessage(content="Detailed forecast for Boston: sunny all week.", tool_call_id="call_2"),
    AIMessage("Sunny in Boston all week."),
)

# Agent trajectories (OpenAI dicts).
SF_WEATHER_AGENT = _agent(
    {"role": "user", "content": "What's the weather in San Francisco?"},
    _calls(("get_weather", {"city": "San Francisco"})),
    _tool("It's 75 degrees and sunny in San Francisco."),
    {"role": "assistant", "content": "75 and sunny in SF."},  # different wording: still a strict match
)
SF_EVENTS_THEN_WEATHER_AGENT = _agent(
    {"role": "user", "content": "What's happening in SF today?"},
    _calls(("get_weather", {"city": "SF"})),
    _tool("It's 75 degrees and sunny in SF."),
    _calls(("get_events", {"city": "SF"})),
    _tool("Concert at the park in SF tonight."),
    {"role": "assistant", "content": "Sunny, and a concert tonight."},
)
BOSTON_WEATHER_PLUS_FORECAST_AGENT = _agent(
    {"role": "user", "content": "What's the weather in Boston?"},
    _calls(("get_weather", {"city": "Boston"}), ("get_detailed_forecast", {"city": "Boston"})),
    _tool("It's 75 degrees and sunny in Boston."),
    _tool("Detailed forecast for Boston: sunny all week."),
    {"role": "assistant", "content": "Sunny all week."},
)
BOSTON_WEATHER_ONLY_AGENT = _agent(
    {"role": "user", "content": "What's the weather in Boston?"},
    _calls(("get_weather", {"city": "Boston"})),
    _tool("It's 75 degrees and sunny in Boston."),
    {"role": "assistant", "content": "Sunny."},
)

MODE_CASES = [
    # scorer, agent, reference, passed
    (ag.TrajectoryStrictMatch, SF_WEATHER_AGENT, WEATHER_SF, True),
    (ag.TrajectoryStrictMatch, SF_EVENTS_THEN_WEATHER_AGENT, EVENTS_AND_WEATHER_SF, False),
    (ag.TrajectoryUnorderedMatch, SF_EVENTS_THEN_WEATHER_AGENT, EVENTS_AND_WEATHER_SF, True),
    (ag.TrajectoryUnorderedMatch, BOSTON_WEATHER_PLUS_FORECAST_AGENT, WEATHER_BOSTON, False),
    (ag.TrajectorySupsetMatch, BOSTON_WEATHER_PLUS_FORECAST_AGENT, WEATHER_BOSTON, True),
    (ag.TrajectorySupsetMatch, BOSTON_WEATHER_ONLY_AGENT, WEATHER_AND_FORECAST_BOSTON, False),
    (ag.TrajectorySubsetMatch, BOSTON_WEATHER_ONLY_AGENT, WEATHER_AND_FORECAST_BOSTON, True),
    (ag.TrajectorySubsetMatch, BOSTON_WEATHER_PLUS_FORECAST_AGENT, WEATHER_BOSTON, False),
]


@pytest.mark.parametrize(("factory", "agent", "reference", "passed"), MODE_CASES)
async def test_trajectory_match__seed_weather_examples__each_mode(
    factory: Any, agent: TaskResult, reference: ExpectedResult, passed: bool
) -> None:
    score = factory()(agent, reference)
    assert (score.name, score.passed, score.value, score.error) == (
        factory.__name__,
        passed,
        float(passed),
        None,
    )


@pytest.mark.parametrize(
    ("factory", "mode"),
    [
        (ag.TrajectoryStrictMatch, "strict"),
        (ag.TrajectoryUnorderedMatch, "unordered"),
        (ag.TrajectorySupsetMatch, "superset"),
        (ag.TrajectorySubsetMatch, "subset"),
    ],
)
async def test_trajectory_match__metadata__the_seeds_keys(factory: Any, mode: str) -> None:
    score = factory(tool_args_match_overrides={"get_weather": "ignore"})(SF_WEATHER_AGENT, WEATHER_SF)
    outputs = SF_WEATHER_AGENT.context["outputs"]
    assert score.metadata["agentevals_key"] == f"trajectory_{mode}_match"
    assert score.metadata["trajectory_length"] == len(outputs)
    assert score.metadata["reference_trajectory_length"] == 4
    assert score.metadata["tool_args_match_mode"] == "exact"
    assert score.metadata["tool_args_match_overrides"] == {"get_weather": "ignore"}


async def test_trajectory_match__missing_trajectory__errored_with_the_seeds_reasoning() -> None:
    score = ag.TrajectoryStrictMatch()(TaskResult(output=""), WEATHER_SF)
    assert (score.value, score.passed) == (0.0, False)
    assert score.metadata["error"] == score.error
    assert score.reasoning == f"Scorer failed: {score.error}"


async def test_trajectory_match__messages_mapping_on_both_sides__accepted() -> None:
    agent = TaskResult(output="", context={"outputs": {"messages": SF_WEATHER_AGENT.context["outputs"]}})  # type: ignore[index]
    reference = ExpectedResult(
        expected="", context={"reference_outputs": {"messages": WEATHER_SF.context["reference_outputs"]}}
    )  # type: ignore[index]
    assert ag.TrajectoryStrictMatch()(agent, reference).passed is True


SF_FULL_NAME_AGENT = _agent(
    {"role": "user", "content": "What's happening in SF today?"},
    _calls(("get_events", {"city": "san francisco"}), ("get_weather", {"city": "SF", "units": "F"})),
    _tool("Concert."),
    _tool("Sunny."),
    {"role": "assistant", "content": "ok"},
)


def _same_city(actual: dict[str, Any], reference: dict[str, Any]) -> bool:
    aliases = {"sf": "sf", "san francisco": "sf"}
    return aliases.get(actual["city"].lower()) == aliases.get(reference["city"].lower())


ARGS_CASES = [
    # tool_args_match_mode, overrides, passed
    ("exact", None, False),
    ("ignore", None, True),
    ("superset", None, False),  # get_events city differs
    ("exact", {"get_events": _same_city, "get_weather": "superset"}, True),
    ("exact", {"get_events": "ignore", "get_weather": ["city"]}, True),
    ("exact", {"get_events": "ignore"}, False),  # get_weather has an extra "units" argument
    ("superset", {"get_events": _same_city}, True),
]


@pytest.mark.parametrize(("mode", "overrides", "passed"), ARGS_CASES)
async def test_trajectory_match__tool_args_mode_and_overrides__decide_argument_equality(
    mode: Any, overrides: dict[str, Any] | None, passed: bool
) -> None:
    scorer = ag.TrajectorySupsetMatch(tool_args_match_mode=mode, tool_args_match_overrides=overrides)
    assert scorer(SF_FULL_NAME_AGENT, EVENTS_AND_WEATHER_SF).passed is passed


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"tool_args_match_mode": "fuzzy"},
            "tool_args_match_mode must be one of exact, ignore, subset, superset",
        ),
        (
            {"tool_args_match_overrides": {"get_weather": "loose"}},
            "tool_args_match_overrides['get_weather'] must be",
        ),
        ({"tool_args_match_overrides": {"get_weather": 3}}, "a list of argument keys, or a callable matcher"),
        ({"tool_args_match_overrides": {"get_weather": []}}, "a key list must hold argument names"),
        ({"threshold": 2}, "threshold must be between 0 and 1"),
    ],
)
def test_trajectory_match__invalid_options__refused_at_construction(
    kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        ag.TrajectoryStrictMatch(**kwargs)


@pytest.mark.parametrize(
    ("agent", "reference", "error"),
    [
        (TaskResult(output="hi"), WEATHER_SF, "the agent's trajectory is missing"),
        (SF_WEATHER_AGENT, ExpectedResult(expected="x"), "the reference trajectory is missing"),
        (SF_WEATHER_AGENT, None, "the reference trajectory is missing"),
        (_agent({"content": "no role"}), WEATHER_SF, "context['outputs'][0]: a message needs a 'role'"),
        (TaskResult(output="", context={"outputs": "text"}), WEATHER_SF, "expected a list of messages"),
        (
            _agent({"role": "assistant", "tool_calls": [{"function": "x"}]}),
            WEATHER_SF,
            "context['outputs'][0].tool_calls[0]: a tool call needs",
        ),
    ],
)
async def test_trajectory_match__missing_or_malformed_trajectory__failing_score_says_where(
    agent: TaskResult, reference: ExpectedResult | None, error: str
) -> None:
    score = ag.TrajectoryStrictMatch()(agent, reference)
    assert (score.value, score.passed) == (0.0, False)
    assert score.error is not None and score.error.startswith("TrajectoryStrictMatch: ")
    assert error in score.error


GRAPH = {"steps": [["__start__", "agent", "tools", "agent"]], "results": [{"answer": "ok"}]}


@pytest.mark.parametrize(
    ("steps", "passed"),
    [([["__start__", "agent", "tools", "agent"]], True), ([["__start__", "agent"]], False)],
)
async def test_graph_trajectory_strict_match__same_node_steps__passes(
    steps: list[list[str]], passed: bool
) -> None:
    agent = TaskResult(output="", context={"outputs": {"steps": steps, "results": [{}]}})
    score = ag.GraphTrajectoryStrictMatch()(
        agent, ExpectedResult(expected="", context={"reference_outputs": GRAPH})
    )
    assert (score.passed, score.error) == (passed, None)


async def test_graph_trajectory_strict_match__not_a_graph_trajectory__failing_score() -> None:
    agent = TaskResult(output="", context={"outputs": [{"role": "user", "content": "hi"}]})
    score = ag.GraphTrajectoryStrictMatch()(
        agent, ExpectedResult(expected="", context={"reference_outputs": GRAPH})
    )
    assert score.error is not None and "expected a graph trajectory" in score.error


# --- LLM judges -------------------------------------------------------------------------------


@pytest.mark.parametrize("factory", [ag.TrajectoryLLMAsJudge, ag.GraphTrajectoryLLMAsJudge])
def test_judge__no_judge_base_url__explains_model_is_a_nickname(factory: Any) -> None:
    with pytest.raises(
        ValueError, match=r"needs judge_base_url: model='ollama:gpt-oss:20b' is a provider nickname"
    ):
        factory(model="ollama:gpt-oss:20b")


@pytest.mark.parametrize("factory", [ag.TrajectoryLLMAsJudge, ag.GraphTrajectoryLLMAsJudge])
def test_judge__seed_defaults__constructs_with_only_judge_base_url_and_no_key(
    factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    judge = factory(judge_base_url="https://ollama.example.com/v1")
    assert judge.model == "ollama:gpt-oss:20b"
    assert factory(
        "Prompt {outputs}", "openai:gpt-4o-mini", judge_base_url="https://j.example.com"
    ).model == ("openai:gpt-4o-mini")


@pytest.mark.parametrize("factory", [ag.TrajectoryLLMAsJudge, ag.GraphTrajectoryLLMAsJudge])
async def test_judge__remote_openai_judge_without_key__errored_score_per_call(
    factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    judge = factory(model="openai:gpt-4o-mini", judge_base_url="https://judge.example.com/v1")
    score = await judge(SF_WEATHER_AGENT)
    assert (score.value, score.passed) == (0.0, False)
    assert (
        score.error is not None
        and "no API key for the judge at 'https://judge.example.com/v1'" in score.error
    )
    assert score.metadata["error"] == score.error


@pytest.mark.parametrize("model", ["gpt-4o-mini", ":gpt", "openai:", 42])
def test_judge__model_without_provider_prefix__refused(model: Any) -> None:
    with pytest.raises(ValueError, match="model must be 'provider:model-name'"):
        ag.TrajectoryLLMAsJudge(model=model, judge_base_url="http://localhost:1/v1")


@pytest.mark.parametrize("factory", [ag.TrajectoryLLMAsJudge, ag.GraphTrajectoryLLMAsJudge])
async def test_judge__unknown_model_provider__an_errored_score_per_call_not_a_raise(factory: Any) -> None:
    judge = factory(model="nosuchprovider:m1", judge_base_url="http://localhost:1/v1")
    score = await judge(SF_WEATHER_AGENT)
    assert (score.value, score.passed) == (0.0, False)
    assert score.error is not None and "nosuchprovider:m1" in score.error
    assert score.metadata["error"] == score.error


async def test_trajectory_judge__prompt_positional__reaches_the_judge(openai_server: OpenAIServer) -> None:
    openai_server.script(TextAnswer(_verdict(True)))
    judge = ag.TrajectoryLLMAsJudge(
        "Positional prompt.\n{outputs}", model="openai:judge-1", judge_base_url=openai_server.base_url
    )
    assert (await judge(SF_WEATHER_AGENT)).passed is True
    assert openai_server.chat_requests[-1]["messages"][0]["content"].startswith("Positional prompt.")


def _verdict(score: Any, reasoning: str = "Scripted. Thus, the score should be: x.") -> str:
    return json.dumps({"reasoning": reasoning, "score": score})


async def test_trajectory_judge__no_reference__uses_accuracy_prompt(openai_server: OpenAIServer) -> None:
    openai_server.script(TextAnswer(_verdict(True, "Logical steps.")))
    judge = ag.TrajectoryLLMAsJudge(model="openai:judge-1", judge_base_url=openai_server.base_url)
    score = await judge(SF_WEATHER_AGENT)
    assert (score.name, score.value, score.passed, score.reasoning) == (
        "TrajectoryLLMAsJudge",
        1.0,
        True,
        "Logical steps.",
    )
    assert score.metadata["model_used"] == "openai:judge-1"
    assert score.metadata["trajectory_length"] == len(SF_WEATHER_AGENT.context["outputs"])
    assert "reference_trajectory_length" not in score.metadata
    request = openai_server.chat_requests[-1]
    prompt = request["messages"][0]["content"]
    assert request["model"] == "judge-1"
    assert "<reference_trajectory>" not in prompt
    assert "get_weather" in prompt


async def test_trajectory_judge__with_reference__uses_reference_prompt(openai_server: OpenAIServer) -> None:
    openai_server.script(TextAnswer(_verdict(False)))
    judge = ag.TrajectoryLLMAsJudge(model="openai:judge-1", judge_base_url=openai_server.base_url)
    score = await judge(SF_WEATHER_AGENT, WEATHER_SF)
    assert (score.value, score.passed) == (0.0, False)
    prompt = openai_server.chat_requests[-1]["messages"][0]["content"]
    assert "<reference_trajectory>" in prompt and "The weather in San Francisco is 75 degrees" in prompt


async def test_trajectory_judge__custom_prompt__used_even_with_reference(openai_server: OpenAIServer) -> None:
    openai_server.script(TextAnswer(_verdict(True)))
    judge = ag.TrajectoryLLMAsJudge(
        model="openai:judge-1",
        judge_base_url=openai_server.base_url,
        prompt="Grade briefly.\n{outputs}\nAgainst:\n{reference_outputs}",
    )
    await judge(SF_WEATHER_AGENT, WEATHER_SF)
    assert openai_server.chat_requests[-1]["messages"][0]["content"].startswith("Grade briefly.\n")


@pytest.mark.parametrize(
    ("raw", "threshold", "passed"), [(0.65, 0.7, False), (0.85, 0.7, True), (0.4, 0.3, True)]
)
async def test_trajectory_judge__continuous_score__kept_and_compared_to_threshold(
    openai_server: OpenAIServer, raw: float, threshold: float, passed: bool
) -> None:
    openai_server.script(TextAnswer(_verdict(raw)))
    judge = ag.TrajectoryLLMAsJudge(
        model="openai:judge-1", judge_base_url=openai_server.base_url, continuous=True, threshold=threshold
    )
    score = await judge(SF_WEATHER_AGENT)
    assert (score.value, score.passed) == (raw, passed)


async def test_trajectory_judge__ollama_model__speaks_ollama_protocol(ollama_server: OllamaServer) -> None:
    ollama_server.script(OllamaAnswer(content=_verdict(0.9, "Efficient.")))
    judge = ag.TrajectoryLLMAsJudge(
        model="ollama:gpt-oss:20b", judge_base_url=f"{ollama_server.root_url}/v1", continuous=True
    )
    score = await judge(SF_WEATHER_AGENT, WEATHER_SF)
    assert (score.value, score.passed, score.reasoning) == (0.9, True, "Efficient.")
    request = ollama_server.chat_requests[-1]
    assert request["model"] == "gpt-oss:20b"
    assert request["format"]["properties"]["score"]["type"] == "number"


async def test_trajectory_judge__judge_unreachable__failing_score_not_exception(
    openai_server: OpenAIServer,
) -> None:
    judge = ag.TrajectoryLLMAsJudge(model="openai:judge-1", judge_base_url=openai_server.base_url)
    score = await judge(SF_WEATHER_AGENT)  # nothing scripted: the server answers 400
    assert score.passed is False
    assert score.error is not None and score.error.startswith("TrajectoryLLMAsJudge: the judge call failed:")


async def test_graph_judge__graph_trajectory__graded_with_reference_thread(
    openai_server: OpenAIServer,
) -> None:
    openai_server.script(TextAnswer(_verdict(True)))
    judge = ag.GraphTrajectoryLLMAsJudge(model="openai:judge-1", judge_base_url=openai_server.base_url)
    agent = TaskResult(output="", context={"outputs": {**GRAPH, "inputs": [{"question": "weather?"}]}})
    score = await judge(agent, ExpectedResult(expected="", context={"reference_outputs": GRAPH}))
    assert (score.name, score.passed) == ("GraphTrajectoryLLMAsJudge", True)
    prompt = openai_server.chat_requests[-1]["messages"][0]["content"]
    assert "<reference_thread>" in prompt and "weather?" in prompt


# --- imports and missing extras ---------------------------------------------------------------


def test_scorers_package__import__does_not_load_langchain_autoevals_or_agentevals() -> None:
    code = (
        "import sys, agent_evals.adapters.scorers as s, agent_evals.adapters.scorers.registry as r; "
        "r.names(); "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'langchain', 'langchain_core', 'autoevals', "
        "'agentevals', 'openai', 'langgraph'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stderr


@pytest.mark.parametrize(
    ("factory", "kwargs"),
    [
        (ag.TrajectoryStrictMatch, {}),
        (ag.GraphTrajectoryStrictMatch, {}),
        (ag.TrajectoryLLMAsJudge, {"judge_base_url": "http://localhost:1/v1"}),
    ],
)
def test_wrapper__agentevals_not_installed__missing_dependency_names_extra(
    monkeypatch: pytest.MonkeyPatch, factory: Any, kwargs: dict[str, Any]
) -> None:
    monkeypatch.setitem(sys.modules, "agentevals", None)
    with pytest.raises(MissingDependency, match=r"pip install 'agent-evals\[agentevals\]'"):
        factory(**kwargs)


SF_CITY_ONLY_AGENT = _agent(
    {"role": "user", "content": "Weather?"},
    _calls(("get_weather", {"city": "SF"})),
    _tool("Sunny."),
    {"role": "assistant", "content": "Sunny."},
)
SF_CITY_AND_UNITS_REFERENCE = _reference(
    {"role": "user", "content": "Weather?"},
    _calls(("get_weather", {"city": "SF", "units": "F"})),
    _tool("Sunny."),
    {"role": "assistant", "content": "Sunny."},
)
DIRECTIONAL_WRAPPERS = [ag.TrajectoryStrictMatch, ag.TrajectorySubsetMatch, ag.TrajectorySupsetMatch]


@pytest.mark.parametrize("factory", DIRECTIONAL_WRAPPERS)
@pytest.mark.parametrize(("mode", "passed"), [("subset", True), ("superset", False), ("exact", False)])
async def test_trajectory_match__argument_direction__same_in_every_wrapper(
    factory: Any, mode: Any, passed: bool
) -> None:
    # the agent's {"city"} is within the reference's {"city", "units"}: a subset, not a superset
    score = factory(tool_args_match_mode=mode)(SF_CITY_ONLY_AGENT, SF_CITY_AND_UNITS_REFERENCE)
    assert score.passed is passed


@pytest.mark.parametrize("factory", [*DIRECTIONAL_WRAPPERS, ag.TrajectoryUnorderedMatch])
async def test_trajectory_match__callable_override__called_with_actual_then_reference(factory: Any) -> None:
    seen: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def matcher(actual: dict[str, Any], reference: dict[str, Any]) -> bool:
        seen.append((actual, reference))
        return True

    scorer = factory(tool_args_match_overrides={"get_weather": matcher})
    assert scorer(SF_CITY_ONLY_AGENT, SF_CITY_AND_UNITS_REFERENCE).passed is True
    assert seen and all(call == ({"city": "SF"}, {"city": "SF", "units": "F"}) for call in seen)


# a matcher that holds only one way round: the agent's arguments must be within the reference's
def _actual_within_reference(actual: dict[str, Any], reference: dict[str, Any]) -> bool:
    return all(reference.get(k) == v for k, v in actual.items())


@pytest.mark.parametrize(
    ("agent", "reference", "passed"),
    [
        pytest.param(SF_CITY_ONLY_AGENT, SF_CITY_AND_UNITS_REFERENCE, True, id="actual-within-reference"),
        pytest.param(
            _agent(
                {"role": "user", "content": "Weather?"}, _calls(("get_weather", {"city": "SF", "units": "F"}))
            ),
            _reference({"role": "user", "content": "Weather?"}, _calls(("get_weather", {"city": "SF"}))),
            False,
            id="reference-within-actual",
        ),
    ],
)
async def test_trajectory_unordered_match__one_way_matcher__decides_on_both_passes_the_same_way(
    agent: Any, reference: Any, passed: bool
) -> None:
    scorer = ag.TrajectoryUnorderedMatch(tool_args_match_overrides={"get_weather": _actual_within_reference})
    assert scorer(agent, reference).passed is passed


@pytest.mark.parametrize(
    ("mode", "passed"), [("subset", False), ("superset", False), ("exact", False), ("ignore", True)]
)
async def test_trajectory_unordered_match__modes__behave_as_agentevals_unordered(
    mode: Any, passed: bool
) -> None:
    # the rule must hold both ways in the unordered mode, so subset and superset act like exact
    score = ag.TrajectoryUnorderedMatch(tool_args_match_mode=mode)(
        SF_CITY_ONLY_AGENT, SF_CITY_AND_UNITS_REFERENCE
    )
    assert score.passed is passed
