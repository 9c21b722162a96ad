"""``--budget-usd`` says what it could not count: a trial whose cost is missing (a model without a price),
NaN, infinite or negative is left out of the spend, counted and named (case id and trial) in the
record's budget block and the run's closing line, never silently."""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_evals.cli.main import cli
from agent_evals.cost.budget import Budget

# what an attempt reported -> why the budget cannot count it (None: it can, or there is nothing to count)
USAGES: dict[str, tuple[dict[str, Any] | None, str | None]] = {
    "a cost in dollars": ({"cost_usd": 0.25}, None),
    "a zero cost": ({"cost_usd": 0}, None),
    "no usage at all": (None, None),
    "replayed tokens, no cost": (
        {"input_tokens": 5, "output_tokens": 1, "replayed": {"input_tokens": 5, "output_tokens": 1}},
        None,
    ),
    "live tokens, no cost": ({"input_tokens": 5, "output_tokens": 1}, "no price for its model"),
    "NaN": ({"cost_usd": math.nan}, "cost NaN"),
    "infinite": ({"cost_usd": math.inf}, "cost infinite"),
    "negative": ({"cost_usd": -0.5}, "cost -0.5, negative"),
}


@pytest.mark.parametrize("row", list(USAGES.values()), ids=list(USAGES))
def test_uncounted_cost__each_usage__counted_or_says_why_not(
    row: tuple[dict[str, Any] | None, str | None],
) -> None:
    # imported here, not at the top: on code without it only these rows fail, not the whole file
    from agent_evals.cost.budget import uncounted_cost

    usage, why = row
    assert uncounted_cost(usage) == why
    budget = Budget(1.0)
    budget.charge(usage)
    assert budget.uncounted_trials == (0 if why is None else 1)
    assert math.isfinite(budget.spent_usd) and budget.spent_usd >= 0
    assert budget.spent_usd == (usage["cost_usd"] if why is None and usage and "cost_usd" in usage else 0)


EVALS = """
from agent_evals import EvalContext, eval

COSTS = {"good": 0.01, "nan": float("nan"), "inf": float("inf"), "negative": -0.5}

@eval(cases=[{"id": name, "input": name} for name in COSTS])
def test_spend(ctx: EvalContext):
    ctx.store(output="ok", usage={"cost_usd": COSTS[ctx.input]})
"""

# the run's cost per trial -> what the record's budget block and the closing line say
RUNS: dict[str, tuple[int, list[str]]] = {
    "one trial each": (
        1,
        [
            "nan] trial 1 (cost NaN)",
            "inf] trial 1 (cost infinite)",
            "negative] trial 1 (cost -0.5, negative)",
        ],
    ),
    "two trials each": (2, ["nan] trial 2 (cost NaN)", "negative] trial 1 (cost -0.5, negative)"]),
}


@pytest.mark.parametrize("row", list(RUNS.values()), ids=list(RUNS))
def test_run_cli__trials_whose_cost_cannot_be_counted__are_counted_and_named(
    row: tuple[int, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trials, named = row
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AGENT_EVALS_BUDGET_USD", raising=False)
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "eval_spend.py").write_text(textwrap.dedent(EVALS), encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["run", "evals", "--budget-usd", "5", "--trials", str(trials), "-o", "run.json"]
    )
    assert result.exit_code == 0, result.output
    budget = json.loads((tmp_path / "run.json").read_text())["run"]["budget"]
    assert budget["uncounted_trials"] == 3 * trials
    assert budget["spent_usd"] == pytest.approx(0.01 * trials)
    assert len(budget["uncounted"]) == 3 * trials
    closing = " ".join(result.output.split())
    assert f"{3 * trials} trial(s) whose cost could not be counted" in closing
    for name in named:
        assert any(n.endswith(name) for n in budget["uncounted"])
        assert name in closing
