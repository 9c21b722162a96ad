"""A small valid run record and a comparable form of a summary, shared by the summary and native-reader tests."""

from __future__ import annotations

from typing import Any

from agent_evals.gate.summary import RunSummary


def record() -> dict[str, Any]:
    def case(i: int) -> dict[str, Any]:
        trial = {
            "passed": True,
            "error": None,
            "scores": {"check": {"value": 1.0, "passed": True}},
            "duration_s": 0.5,
            "usage": {"input_tokens": 10, "output_tokens": 2, "cost_usd": 0.001},
            "output": "ok",
        }
        return {
            "id": f"g/c{i}",
            "group": "g",
            "name": f"c{i}",
            "dimensions": {"tier": "a"},
            "trials": [trial],
        }

    return {
        "schema": "agent-evals/run@1",
        "run": {"tool_version": "0.1.0", "started_at": "2026-01-01T00:00:00Z"},
        "suites": [
            {"id": "s", "kind": "benchmark", "cases": [case(0), case(1)]},
            {"id": "t", "kind": "evals", "cases": [case(2)]},
        ],
    }


def shape(summary: RunSummary) -> list[Any]:
    """Everything a summary says, but the raw cases its views may or may not hold."""
    return [summary.run] + [
        (
            s.header,
            s.trial_counts,
            [(v.id, v.group, v.key, v.fraction, v.critical) for v in s.view.cases.values()],
            s.view.scorers,
            s.view.usage,
            s.view.groups,
            s.view.dimensions,
        )
        for s in summary.suites
    ]
