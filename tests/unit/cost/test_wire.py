"""Token counts read from the shapes model APIs and LangChain messages report them in."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest

from agent_evals.cost.http_usage import _Copy
from agent_evals.cost.meter import UsageMeter, combine
from agent_evals.cost.prices import BUILTIN, Price, PriceTable
from agent_evals.cost.wire import Report, from_message, from_text

SSE = "\n\n".join(
    [
        'data: {"model": "gpt-4o", "choices": [{"delta": {"content": "hi"}}], "usage": null}',
        'data: {"model": "gpt-4o", "choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 3}}',
        "data: [DONE]",
    ]
)
NDJSON = "\n".join(
    [
        json.dumps({"model": "llama3.2:3b", "message": {"content": "h"}, "done": False}),
        json.dumps({"model": "llama3.2:3b", "done": True, "prompt_eval_count": 20, "eval_count": 7}),
    ]
)
RESPONSES_EVENT = (
    "event: response.completed\n"
    'data: {"type": "response.completed", "response": {"model": "gpt-4.1", "usage": {"input_tokens": 9, "output_tokens": 2}}}'
)


@pytest.mark.parametrize(
    ("body", "report"),
    [
        (
            '{"model": "gpt-4o", "usage": {"prompt_tokens": 10, "completion_tokens": 5}}',
            Report("gpt-4o", 10, 5),
        ),
        (
            '{"model": "claude-sonnet-4", "usage": {"input_tokens": 8, "output_tokens": 4}}',
            Report("claude-sonnet-4", 8, 4),
        ),
        (
            '{"model": "text-embedding-3-small", "usage": {"prompt_tokens": 6, "total_tokens": 6}}',
            Report("text-embedding-3-small", 6, 0),
        ),
        (SSE, Report("gpt-4o", 12, 3)),
        (NDJSON, Report("llama3.2:3b", 20, 7)),
        (RESPONSES_EVENT, Report("gpt-4.1", 9, 2)),
        ('{"model": "gpt-4o", "choices": []}', None),
        ('{"login": "octocat", "usage": {"plan": "free"}}', None),
        ("not json at all", None),
        ("", None),
    ],
)
def test_from_text__reads_the_calls_tokens_from_each_shape(body: str, report: Report | None) -> None:
    assert from_text(body) == report


class _Message:
    def __init__(self, usage: Any = None, meta: Any = None) -> None:
        self.usage_metadata = usage
        self.response_metadata = meta or {}


@pytest.mark.parametrize(
    ("message", "report"),
    [
        (_Message({"input_tokens": 4, "output_tokens": 1}, {"model_name": "gpt-4o"}), Report("gpt-4o", 4, 1)),
        (
            _Message(
                None, {"model_name": "gpt-4o", "token_usage": {"prompt_tokens": 3, "completion_tokens": 2}}
            ),
            Report("gpt-4o", 3, 2),
        ),
        (
            _Message(None, {"model": "llama3", "prompt_eval_count": 5, "eval_count": 6}),
            Report("llama3", 5, 6),
        ),
        ({"type": "ai", "usage_metadata": {"input_tokens": 2, "output_tokens": 2}}, Report(None, 2, 2)),
        ({"role": "assistant", "content": "no usage here"}, None),
    ],
)
def test_from_message__reads_langchain_usage_metadata_then_the_providers_counts(
    message: Any, report: Report | None
) -> None:
    assert from_message(message) == report


def test_usage_hook_copy__a_gzip_body_is_decoded_before_it_is_read() -> None:
    meter = UsageMeter()
    copy = _Copy(meter, "gzip", False)
    body = gzip.compress(b'{"model": "gpt-4o", "usage": {"prompt_tokens": 7, "completion_tokens": 1}}')
    for i in range(0, len(body), 5):
        copy.add(body[i : i + 5])
    copy.finish()
    copy.finish()  # once only, however often the body is closed
    assert meter.usage() == {
        "input_tokens": 7,
        "output_tokens": 1,
        "models": {"gpt-4o": {"input_tokens": 7, "output_tokens": 1, "calls": 1}},
    }


@pytest.mark.parametrize(
    ("model", "price"),
    [
        ("gpt-4o", BUILTIN["gpt-4o"]),
        ("gpt-4o-mini-2024-07-18", BUILTIN["gpt-4o-mini"]),
        ("openai/gpt-4o-2024-08-06", BUILTIN["gpt-4o"]),
        ("gpt-4o2", None),
        ("house-model", None),
    ],
)
def test_price_table__exact_then_the_longest_dated_prefix(model: str, price: Price | None) -> None:
    assert PriceTable(BUILTIN).price_of(model) == price


@pytest.mark.parametrize(
    ("explicit", "captured", "expected"),
    [
        (None, {"input_tokens": 5, "models": {"m": {}}}, {"input_tokens": 5, "models": {"m": {}}}),
        ({"cost_usd": 0.5}, {"input_tokens": 5, "models": {"m": {}}}, {"input_tokens": 5, "cost_usd": 0.5}),
        (
            {"input_tokens": 1, "model": "gpt-4o"},
            None,
            {"input_tokens": 1, "models": {"gpt-4o": {"input_tokens": 1, "output_tokens": 0, "calls": 1}}},
        ),
        ({"model": "gpt-4o"}, {"input_tokens": 5}, {"input_tokens": 5}),
    ],
)
def test_combine__the_agents_own_numbers_replace_the_captured_ones(
    explicit: dict[str, Any] | None, captured: dict[str, Any] | None, expected: dict[str, Any]
) -> None:
    assert combine(explicit, captured) == expected
