"""record.merge keeps every shard's story: the budget's reason wins the one ``incomplete_reason``,
``incomplete_reasons`` names each shard that is not whole, budgets are added up, and each trial's
retried attempts and cache counts survive the merge."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from agent_evals.record.merge import merge_shards
from agent_evals.record.model import RunRecord
from agent_evals.record.summary import summarise
from agent_evals.schemas import load_run_schema

COUNT = 3


def _shard(index: int, state: str) -> dict[str, Any]:
    """Shard ``index`` of 3 holding one case (two trials, one retried, one replayed from the cache);
    ``state``: ``whole``, ``budget`` (stopped by its budget) or ``interrupted`` (no reason)."""
    run: dict[str, Any] = {
        "tool_version": "1.0",
        "started_at": f"2026-01-01T00:00:0{index}Z",
        "complete": state == "whole",
        "git": {"sha": "abc"},
        "shard": {"index": index, "count": COUNT},
        "budget": {
            "limit_usd": 0.5,
            "spent_usd": 0.25 * index,
            "skipped_trials": 2 if state == "budget" else 0,
            "uncounted_trials": 1,
            "uncounted": [f"s::c{index} trial 1 (cost NaN)"],
        },
    }
    if state == "budget":
        run["incomplete_reason"] = "budget"
    trials = [
        {
            "passed": True,
            "attempts": [{"error": "HTTP 429", "duration_s": 1.0, "reason": "HTTP 429"}],
            "cache": {"mode": "replay", "replayed": 2, "recorded": 0, "missed": 0},
        },
        {"passed": False, "cache": {"mode": "replay", "replayed": 1, "recorded": 0, "missed": 0}},
    ]
    suite = {
        "id": "s",
        "kind": "evals",
        "source": "s.py",
        "fingerprint": "f",
        "cases": [{"id": f"s::c{index}", "group": "g", "trials": trials}],
        "case_positions": [index - 1],
    }
    return {"schema": "agent-evals/run@1", "run": run, "suites": [suite]}


# the shards given (index -> state) -> the merged incomplete_reason, incomplete_reasons, skipped trials
STORIES: dict[str, tuple[dict[int, str], str | None, list[str] | None, int]] = {
    "every shard whole": ({1: "whole", 2: "whole", 3: "whole"}, None, None, 0),
    "a second shard stopped by its budget": (
        {1: "whole", 2: "budget", 3: "whole"},
        "budget",
        ["shard 2/3: budget of $0.5 reached ($0.5000 spent, 2 trial(s) not started)"],
        2,
    ),
    "the first interrupted, the third stopped by its budget": (
        {1: "interrupted", 2: "whole", 3: "budget"},
        "budget",
        [
            "shard 1/3: interrupted (its record holds what finished)",
            "shard 3/3: budget of $0.5 reached ($0.7500 spent, 2 trial(s) not started)",
        ],
        2,
    ),
    "two stopped by their budgets, one missing": (
        {2: "budget", 1: "budget"},
        "budget",
        [
            "shard 1/3: budget of $0.5 reached ($0.2500 spent, 2 trial(s) not started)",
            "shard 2/3: budget of $0.5 reached ($0.5000 spent, 2 trial(s) not started)",
            "shard 3/3: missing (no shard record given)",
        ],
        4,
    ),
}


@pytest.mark.parametrize("story", list(STORIES.values()), ids=list(STORIES))
def test_merge_shards__shards_that_stopped_for_different_reasons__every_story_kept(
    story: tuple[dict[int, str], str | None, list[str] | None, int],
) -> None:
    given, reason, reasons, skipped = story
    shards = [(f"shard-{i}.json", RunRecord.model_validate(_shard(i, state))) for i, state in given.items()]
    merged = merge_shards(shards, allow_partial=True).record
    run = merged.run
    assert run.complete is (reasons is None)
    assert (run.incomplete_reason, run.incomplete_reasons) == (reason, reasons)
    assert run.budget is not None
    held = sorted(given)
    # each shard ran under its own $0.5: the whole run was allowed their sum, and spent theirs
    assert run.budget.limit_usd == pytest.approx(0.5 * len(held))
    assert run.budget.spent_usd == pytest.approx(sum(0.25 * i for i in held))
    assert run.budget.skipped_trials == skipped
    assert run.budget.uncounted_trials == len(held)
    assert run.budget.uncounted == [f"s::c{i} trial 1 (cost NaN)" for i in held]
    trials = [t for s in merged.suites for c in s.cases for t in c.trials]
    assert sum(len(t.attempts or ()) for t in trials) == len(held)  # retries: every shard's
    assert sum(t.cache.replayed for t in trials if t.cache) == 3 * len(held)  # cache counts too
    doc = json.loads(merged.to_json())
    jsonschema.validate(doc, load_run_schema())
    assert summarise(doc, "merged.json").run.get("incomplete_reasons") == reasons


# a reader's check of the new fields: the place and what it found
BAD_FIELDS: dict[str, tuple[dict[str, Any], str]] = {
    "incomplete_reasons not a list": ({"incomplete_reasons": "budget"}, "run.incomplete_reasons"),
    "an incomplete reason not a string": ({"incomplete_reasons": ["ok", 3]}, "run.incomplete_reasons.1"),
    "uncounted_trials not a count": (
        {"budget": {"limit_usd": 1, "spent_usd": 0, "uncounted_trials": "2"}},
        "run.budget.uncounted_trials",
    ),
    "an uncounted trial not a string": (
        {"budget": {"limit_usd": 1, "spent_usd": 0, "uncounted": [None]}},
        "run.budget.uncounted.0",
    ),
}


@pytest.mark.parametrize("row", list(BAD_FIELDS.values()), ids=list(BAD_FIELDS))
def test_summarise__a_new_run_field_of_the_wrong_kind__refused_naming_its_place(
    row: tuple[dict[str, Any], str],
) -> None:
    from agent_evals.errors import RunRecordError

    fields, where = row
    doc = {"schema": "agent-evals/run@1", "run": {"tool_version": "1", "started_at": "x", **fields}}
    assert not jsonschema.Draft202012Validator(load_run_schema()).is_valid(doc)
    with pytest.raises(RunRecordError, match=f"'{where}'"):
        summarise(doc, "bad.json")
