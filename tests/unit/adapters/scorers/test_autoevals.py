"""autoevals wrappers: Score semantics, default thresholds, reference/input rules, judges on a loopback server."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import openai
import pytest

from agent_evals.adapters.scorers import autoevals as ae
from agent_evals.core.scorer import scorer_name
from agent_evals.core.types import ExpectedResult, TaskResult
from agent_evals.errors import MissingDependency
from servers.openai_server import OpenAIServer, TextAnswer, select_choice


def _expected(text: str | None) -> ExpectedResult | None:
    return None if text is None else ExpectedResult(expected=text)


# --- heuristic and composite scorers (pure computation) ------------------------------------------

HEURISTIC_CASES = [
    # scorer, output, expected, value, passed
    (ae.ValidJSON(), '{"result": "4"}', "4", 1.0, True),
    (ae.ValidJSON(), "[1, 2]", None, 1.0, True),
    (ae.ValidJSON(), '{"result": "25", invalid json', "25", 0.0, False),
    (ae.ValidJSON(), '"just a string"', None, 0.0, False),
    (ae.ValidJSON(schema={"type": "object", "required": ["x"]}), '{"x": 1}', None, 1.0, True),
    (ae.ValidJSON(schema={"type": "object", "required": ["x"]}), '{"y": 1}', None, 0.0, False),
    (ae.Levenshtein(), "kitten", "kitten", 1.0, True),
    (ae.Levenshtein(), "abcd", "abce", 0.75, False),
    (ae.Levenshtein(threshold=0.75), "abcd", "abce", 0.75, True),
    (ae.ExactMatch(), "Paris", "Paris", 1.0, True),
    (ae.ExactMatch(), "Paris ", "Paris", 0.0, False),
    (ae.ExactMatch(), "Paris", "paris", 0.0, False),
    (ae.NumericDiff(), "100", "100", 1.0, True),
    (ae.NumericDiff(), "95", "100", 1 - 5 / 195, True),
    (ae.NumericDiff(), "50", "100", 1 - 50 / 150, False),
    (ae.JSONDiff(), '{"a": 1, "b": "x"}', '{"b": "x", "a": 1}', 1.0, True),
    (ae.JSONDiff(threshold=0.5), '{"a": 1, "b": "x"}', '{"a": 1, "b": "y"}', 0.5, True),
    (ae.ListContains(), '["a", "b"]', '["b", "a"]', 1.0, True),
    (ae.ListContains(), '["a"]', '["a", "b"]', 0.5, False),
    (ae.ListContains(allow_extra_entities=True), '["a", "b", "c"]', '["a", "b"]', 1.0, True),
]


@pytest.mark.parametrize(("scorer", "output", "expected", "value", "passed"), HEURISTIC_CASES)
async def test_heuristic_scorer__value_and_pass_follow_threshold(
    scorer: Any, output: str, expected: str | None, value: float, passed: bool
) -> None:
    score = scorer(TaskResult(output=output), _expected(expected))
    assert score.name == type(scorer).__name__ == scorer_name(scorer)
    assert score.error is None
    assert score.value == pytest.approx(value)
    assert score.passed is passed


@pytest.mark.parametrize(
    "factory", [ae.Levenshtein, ae.ExactMatch, ae.NumericDiff, ae.JSONDiff, ae.ListContains]
)
@pytest.mark.parametrize("expected", [None, "", "   "])
async def test_reference_scorer__missing_or_blank_expected__errored_with_the_seed_metadata(
    factory: Any, expected: str | None
) -> None:
    name = factory.__name__
    score = factory()(TaskResult(output="1"), _expected(expected))
    assert (score.value, score.passed) == (0.0, False)
    assert score.error is not None and score.error.startswith(f"Expected value is required for {name}: set")
    assert score.metadata == {
        "error": f"Expected value is required for {name}",
        "output": "1",
        "expected": None,
    }
    assert score.reasoning == f"{name} requires an expected value for comparison"


@pytest.mark.parametrize(
    ("scorer", "output", "expected", "error"),
    [
        (ae.NumericDiff(), "about ten", "10", "NumericDiff needs numbers; the output 'about ten' is not one"),
        (ae.NumericDiff(), "10", "ten", "NumericDiff needs numbers; the reference 'ten' is not one"),
        (ae.ListContains(), '{"a": 1}', '["a"]', "ListContains needs a JSON list as the output, got dict"),
        (
            ae.ListContains(),
            '["a"]',
            "a, b",
            "ListContains needs a JSON list as the reference; it does not parse",
        ),
    ],
)
async def test_heuristic_scorer__unusable_input__failing_score_names_problem(
    scorer: Any, output: str, expected: str, error: str
) -> None:
    score = scorer(TaskResult(output=output), _expected(expected))
    assert score.passed is False
    assert score.error is not None and score.error.startswith(error)


def test_numeric_diff__metadata__keeps_texts_and_numbers_read_from_them() -> None:
    score = ae.NumericDiff()(TaskResult(output="42.5"), ExpectedResult(expected="4.2e1"))
    assert score.metadata["original_output"] == "42.5"
    assert score.metadata["original_expected"] == "4.2e1"
    assert (score.metadata["converted_output"], score.metadata["converted_expected"]) == (42.5, 42.0)
    assert score.metadata["_threshold"] == 0.9


def test_numeric_diff__not_a_number__errored_saying_conversion_failed() -> None:
    score = ae.NumericDiff()(TaskResult(output="n/a"), ExpectedResult(expected="1"))
    assert score.passed is False
    assert score.metadata["error"] == score.error
    assert score.error is not None and "Failed to convert to numeric" in score.error


@pytest.mark.parametrize(
    ("kwargs", "output", "value"),
    [
        ({}, '{"name": "Jon"}', 0.75),  # Levenshtein on the strings
        ({"string_scorer": "ExactMatch"}, '{"name": "Jon"}', 0.0),
        ({"number_scorer": "ExactMatch"}, '{"name": "John", "age": 31}', 0.5),
    ],
)
def test_json_diff__string_and_number_scorers__replace_the_defaults(
    kwargs: dict[str, str], output: str, value: float
) -> None:
    import autoevals

    options = {key: getattr(autoevals, name)() for key, name in kwargs.items()}
    reference = '{"name": "John", "age": 30}' if "number_scorer" in kwargs else '{"name": "John"}'
    score = ae.JSONDiff(**options)(TaskResult(output=output), ExpectedResult(expected=reference))
    assert score.value == pytest.approx(value)


@pytest.mark.parametrize(
    ("output", "value", "reasoning"),
    [
        ("['a', 'b']", 1.0, "Found 100% of the expected items; extra items do not lower the score."),
        ('["a"]', 0.5, "Found 50% of the expected items; extra items do not lower the score."),
    ],
)
def test_list_contains__python_literal_list__read_as_in_the_seed(
    output: str, value: float, reasoning: str
) -> None:
    score = ae.ListContains()(TaskResult(output=output), ExpectedResult(expected='["a", "b"]'))
    assert (score.value, score.error, score.reasoning) == (value, None, reasoning)
    assert (score.metadata["allow_extra_entities"], score.metadata["pairwise_scorer"]) == (
        True,
        "Levenshtein",
    )


def test_list_contains__oversized_literal__errored_before_parsing() -> None:
    payload = "[" + "'x'," * (ae.MAX_LITERAL_LENGTH // 4 + 1) + "]"  # a valid literal, too long to read
    score = ae.ListContains()(TaskResult(output=payload), ExpectedResult(expected='["x"]'))
    assert score.passed is False
    assert score.error is not None and "too large to read as a Python literal" in score.error


def test_list_contains__extra_items__allowed_by_default_as_in_the_seed() -> None:
    extra = ae.ListContains()(TaskResult(output='["a", "b", "c"]'), ExpectedResult(expected='["a", "b"]'))
    strict = ae.ListContains(allow_extra_entities=False)(
        TaskResult(output='["a", "b", "c"]'), ExpectedResult(expected='["a", "b"]')
    )
    assert (extra.value, extra.passed) == (1.0, True)
    assert strict.value == pytest.approx(2 / 3) and strict.passed is False


def test_heuristic_scorers__score_without_any_network_access() -> None:
    script = textwrap.dedent(
        """
        import asyncio, sys
        def deny(event, args):
            if event.startswith("socket.") and event not in ("socket.__new__",):
                raise RuntimeError("network access: " + event)
        from agent_evals.adapters.scorers import autoevals as ae
        from agent_evals.core.types import ExpectedResult, TaskResult
        scorers = [ae.Levenshtein(), ae.ExactMatch(), ae.NumericDiff(), ae.JSONDiff(), ae.ValidJSON(),
                   ae.ListContains()]
        sys.addaudithook(deny)
        async def main():
            for s in scorers:
                score = s(TaskResult(output='["1"]'), ExpectedResult(expected='["1"]'))
                assert score.error is None or "numbers" in score.error, score
                print(score.name, score.value)
        asyncio.run(main())
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "Levenshtein",
        "1.0",
        "ExactMatch",
        "1.0",
        "NumericDiff",
        "0.0",
        "JSONDiff",
        "1.0",
        "ValidJSON",
        "1.0",
        "ListContains",
        "1.0",
    ]


# --- default thresholds ---------------------------------------------------------------------------

DEFAULT_THRESHOLDS = [
    (ae.Levenshtein, 1.0),
    (ae.ExactMatch, 1.0),
    (ae.JSONDiff, 1.0),
    (ae.ValidJSON, 1.0),
    (ae.ListContains, 1.0),
    (ae.NumericDiff, 0.9),
    (ae.EmbeddingSimilarity, 0.8),
    (ae.ClosedQA, 0.8),
    (ae.Security, 0.8),
    (ae.Translation, 0.8),
    (ae.Sql, 0.8),
    (ae.LLMClassifier, 0.8),
    (ae.Factuality, 0.7),
    (ae.Battle, 0.7),
    (ae.Summary, 0.7),
    (ae.Possible, 0.7),
    (ae.Humor, 0.6),
    (ae.Moderation, 0.5),
]


@pytest.mark.parametrize(("factory", "threshold"), DEFAULT_THRESHOLDS)
def test_default_threshold__every_wrapper_constructs_with_no_arguments_and_no_key(
    factory: Any, threshold: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert factory().threshold == threshold


def test_default_thresholds__cover_every_autoevals_wrapper() -> None:
    assert {f.__name__ for f, _ in DEFAULT_THRESHOLDS} == set(ae.__all__)


@pytest.mark.parametrize(
    ("factory", "model"),
    [
        (ae.Factuality, "gpt-4o-mini"),
        (ae.LLMClassifier, "gpt-4o-mini"),
        (ae.EmbeddingSimilarity, "text-embedding-ada-002"),
    ],
)
def test_judge__default_model__the_seeds(factory: Any, model: str) -> None:
    assert factory().model == model


@pytest.mark.parametrize("threshold", [1.5, -1, "high"])
def test_threshold__invalid__refused_at_construction(threshold: Any) -> None:
    with pytest.raises(ValueError, match="ValidJSON: threshold must be"):
        ae.ValidJSON(threshold=threshold)


# --- LLM judges against the loopback OpenAI-compatible server -----------------------------------


def _judge(factory: Any, server: OpenAIServer, **kwargs: Any) -> Any:
    return factory(base_url=server.base_url, api_key="test-key", model="judge-model", **kwargs)


@pytest.mark.parametrize(
    ("factory", "kwargs", "choice", "value"),
    [
        (ae.Factuality, {}, "C", 1.0),
        (ae.Factuality, {}, "A", 0.4),
        (ae.Factuality, {}, "D", 0.0),
        (ae.ClosedQA, {"criteria": "names a city"}, "Y", 1.0),
        (ae.Humor, {}, "Unsure", 0.5),
        (ae.Security, {}, "No", 1.0),
        (ae.Summary, {}, "B", 1.0),
        (ae.Translation, {"language": "French"}, "Y", 1.0),
        (ae.Sql, {}, "Incorrect", 0.0),
        (ae.Possible, {}, "B", 1.0),
        (ae.Battle, {}, "Yes", 1.0),
    ],
)
async def test_llm_judge__choice__maps_to_value_with_rationale_as_reasoning(
    openai_server: OpenAIServer, factory: Any, kwargs: dict[str, Any], choice: str, value: float
) -> None:
    openai_server.script(select_choice(choice, "Because the scripted judge said so."))
    scorer = _judge(factory, openai_server, **kwargs)
    score = await scorer(
        TaskResult(output="Paris"), ExpectedResult(expected="Paris"), input="Capital of France?"
    )
    assert (score.name, score.error) == (factory.__name__, None)
    assert score.value == pytest.approx(value)
    assert score.passed is (value >= scorer.threshold)
    assert score.reasoning == "Because the scripted judge said so."
    assert score.metadata["choice"] == choice
    request = openai_server.chat_requests[-1]
    assert request["model"] == "judge-model"
    assert request["tool_choice"] == {"type": "function", "function": {"name": "select_choice"}}


@pytest.mark.parametrize(
    ("factory", "kwargs", "rendered"),
    [
        (ae.Factuality, {}, "[Question]: Capital of France?"),
        (ae.ClosedQA, {"criteria": "names a city"}, "[Criterion]: names a city"),
        (ae.Translation, {"language": "French"}, "from French to English"),
        (ae.Battle, {}, "[Instruction 1]\nCapital of France?"),
        (ae.Battle, {"instructions": "Answer tersely."}, "[Instruction 1]\nAnswer tersely."),
    ],
)
async def test_llm_judge__prompt__filled_from_example_input_and_options(
    openai_server: OpenAIServer, factory: Any, kwargs: dict[str, Any], rendered: str
) -> None:
    openai_server.script(select_choice("Y"))
    await _judge(factory, openai_server, **kwargs)(
        TaskResult(output="Paris"), ExpectedResult(expected="Paris"), input="Capital of France?"
    )
    assert rendered in openai_server.chat_requests[-1]["messages"][0]["content"]


@pytest.mark.parametrize("factory", [ae.Factuality, ae.Summary, ae.Sql, ae.Battle, ae.EmbeddingSimilarity])
async def test_llm_judge_needing_reference__empty_expected__fails_without_calling_model(
    openai_server: OpenAIServer, factory: Any
) -> None:
    score = await _judge(factory, openai_server)(
        TaskResult(output="x"), ExpectedResult(expected=""), input="q"
    )
    assert score.passed is False
    assert score.error is not None and score.error.startswith(
        f"Expected value is required for {factory.__name__}"
    )
    assert score.metadata["error"] == f"Expected value is required for {factory.__name__}"
    assert openai_server.requests == []


@pytest.mark.parametrize("factory", [ae.Factuality, ae.ClosedQA, ae.Possible])
async def test_llm_judge_with_input_prompt__no_input__fails_without_calling_model(
    openai_server: OpenAIServer, factory: Any
) -> None:
    score = await _judge(factory, openai_server)(TaskResult(output="x"), ExpectedResult(expected="y"))
    assert score.error is not None and "needs the example input" in score.error
    assert openai_server.requests == []


async def test_llm_judge__endpoint_error__failing_score_not_exception(openai_server: OpenAIServer) -> None:
    score = await _judge(ae.Humor, openai_server)(TaskResult(output="a joke"))  # nothing scripted: HTTP 400
    assert (score.value, score.passed) == (0.0, False)
    assert score.error is not None and score.error.startswith("Humor failed: BadRequestError")


async def test_llm_judge__ready_sync_and_async_clients__both_used(openai_server: OpenAIServer) -> None:
    openai_server.script(select_choice("Yes"), select_choice("No"))
    with openai.OpenAI(base_url=openai_server.base_url, api_key="k") as sync_client:
        first = await ae.Humor(client=sync_client, model="m")(TaskResult(output="pun"))
    async with openai.AsyncOpenAI(base_url=openai_server.base_url, api_key="k") as async_client:
        second = await ae.Humor(client=async_client, model="m")(TaskResult(output="pun"))
    assert (first.value, second.value) == (1.0, 0.0)
    assert len(openai_server.chat_requests) == 2


@pytest.mark.parametrize("base_url", ["https://judge.example.com/v1", None])
async def test_llm_judge__remote_endpoint_without_key__errored_score_at_call_never_a_pass(
    monkeypatch: pytest.MonkeyPatch, base_url: str | None
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    scorer = ae.Humor(base_url=base_url)  # constructing needs no key
    score = await scorer(TaskResult(output="a pun"))
    where = base_url or "https://api.openai.com/v1"
    assert (score.value, score.passed) == (0.0, False)
    assert score.error == (
        f"Humor: no API key for the judge at {where!r}: pass api_key=... (or a ready client=...), "
        "or set OPENAI_API_KEY."
    )
    assert score.metadata["error"] == score.error


async def test_llm_judge__api_key_from_environment__read_at_the_first_call(
    openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    scorer = ae.Humor(base_url=openai_server.base_url, model="m")
    monkeypatch.setenv("OPENAI_API_KEY", "key-set-after-construction")
    openai_server.script(select_choice("Yes"))
    score = await scorer(TaskResult(output="a pun"))
    assert (score.value, score.error) == (1.0, None)
    assert openai_server.requests[-1].headers.get("authorization") == "Bearer key-set-after-construction"


async def test_llm_judge__input_from_task_result_context__as_in_the_seed(openai_server: OpenAIServer) -> None:
    openai_server.script(select_choice("C"), select_choice("Y"))
    result = TaskResult(output="Paris", context={"input": "Capital of France?", "language": "French"})
    fact = await _judge(ae.Factuality, openai_server)(result, ExpectedResult(expected="Paris"))
    tran = await _judge(ae.Translation, openai_server)(result, ExpectedResult(expected="Paris"))
    assert (fact.value, fact.error, tran.value, tran.error) == (1.0, None, 1.0, None)
    prompts = [body["messages"][0]["content"] for body in openai_server.chat_requests]
    assert "[Question]: Capital of France?" in prompts[0]
    assert "from French to English" in prompts[1]


async def test_translation__no_language_anywhere__errored_without_calling_model(
    openai_server: OpenAIServer,
) -> None:
    score = await _judge(ae.Translation, openai_server)(
        TaskResult(output="Paris"), ExpectedResult(expected="Paris"), input="Paris"
    )
    assert score.passed is False
    assert score.error is not None and score.error.startswith("Translation needs the source language")
    assert openai_server.requests == []


async def test_llm_judge__loopback_endpoint_without_key__works(openai_server: OpenAIServer) -> None:
    openai_server.script(select_choice("No"))
    score = await ae.Security(base_url=openai_server.base_url, model="m")(TaskResult(output="hello"))
    assert (score.value, score.error) == (1.0, None)


# --- LLMClassifier ----------------------------------------------------------------------------


def _classifier(server: OpenAIServer) -> ae.LLMClassifier:
    return ae.LLMClassifier(
        "Sentiment",
        "What is the sentiment of: {{output}}",
        {"positive": 1, "negative": 0, "neutral": 0.5},
        base_url=server.base_url,
        api_key="k",
        model="m",
    )


@pytest.mark.parametrize(("choice", "value", "passed"), [("positive", 1.0, True), ("neutral", 0.0, False)])
async def test_llm_classifier__choice_equal_to_expected_label__passes(
    openai_server: OpenAIServer, choice: str, value: float, passed: bool
) -> None:
    openai_server.script(select_choice(choice, "tone"))
    score = await _classifier(openai_server)(
        TaskResult(output="I love it"), ExpectedResult(expected="positive")
    )
    assert (score.name, score.value, score.passed, score.error) == ("Sentiment", value, passed, None)
    assert score.metadata["choice"] == choice
    assert score.metadata["expected_label"] == "positive"
    assert score.reasoning == "tone"


@pytest.mark.parametrize(
    ("label", "error"),
    [
        (None, "Sentiment (LLMClassifier) needs the expected label in ExpectedResult.expected"),
        ("", "Sentiment (LLMClassifier) needs the expected label in ExpectedResult.expected"),
        ("happy", "the expected label 'happy' is not one of its choices ['negative', 'neutral', 'positive']"),
    ],
)
async def test_llm_classifier__missing_or_unknown_expected_label__fails_without_calling_model(
    openai_server: OpenAIServer, label: str | None, error: str
) -> None:
    score = await _classifier(openai_server)(TaskResult(output="I love it"), _expected(label))
    assert score.passed is False
    assert score.error is not None and error in score.error
    assert openai_server.requests == []


@pytest.mark.parametrize(("choice", "passed"), [("negative", True), ("positive", False)])
async def test_llm_classifier__no_arguments__sorts_into_the_seeds_sentiment_categories(
    openai_server: OpenAIServer, choice: str, passed: bool
) -> None:
    openai_server.script(select_choice(choice, "tone"))
    scorer = ae.LLMClassifier(base_url=openai_server.base_url)
    score = await scorer(TaskResult(output="I hate it"), ExpectedResult(expected="negative"))
    assert (score.name, score.passed, score.error) == ("LLMClassifier", passed, None)
    request = openai_server.chat_requests[-1]
    assert (request["model"], request["temperature"], request["max_tokens"]) == ("gpt-4o-mini", 0, 512)
    assert "- negative: Negative sentiment" in request["messages"][0]["content"]


async def test_llm_classifier__categories_given__expected_label_outside_them_errored(
    openai_server: OpenAIServer,
) -> None:
    scorer = ae.LLMClassifier(
        categories={"bug": "A defect", "feature": "A request"}, base_url=openai_server.base_url
    )
    score = await scorer(TaskResult(output="It crashes"), ExpectedResult(expected="question"))
    assert score.passed is False and score.error is not None
    assert "not one of its choices ['bug', 'feature']" in score.error
    assert openai_server.requests == []


@pytest.mark.parametrize(
    "kwargs",
    [
        {"prompt_template": "{{output}}"},
        {"choice_scores": {"a": 1}},
        {"prompt_template": "{{output}}", "choice_scores": {"a": 1}, "categories": {"a": "A"}},
        {"categories": {}},
    ],
)
def test_llm_classifier__incomplete_or_mixed_setup__refused_at_construction(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="LLMClassifier: "):
        ae.LLMClassifier(**kwargs)


# --- Moderation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("category_scores", "threshold", "value", "reasoning"),
    [
        ({"violence": 0.1}, None, 1.0, "The output was not flagged by the moderation endpoint"),
        ({"violence": 0.9}, None, 0.0, "The output was flagged by the moderation endpoint"),
        ({"violence": 0.3}, 0.2, 0.0, "The output was flagged by the moderation endpoint"),
        ({"violence": 0.9}, 0.95, 1.0, "The output was not flagged by the moderation endpoint"),
    ],
)
async def test_moderation__flagged_output_fails__threshold_is_the_category_score_limit(
    openai_server: OpenAIServer,
    category_scores: dict[str, float],
    threshold: float | None,
    value: float,
    reasoning: str,
) -> None:
    openai_server.moderation = {"some text": category_scores}
    score = await ae.Moderation(threshold, base_url=openai_server.base_url)(TaskResult(output="some text"))
    assert (score.name, score.value, score.passed, score.error) == ("Moderation", value, value == 1.0, None)
    assert score.reasoning == reasoning
    assert score.metadata["category_scores"] == category_scores
    assert score.metadata["_threshold"] == 0.5
    assert openai_server.requests_to("/v1/moderations")[-1].body["input"] == "some text"


# --- EmbeddingSimilarity ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("vectors", "value"),
    [
        (([1.0, 0.0], [1.0, 0.0]), 1.0),
        (([1.0, 0.0], [0.0, 1.0]), 0.0),
        (([1.0, 0.0], [0.8, 0.6]), (0.8 - 0.7) / 0.3),
    ],
)
async def test_embedding_similarity__cosine_rescaled_above_expected_min(
    openai_server: OpenAIServer, vectors: tuple[list[float], list[float]], value: float
) -> None:
    openai_server.embeddings = {"the output": vectors[0], "the reference": vectors[1]}
    scorer = ae.EmbeddingSimilarity(base_url=openai_server.base_url, api_key="k", model="embed-1")
    score = await scorer(TaskResult(output="the output"), ExpectedResult(expected="the reference"))
    assert score.error is None
    assert score.value == pytest.approx(value, abs=1e-6)
    assert score.passed is (score.value >= 0.8)
    assert {r.body["model"] for r in openai_server.requests_to("/v1/embeddings")} == {"embed-1"}


# --- missing extra ----------------------------------------------------------------------------


@pytest.mark.parametrize("factory", [ae.ValidJSON, ae.Levenshtein, ae.Factuality])
def test_wrapper__autoevals_not_installed__missing_dependency_names_extra(
    monkeypatch: pytest.MonkeyPatch, factory: Any
) -> None:
    monkeypatch.setitem(sys.modules, "autoevals", None)  # what an absent package looks like to import
    with pytest.raises(MissingDependency, match=r"pip install 'agent-evals\[autoevals\]'") as info:
        factory(base_url="http://localhost:1/v1") if factory is ae.Factuality else factory()
    assert (info.value.package, info.value.extra) == ("autoevals", "autoevals")


async def test_llm_judge__text_answer_instead_of_choice_call__failing_score(
    openai_server: OpenAIServer,
) -> None:
    openai_server.script(TextAnswer("I think it is funny."))
    score = await _judge(ae.Humor, openai_server)(TaskResult(output="pun"))
    assert score.passed is False
    assert score.error is not None and "No tool call found in response" in score.error
