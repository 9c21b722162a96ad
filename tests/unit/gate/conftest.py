"""Builders of run-record documents for the gate tests: cases written as trial strings ("PPF", "E")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

Builder = Callable[..., dict[str, Any]]


def trial(code: str) -> dict[str, Any]:
    """P = pass, F = fail, E = errored trial; every trial carries one 'check' scorer and usage."""
    passed = code == "P"
    return {
        "passed": passed,
        "error": "TimeoutError: agent took too long" if code == "E" else None,
        "scores": {}
        if code == "E"
        else {
            "check": {
                "value": 1.0 if passed else 0.0,
                "passed": passed,
                "notes": None if passed else "door open",
            }
        },
        "duration_s": 1.0,
        "usage": {"input_tokens": 100, "output_tokens": 10, "cost_usd": 0.01},
    }


def build_record(
    suites: Mapping[str, Mapping[str, str]],
    *,
    critical: tuple[str, ...] = (),
    gate: Mapping[str, Mapping[str, Any]] | None = None,
    complete: bool = True,
    agent: Mapping[str, str] | None = None,
    dimensions: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, Any]:
    """A run-record document: ``suites`` maps suite id -> case id -> trial codes."""
    out = []
    for sid, cases in suites.items():
        out.append(
            {
                "id": sid,
                "kind": "benchmark",
                "source": f"{sid}.yaml",
                "agent": dict(agent or {"name": "home", "version": "1"}),
                "fingerprint": f"fp-{sid}-{len(cases)}",
                "gate": dict(gate[sid]) if gate and sid in gate else None,
                "cases": [
                    {
                        "id": cid,
                        "group": cid.split("/")[0],
                        "name": f"case {cid}",
                        "dimensions": dict((dimensions or {}).get(cid, {})),
                        "critical": cid in critical,
                        "location": {"file": f"{sid}.yaml", "line": 10 + i},
                        "trials": [trial(code) for code in codes],
                    }
                    for i, (cid, codes) in enumerate(cases.items())
                ],
            }
        )
    return {
        "schema": "agent-evals/run@1",
        "run": {
            "tool_version": "0.1.0",
            "started_at": "2026-01-01T00:00:00Z",
            "complete": complete,
            "git": {"sha": "abc1234", "ref": "main"},
            "ci": {"provider": None, "run_id": "42", "pr": None},
        },
        "suites": out,
    }


def many(prefix: str, n: int, codes: str) -> dict[str, str]:
    """``n`` cases ``prefix/c0..`` with the same trial codes."""
    return {f"{prefix}/c{i}": codes for i in range(n)}


@pytest.fixture
def record() -> Builder:
    """The run-record builder."""
    return build_record


@pytest.fixture
def cases() -> Callable[[str, int, str], dict[str, str]]:
    """The ``many`` helper: n cases with the same trial codes."""
    return many
