"""A run stopped by its --budget-usd, through the real CLI: every count a message gives counts what it names."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

CASES = 40
BENCH = (
    "benchmark: spend\nagent: paid_agent:answer\nexecution: {runs_per_scenario: 1, n_parallel_runs: 1}\n"
    "capabilities:\n  - name: cap\n    scenarios:\n"
    + "".join(
        f"      - {{id: c{i}, prompt: go, success: {{output: {{contains: ok}}}}}}\n" for i in range(CASES)
    )
)
# every trial reports 1,000 gpt-4o input tokens: $0.0025 by the built-in price table
AGENT = (
    "from agent_evals import TaskResult\n\n\ndef answer(prompt):\n"
    "    usage = {'input_tokens': 1000, 'output_tokens': 0, 'model': 'gpt-4o'}\n"
    "    return TaskResult(output='ok', context={'usage': usage})\n"
)


def _cli(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_EVALS_", "GITHUB_"))}
    return subprocess.run(
        [sys.executable, "-m", "agent_evals", *args],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A whole baseline run of the 40 cases, and a candidate whose $0.005 budget lets 2 trials start."""
    tmp = tmp_path_factory.mktemp("budget")
    (tmp / "bench.yaml").write_text(BENCH, encoding="utf-8")
    (tmp / "paid_agent.py").write_text(AGENT, encoding="utf-8")
    base = _cli(tmp, "run", "bench.yaml", "-o", "base.json")
    assert base.returncode == 0, base.stderr
    stopped = _cli(tmp, "run", "bench.yaml", "--budget-usd", "0.005", "-o", "cand.json")
    assert stopped.returncode == 3, stopped.stderr
    return tmp, stopped


def _record(tmp: Path, name: str) -> dict[str, Any]:
    return dict(json.loads((tmp / name).read_text(encoding="utf-8")))


def _number(pattern: str, text: str) -> int:
    found = re.search(pattern, " ".join(text.split()))
    assert found, (pattern, text)
    return int(found.group(1).replace(",", ""))


def test_budget_stop__run_messages__count_trials_not_started_and_cases_recorded(
    runs: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    tmp, stopped = runs
    record = _record(tmp, "cand.json")
    ran = [len(case["trials"]) for suite in record["suites"] for case in suite["cases"]]
    assert record["run"]["incomplete_reason"] == "budget" and sum(ran) == 2
    said = stopped.stdout + stopped.stderr
    assert (
        _number(r"(\d+) trial\(s\) not started", said)
        == CASES - sum(ran)
        == record["run"]["budget"]["skipped_trials"]
    )
    assert _number(r"Run: ([\d,]+) cases?", said) == len(ran)


def test_budget_stop__compare__not_run_cases_counted_as_not_run_never_as_removed(
    runs: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    tmp, _ = runs
    done = _cli(tmp, "compare", "base.json", "cand.json", "--json", "verdict.json")
    assert done.returncode == 3, done.stderr
    missing = CASES - sum(len(s["cases"]) for s in _record(tmp, "cand.json")["suites"])
    said = done.stdout
    assert _number(r"Not run \((\d+)\)", said) == missing
    assert _number(r"Case ids differ: 0 added, (\d+) not run", said) == missing
    assert "removed" not in said and "trials errored" not in said


def test_budget_stop__cases_listed_without_a_trial__the_error_budget_line_counts_cases_not_trials(
    runs: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    """The budget-stopped record as a producer that lists every planned case writes it: the cases the
    budget kept from starting are there with no trial. They are charged to the error budget with the
    baseline's trials, and the line says so: no trial of theirs "errored", none ran."""
    tmp, _ = runs
    record = _record(tmp, "cand.json")
    suite = record["suites"][0]
    have = {case["id"] for case in suite["cases"]}
    for case in _record(tmp, "base.json")["suites"][0]["cases"]:
        if case["id"] not in have:
            suite["cases"].append({**case, "trials": []})
    (tmp / "listed.json").write_text(json.dumps(record), encoding="utf-8")
    done = _cli(tmp, "compare", "base.json", "listed.json", "--json", "listed-verdict.json")
    assert done.returncode == 3, done.stderr
    reasons = json.loads((tmp / "listed-verdict.json").read_text())["reasons"]
    [budget] = [r["message"] for r in reasons if r["kind"] == "error-budget"]
    not_run = CASES - len(have)
    assert f"0 of {len(have)} graded trials errored" in budget
    assert f"{not_run} cases graded in the baseline ran no trial at all now" in budget
    assert f"charged as the {not_run} trials the baseline ran of them: {not_run} of {CASES} counted" in budget
    assert f"{not_run} of {CASES} trials errored" not in budget
    [lost] = [r["message"] for r in reasons if r["kind"] == "lost-grade"]
    assert f"0 without a pass/fail verdict, {not_run} with no trial at all" in lost
