"""History: earlier baselines' trials join the baseline side of the test (compare --history)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_evals.gate.compare import compare_documents
from agent_evals.gate.model import Comparison
from agent_evals.gate.policy import resolve_policy
from agent_evals.report.html import render_html
from agent_evals.report.markdown import render_markdown
from agent_evals.report.terminal import render_terminal
from agent_evals.report.verdict_json import render_json


def compare(
    base: dict[str, Any], cand: dict[str, Any], history: list[dict[str, Any]], **flags: Any
) -> Comparison:
    policy = resolve_policy(repo_config=None, suite_blocks={}, overrides=flags)
    return compare_documents(base, cand, policy, history=history)


def suite(record, codes: dict[int, str], n: int = 14) -> dict[str, Any]:
    return record({"home": {f"g/c{i}": codes.get(i, "P") for i in range(n)}})


@pytest.mark.parametrize(
    ("earlier", "verdict"),
    [
        (0, "inconclusive"),  # k = 1, 4 of 14: McNemar's 1/16 is not enough
        (10, "failed"),  # ten stable earlier baselines: (1/12)^4
        (3, "failed"),  # three: (1/5)^4
    ],
)
def test_compare__four_flips_at_one_trial_with_stable_history(record, earlier: int, verdict: str) -> None:
    base = suite(record, {})
    cand = suite(record, {i: "F" for i in range(4)})
    result = compare(base, cand, [suite(record, {}) for _ in range(earlier)])
    assert result.verdict == verdict
    stat = result.suites[0].delta
    assert stat is not None and stat.history_runs == earlier
    if earlier == 10:
        assert stat.p_value == pytest.approx((1 / 12) ** 4)


def test_compare__flips_of_cases_that_alternated_before_are_weak_evidence(record) -> None:
    base = suite(record, {})
    cand = suite(record, {i: "F" for i in range(4)})
    alternating = [suite(record, {i: "F" if j % 2 else "P" for i in range(4)}) for j in range(10)]
    result = compare(base, cand, alternating)
    stat = result.suites[0].delta
    assert stat is not None and stat.p_value is not None and stat.p_value > 0.05
    assert result.verdict == "inconclusive"
    assert sorted(stat.history_flaky) == [f"g/c{i}" for i in range(4)]
    for text in (render_terminal(result), render_markdown(result), render_html(result), render_json(result)):
        assert "10 earlier baselines pooled" in text or '"history_runs": 10' in text
        assert "g/c0" in text


def test_compare__no_change_with_history__passes(record) -> None:
    base = suite(record, {0: "F"})
    result = compare(base, base, [suite(record, {0: "F"}) for _ in range(5)])
    assert (result.verdict, result.outcome) == ("passed", "pass")


def test_cli_compare__history_flag_is_repeatable(tmp_path: Path, record) -> None:
    import json

    from click.testing import CliRunner

    from agent_evals.cli.main import cli

    paths = {}
    for name, doc in [("base", suite(record, {})), ("cand", suite(record, {i: "F" for i in range(4)}))] + [
        (f"h{i}", suite(record, {})) for i in range(10)
    ]:
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(doc), encoding="utf-8")
    args = ["compare", str(paths["base"]), str(paths["cand"])]
    assert CliRunner().invoke(cli, args).exit_code == 0  # inconclusive: a warning
    for i in range(10):
        args += ["--history", str(paths[f"h{i}"])]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    assert "10 earlier baselines pooled" in result.output
