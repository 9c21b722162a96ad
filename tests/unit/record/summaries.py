"""Run records for the reader tests: a small valid one, random valid ones (hypothesis), and a
comparable form of a summary."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from agent_evals.record.summary import RunSummary, add_cases
from agent_evals.record.views import SuiteView


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
            {"id": "s", "kind": "benchmark", "source": "s.yaml", "cases": [case(0), case(1)]},
            {"id": "t", "kind": "evals", "source": "t.py", "cases": [case(2)]},
        ],
    }


def view_of(suite: dict[str, Any]) -> SuiteView:
    """One suite's cases checked and summarised, as the reader does for each suite of a record."""
    view = SuiteView()
    add_cases(view, suite.get("cases", []))
    return view


def shape(summary: RunSummary) -> list[Any]:
    """Everything a summary says, but the raw cases its views hold."""
    return [summary.run] + [
        (
            s.header,
            s.trial_counts,
            [(v.id, v.group, v.key, v.fraction, v.critical, v.use) for v in s.view.cases.values()],
            s.view.scorers,
            s.view.usage,
            s.view.groups,
            s.view.dimensions,
        )
        for s in summary.suites
    ]


# ---- records the reader accepts (the run record schema), drawn at random -------------------------------------------

MISSING = object()
"""A key left out of its object."""

numbers = st.one_of(st.integers(0, 10**6), st.floats(0, 1e6, allow_nan=False))
counts = st.one_of(st.integers(0, 10**6), st.integers(0, 1000).map(float))  # 3.0 is an integer in JSON
usages = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {},
        optional={
            "input_tokens": st.one_of(st.none(), counts),
            "output_tokens": st.one_of(st.none(), counts),
            "cost_usd": st.one_of(st.none(), st.floats(0, 1, allow_nan=False)),
            "models": st.one_of(
                st.none(),
                st.dictionaries(
                    st.sampled_from(["gpt-4o", "llama3"]),
                    st.fixed_dictionaries(
                        {}, optional={"input_tokens": counts, "output_tokens": counts, "calls": counts}
                    ),
                    max_size=2,
                ),
            ),
            "replayed": st.one_of(
                st.none(),
                st.fixed_dictionaries(
                    {},
                    optional={
                        "input_tokens": counts,
                        "output_tokens": counts,
                        "cost_usd": st.one_of(st.none(), st.floats(0, 1, allow_nan=False)),
                        "calls": counts,
                    },
                ),
            ),
        },
    ),
)
attempts = st.fixed_dictionaries(
    {},
    optional={
        "error": st.one_of(st.none(), st.just("HTTP 429")),
        "duration_s": numbers,
        "reason": st.one_of(st.none(), st.just("HTTP 429")),
        "waited_s": numbers,
        "usage": usages,
    },
)
caches = st.fixed_dictionaries(
    {"mode": st.sampled_from(["record", "replay"])},
    optional={"replayed": counts, "recorded": counts, "missed": counts},
)
scores = st.fixed_dictionaries(
    {},
    optional={
        "passed": st.one_of(st.none(), st.booleans()),
        "error": st.one_of(st.none(), st.text(max_size=5)),
        "value": st.one_of(st.none(), st.floats(0, 1)),
        "notes": st.text(max_size=5),
        "expected": st.one_of(st.none(), st.text(max_size=5)),
        "actual": st.text(max_size=5),
        "metadata": st.dictionaries(st.just("k"), st.integers()),  # not read by the gate: skipped
    },
)
trials = st.fixed_dictionaries(
    {"passed": st.booleans()},
    optional={
        "error": st.one_of(st.none(), st.sampled_from(["TimeoutError", "boom"])),
        "graded": st.booleans(),
        "duration_s": numbers,
        "usage": usages,
        "scores": st.dictionaries(st.sampled_from(["a", "b", "check"]), scores),
        "output": st.one_of(st.none(), st.text(max_size=8)),
        "attempts": st.one_of(st.none(), st.lists(attempts, max_size=2)),
        "cache": st.one_of(st.none(), caches),
        "messages": st.lists(st.text(max_size=3), max_size=2),  # not read by the gate: skipped
    },
)


@st.composite
def cases_of(draw: st.DrawFn, prefix: str) -> list[dict[str, Any]]:
    pool = [f"{g}/c{i}" for g in "xy" for i in range(6)]
    ids = draw(st.lists(st.sampled_from(pool), max_size=8, unique=True))
    out = []
    for cid in ids:
        case: dict[str, Any] = {
            "id": cid,
            "group": cid.split("/")[0],
            "trials": draw(st.lists(trials, max_size=4)),
        }
        for key, value in (
            ("name", draw(st.one_of(st.just(MISSING), st.none(), st.text(max_size=4)))),
            ("input", draw(st.one_of(st.just(MISSING), st.none(), st.text(max_size=4)))),
            ("expected", draw(st.one_of(st.just(MISSING), st.text(max_size=4)))),
            ("critical", draw(st.one_of(st.just(MISSING), st.booleans()))),
            ("labels", draw(st.one_of(st.just(MISSING), st.lists(st.sampled_from(["slow", "new"]))))),
            (
                "dimensions",
                draw(st.one_of(st.just(MISSING), st.dictionaries(st.just("tier"), st.sampled_from("ab")))),
            ),
            (
                "location",
                draw(st.sampled_from([MISSING, None, {"file": f"{prefix}.yaml", "line": 3}, {"file": "f"}])),
            ),
        ):
            if value is not MISSING:
                case[key] = value
        out.append(case)
    return out


@st.composite
def records(draw: st.DrawFn, prefix: str = "run") -> dict[str, Any]:
    suites = [
        {
            "id": sid,
            "kind": "benchmark",
            "source": f"{sid}.yaml",
            "fingerprint": "fp",
            "gate": None,
            "cases": draw(cases_of(prefix)),
        }
        for sid in draw(st.lists(st.sampled_from(["s", "t"]), min_size=1, max_size=2, unique=True))
    ]
    for suite in suites:  # the models of the agent and the judges, when the run knew them
        models = draw(
            st.sampled_from([MISSING, None, {}, {"agent": ["gpt-4o"]}, {"agent": ["a"], "judge": []}])
        )
        if models is not MISSING:
            suite["models"] = models
    run: dict[str, Any] = {
        "tool_version": "0.1.0",
        "started_at": "2026-01-01T00:00:00Z",
        "complete": draw(st.booleans()),
    }
    budget = draw(
        st.one_of(
            st.just(MISSING),
            st.none(),
            st.fixed_dictionaries(
                {"limit_usd": numbers, "spent_usd": numbers}, optional={"skipped_trials": counts}
            ),
        )
    )
    if budget is not MISSING:
        run["budget"] = budget
    return {"schema": "agent-evals/run@1", "run": run, "suites": suites}
