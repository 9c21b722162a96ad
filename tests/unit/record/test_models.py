"""What a suite records of the models its agent and its judges used (``record.models``), and how it reads back."""

from __future__ import annotations

import asyncio
import functools
import json
from typing import Any

import pytest

from agent_evals import Score, TaskResult, run_eval_async
from agent_evals.adapters.scorers import (
    EmbeddingSimilarity,
    Factuality,
    Moderation,
    ToolCallExactMatch,
    TrajectoryLLMAsJudge,
)
from agent_evals.core.types import ExampleData
from agent_evals.errors import RunRecordError
from agent_evals.record.merge import merge_shards
from agent_evals.record.model import RunRecord, ShardInfo
from agent_evals.record.models import (
    MAX_NAMES,
    NAME_LIMIT,
    agent_models,
    judge_model,
    merged_models,
    model_name,
    recorded_models,
    suite_models,
)
from agent_evals.record.summary import summarise

LOOPBACK = "http://127.0.0.1:9/v1"


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("gpt-4o", "gpt-4o"),
        ("  gpt-4o\n", "gpt-4o"),
        ("gpt-4o\n# Approved", "gpt-4o # Approved"),  # one line: a name cannot start a Markdown heading
        ("gpt\u200b-4o\u202e", "gpt-4o"),  # zero-width and bidi controls go
        ("gpt\x1b[31m-4o", "gpt[31m-4o"),  # no escape sequence reaches a terminal
        ("unknown", None),  # the meter's name for a response that named no model
        ("UNKNOWN", None),
        ("", None),
        ("   ", None),
        (None, None),
        (42, None),
        (["gpt-4o"], None),
    ],
)
def test_model_name__untrusted_text__one_printable_line_or_none(value: Any, name: str | None) -> None:
    assert model_name(value) == name


def test_model_name__long_names_differing_at_the_end__kept_apart_and_bounded() -> None:
    a, b = model_name("m" * 500 + "a"), model_name("m" * 500 + "b")
    assert a is not None and b is not None and a != b
    assert len(a) == len(b) == NAME_LIMIT
    assert model_name("m" * NAME_LIMIT) == "m" * NAME_LIMIT


@pytest.mark.parametrize(
    ("context", "usage", "found"),
    [
        ({"model": "gpt-4o"}, None, {"gpt-4o"}),
        ({"model": ["gpt-4o", "gpt-4o-mini", 3]}, None, {"gpt-4o", "gpt-4o-mini"}),
        ({"usage": {"input_tokens": 3, "model": "claude-3-5"}}, None, {"claude-3-5"}),
        ({"usage": "lots"}, None, set()),  # a malformed usage names nothing
        (
            None,
            {"input_tokens": 3, "models": {"gpt-4o-2024-08-06": {}, "unknown": {}}},
            {"gpt-4o-2024-08-06"},
        ),
        (None, {"model": "o3"}, {"o3"}),  # an eval's reported usage (store(usage=...)) keeps its model
        ({"model": "gpt-4o"}, {"models": {"gpt-4o-mini": {}}}, {"gpt-4o", "gpt-4o-mini"}),  # both kept
        ({"model": None, "outputs": []}, None, set()),
        (None, None, set()),
        ("not a mapping", ["nor this"], set()),
    ],
)
def test_agent_models__context_reported_usage_and_metered_models(
    context: Any, usage: Any, found: set[str]
) -> None:
    assert agent_models(context, usage) == found


class _Raises:
    @property
    def model(self) -> str:
        raise RuntimeError("no model")


def _plain(result: Any, expected: Any = None, *, model: str = "") -> Score:
    return Score(name="plain", value=1.0, passed=True)


@pytest.mark.parametrize(
    ("scorer", "model"),
    [
        (Factuality(model="gpt-4o", base_url=LOOPBACK), "gpt-4o"),
        (Factuality(base_url=LOOPBACK), "gpt-4o-mini"),  # the judges' default model
        (TrajectoryLLMAsJudge(model="openai:gpt-4o-mini", judge_base_url=LOOPBACK), "openai:gpt-4o-mini"),
        (EmbeddingSimilarity(base_url=LOOPBACK), "text-embedding-ada-002"),
        (Moderation(base_url=LOOPBACK), None),  # the moderation endpoint names no model
        (ToolCallExactMatch(), None),
        (
            functools.partial(_plain, model="llama3.1"),
            "llama3.1",
        ),  # a YAML `type: module:function` with model:
        (functools.partial(_plain), None),
        (_plain, None),
        (_Raises(), None),
    ],
    ids=lambda v: type(v).__name__,
)
def test_judge_model__llm_scorers_name_their_model(scorer: Any, model: str | None) -> None:
    assert judge_model(scorer) == model


@pytest.mark.parametrize(
    ("agent", "judge", "field"),
    [
        ({"b", "a"}, {"j"}, {"agent": ["a", "b"], "judge": ["j"]}),
        (set(), {"j"}, {"judge": ["j"]}),  # a role with no name is unknown, left out
        ({"a"}, set(), {"agent": ["a"]}),
        (set(), set(), None),
    ],
)
def test_suite_models__sorted_roles_with_names_only(agent: set[str], judge: set[str], field: Any) -> None:
    assert suite_models(agent, judge) == field


@pytest.mark.parametrize(
    ("field", "read"),
    [
        ({"agent": ["gpt-4o"], "judge": ["j"]}, {"agent": ["gpt-4o"], "judge": ["j"]}),
        ({"agent": ["b\n# x", "a", "unknown", ""], "judge": None}, {"agent": ["a", "b # x"]}),
        ({"agent": []}, {}),
        ({"other": ["x"]}, {}),
        (None, {}),
        ("gpt-4o", {}),
    ],
)
def test_recorded_models__read_back_as_plain_names(field: Any, read: dict[str, list[str]]) -> None:
    assert recorded_models(field) == read


def test_suite_models__a_flood_of_names__bounded_and_a_difference_past_the_bound_still_shows() -> None:
    names = [f"m{i:04d}" for i in range(1000)]
    field = suite_models(names)
    assert field is not None and len(field["agent"]) == MAX_NAMES
    assert field["agent"][: MAX_NAMES - 1] == names[: MAX_NAMES - 1]
    assert field["agent"][-1].startswith(f"+{1000 - MAX_NAMES + 1} more ~")
    swapped = suite_models([*names[:-1], "m9999"])
    assert swapped is not None and swapped["agent"][-1] != field["agent"][-1]


def test_merged_models__shards_parts_joined_per_role() -> None:
    parts = [{"agent": ["a"], "judge": ["j"]}, None, {"agent": ["b"]}]
    assert merged_models(parts) == {"agent": ["a", "b"], "judge": ["j"]}
    assert merged_models([None, {}]) is None


def _record(models: Any) -> dict[str, Any]:
    suite = {"id": "s", "kind": "evals", "source": "s.py", "models": models, "cases": []}
    return {"schema": "agent-evals/run@1", "run": {"tool_version": "0", "started_at": "t"}, "suites": [suite]}


@pytest.mark.parametrize(
    ("models", "where"),
    [
        ({"agent": ["gpt-4o", 4]}, "suites.0.models.agent.1"),
        ({"judge": "gpt-4o"}, "suites.0.models.judge"),
        (["gpt-4o"], "suites.0.models"),
    ],
)
def test_reader__malformed_models__refused_at_their_path(models: Any, where: str) -> None:
    with pytest.raises(RunRecordError, match=f"at '{where}'"):
        summarise(_record(models))


def test_reader__models_in_the_header_the_gate_reads__absent_in_older_records() -> None:
    assert summarise(_record({"agent": ["gpt-4o"]})).suites[0].header["models"] == {"agent": ["gpt-4o"]}
    older = _record(None)
    del older["suites"][0]["models"]
    assert "models" not in summarise(older).suites[0].header


class _Judge:
    def __init__(self, model: str) -> None:
        self.model = model

    def __call__(self, result: TaskResult, expected: Any = None) -> Score:
        return Score(name="judge", value=1.0, passed=True)


def _task(prompt: Any) -> TaskResult:
    return TaskResult(output="ok", context={"model": f"agent-{prompt}"})


def test_run_eval__to_run_record__task_context_models_and_judge_models() -> None:
    dataset = [ExampleData(input=x, metadata={"id": x}) for x in ("a", "b")]
    result = asyncio.run(run_eval_async(_task, dataset, [_Judge("gpt-4o"), ToolCallExactMatch()]))
    assert result.judge_models == ["gpt-4o"]
    suite = json.loads(result.to_run_record().to_json())["suites"][0]
    assert suite["models"] == {"agent": ["agent-a", "agent-b"], "judge": ["gpt-4o"]}


def _shard(index: int, models: dict[str, list[str]] | None) -> RunRecord:
    suite = {"id": "s", "kind": "evals", "source": "s.py", "fingerprint": "fp", "cases": [], "models": models}
    record = RunRecord.model_validate({"run": {"tool_version": "0", "started_at": "t"}, "suites": [suite]})
    record.run.shard = ShardInfo(index=index, count=2)
    return record


def test_merge__shards_that_saw_different_models__joined_not_refused() -> None:
    merged = merge_shards(
        [("one.json", _shard(1, {"agent": ["a"], "judge": ["j"]})), ("two.json", _shard(2, {"agent": ["b"]}))]
    )
    models = merged.record.suites[0].models
    assert models is not None and (models.agent, models.judge) == (["a", "b"], ["j"])
