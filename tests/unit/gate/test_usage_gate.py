"""The usage gate: tokens, cost and latency per trial, paired per case, beyond the limit and significant."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_evals.cli.main import cli
from agent_evals.cost.prices import BUILTIN, PriceTable, use_table
from agent_evals.gate.compare import compare_documents, compare_runs
from agent_evals.gate.model import Comparison, UsageCheck
from agent_evals.gate.policy import resolve_policy
from agent_evals.record.model import RunRecord
from agent_evals.record.read import read_summary


@pytest.fixture(autouse=True)
def _builtin_prices() -> Any:
    use_table(PriceTable(BUILTIN))
    yield
    use_table(None)


def _trial(
    tokens: int | None = None,
    *,
    model: str | None = None,
    cost: float | None = None,
    seconds: float = 1.0,
    error: str | None = None,
) -> dict[str, Any]:
    trial: dict[str, Any] = {"passed": error is None, "duration_s": seconds}
    if error is not None:
        trial["error"] = error
    if tokens is not None or cost is not None:
        usage: dict[str, Any] = {"input_tokens": tokens, "output_tokens": 0 if tokens is not None else None}
        if cost is not None:
            usage["cost_usd"] = cost
        if model is not None and tokens is not None:
            usage["models"] = {model: {"input_tokens": tokens, "output_tokens": 0, "calls": 1}}
        trial["usage"] = usage
    return trial


def _record(
    cases: Sequence[dict[str, Any]] | Sequence[Sequence[dict[str, Any]]], suite: str = "s"
) -> RunRecord:
    built = []
    for i, case in enumerate(cases):
        trials = [case] if isinstance(case, dict) else list(case)
        built.append({"id": f"c{i}", "group": "g1" if i % 2 else "g2", "trials": trials})
    return RunRecord.model_validate(
        {
            "run": {"tool_version": "0", "started_at": "2026-01-01T00:00:00Z"},
            "suites": [{"id": suite, "kind": "evals", "source": suite, "cases": built}],
        }
    )


def _compare(base: RunRecord, cand: RunRecord, **flags: Any) -> Comparison:
    return compare_runs(base, cand, resolve_policy(repo_config=None, suite_blocks={}, overrides=flags))


def _check(comparison: Comparison, metric: str) -> UsageCheck:
    [check] = [k for k in comparison.suites[0].usage_checks if k.metric == metric]
    return check


@pytest.mark.parametrize(
    ("base", "cand", "flags", "verdict", "outcome"),
    [
        pytest.param([100] * 8, [130] * 8, {}, "failed", "fail", id="every-case-up-30pct-fails"),
        pytest.param([100] * 8, [110] * 8, {}, "passed", "pass", id="up-10pct-is-within-the-default-20pct"),
        pytest.param(
            [100] * 3, [130] * 3, {}, "inconclusive", "warn", id="three-cases-cannot-be-significant"
        ),
        pytest.param(
            [100] * 8,
            [1000] + [100] * 7,
            {},
            "inconclusive",
            "warn",
            id="one-case-exploding-is-not-significant",
        ),
        pytest.param([100] * 8, [60] * 8, {}, "passed", "pass", id="a-drop-passes"),
        pytest.param(
            [100] * 8, [130] * 8, {"max_tokens_increase": "off"}, "passed", "pass", id="off-never-gates"
        ),
        pytest.param(
            [100] * 8, [130] * 8, {"max_tokens_increase": 0.5}, "passed", "pass", id="a-higher-limit"
        ),
        pytest.param(
            [100] * 3,
            [130] * 3,
            {"on_inconclusive": "fail"},
            "inconclusive",
            "fail",
            id="on-inconclusive-fail",
        ),
        pytest.param([100, 200] * 4, [130, 260] * 4, {}, "failed", "fail", id="relative-over-the-sum"),
    ],
)
def test_tokens__change_counts_only_beyond_the_limit_and_significant(
    base: list[int], cand: list[int], flags: dict[str, Any], verdict: str, outcome: str
) -> None:
    comparison = _compare(_record([_trial(t) for t in base]), _record([_trial(t) for t in cand]), **flags)
    assert _check(comparison, "tokens").verdict == verdict
    assert comparison.outcome == outcome
    assert comparison.exit_code == (1 if outcome == "fail" else 0)


def test_tokens__sign_test_p_value_and_totals_are_reported() -> None:
    comparison = _compare(_record([_trial(100)] * 8), _record([_trial(130)] * 7 + [_trial(90)]))
    check = _check(comparison, "tokens")
    assert (check.n_up, check.n_down, check.n_paired) == (7, 1, 8)
    assert check.p_value == pytest.approx(9 / 256)  # P(Binomial(8, 1/2) >= 7)
    assert (check.baseline_total, check.candidate_total) == (800, 7 * 130 + 90)
    assert check.increase == pytest.approx(1000 / 800 - 1)
    assert [g.group for g in comparison.suites[0].usage_groups] == ["g1", "g2"]


@pytest.mark.parametrize(
    ("base", "cand", "top", "up_down", "groups"),
    [
        pytest.param(
            [100, 100, 100, 100, 100, 100, 100],
            [150, 120, 150, 90, 100, 130, 101],
            [("c0", 150), ("c2", 150), ("c5", 130), ("c1", 120), ("c6", 101)],
            (5, 1),
            {"g1": (300, 340), "g2": (400, 501)},
            id="largest-rises-first-ties-in-case-order-five-at-most",
        ),
        pytest.param(
            [100, None, 100, 100, None],
            [130, 500, None, 120, None],
            [("c0", 130), ("c3", 120)],
            (2, 0),
            {"g1": (100, 120), "g2": (100, 130)},
            id="only-cases-measured-on-both-sides",
        ),
        pytest.param([100, 100], [90, 100], [], (0, 1), {"g1": (100, 100), "g2": (100, 90)}, id="no-rise"),
    ],
)
def test_tokens__top_cases_signs_and_group_sums(
    base: list[int | None],
    cand: list[int | None],
    top: list[tuple[str, int]],
    up_down: tuple[int, int],
    groups: dict[str, tuple[int, int]],
) -> None:
    comparison = _compare(_record([_trial(t) for t in base]), _record([_trial(t) for t in cand]))
    check = _check(comparison, "tokens")
    assert [(t.case_id, t.candidate) for t in check.top_cases] == top
    assert all(t.baseline == 100 for t in check.top_cases)
    assert (check.n_up, check.n_down) == up_down
    rows = [g for g in comparison.suites[0].usage_groups if g.metric == "tokens"]
    assert {g.group: (g.baseline_total, g.candidate_total) for g in rows} == groups
    assert [g.group for g in rows] == sorted(groups)
    both = [i for i, (b, c) in enumerate(zip(base, cand, strict=True)) if b is not None and c is not None]
    assert check.n_paired == len(both) == sum(g.n_paired for g in rows)
    assert check.missing_case_ids == [
        f"c{i}" for i, (b, c) in enumerate(zip(base, cand, strict=True)) if b is not None and c is None
    ]


def test_tokens__a_case_the_candidate_stopped_measuring__fails_and_names_it() -> None:
    base = _record([_trial(100)] * 8)
    cand = _record([_trial(100)] * 7 + [_trial(None)])
    comparison = _compare(base, cand)
    check = _check(comparison, "tokens")
    assert (check.verdict, check.missing_case_ids) == ("failed", ["c7"])
    [reason] = [r for r in comparison.reasons if r.kind == "usage-missing"]
    assert reason.blocking and "c7" in reason.message and "max_tokens_increase: off" in reason.message
    assert comparison.exit_code == 1


def test_tokens__a_candidate_that_records_no_usage_at_all__fails_when_the_baseline_did() -> None:
    comparison = _compare(_record([_trial(100)] * 8), _record([_trial(None)] * 8))
    assert comparison.outcome == "fail"
    assert _check(comparison, "tokens").missing_case_ids == [f"c{i}" for i in range(8)]


def test_tokens__usage_only_in_the_candidate__is_left_out_and_counted() -> None:
    comparison = _compare(_record([_trial(None)] * 8), _record([_trial(500)] * 8))
    check = _check(comparison, "tokens")
    assert (check.verdict, check.unmeasured_in_baseline) == ("not-measured", 8)
    assert comparison.outcome == "pass"


def test_no_usage_on_either_side__no_usage_check_and_the_gate_passes() -> None:
    comparison = _compare(_record([_trial(None)] * 8), _record([_trial(None)] * 8))
    assert comparison.suites[0].usage_checks == []
    assert comparison.outcome == "pass"


def test_errored_candidate_trials__are_the_error_budgets_not_missing_usage() -> None:
    base = _record([_trial(100)] * 40)
    cand = _record([_trial(100)] * 39 + [_trial(None, error="boom")])
    check = _check(_compare(base, cand), "tokens")
    assert (check.missing_case_ids, check.n_paired) == ([], 39)


def test_cost__both_sides_are_repriced_with_one_table_so_a_price_change_is_not_a_cost_change() -> None:
    # the baseline was priced with older prices (recorded $1 per trial); the tokens did not change
    base = _record([_trial(1000, model="gpt-4o", cost=1.0)] * 8)
    cand = _record([_trial(1000, model="gpt-4o", cost=2.0)] * 8)
    check = _check(_compare(base, cand), "cost")
    assert check.increase == pytest.approx(0.0)
    assert check.verdict == "passed"


def test_cost__a_switch_to_a_dearer_model_with_the_same_tokens__fails() -> None:
    base = _record([_trial(1000, model="gpt-4o-mini")] * 8)
    cand = _record([_trial(1000, model="gpt-4o")] * 8)
    comparison = _compare(base, cand)
    assert _check(comparison, "tokens").verdict == "passed"
    check = _check(comparison, "cost")
    assert check.increase == pytest.approx(2.50 / 0.15 - 1)
    assert check.verdict == "failed" and comparison.exit_code == 1


def test_cost__a_switch_to_a_model_without_a_price__fails_and_says_to_add_it() -> None:
    base = _record([_trial(1000, model="gpt-4o-mini")] * 8)
    cand = _record([_trial(1000, model="house-model-v2")] * 8)
    comparison = _compare(base, cand)
    check = _check(comparison, "cost")
    assert check.verdict == "failed" and check.unpriced_models == ["house-model-v2"]
    [reason] = [r for r in comparison.reasons if r.kind == "usage-missing"]
    assert "no price for house-model-v2" in reason.message and "prices:" in reason.message


def test_cost__recorded_cost_without_models__is_compared_as_recorded() -> None:
    base = _record([_trial(None, cost=0.01)] * 8)
    cand = _record([_trial(None, cost=0.02)] * 8)
    check = _check(_compare(base, cand), "cost")
    assert (check.increase, check.verdict) == (pytest.approx(1.0), "failed")


@pytest.mark.parametrize(
    ("flags", "verdict"),
    [({}, None), ({"max_latency_increase": 0.2}, "failed"), ({"max_latency_increase": 0.6}, "passed")],
)
def test_latency__is_opt_in(flags: dict[str, Any], verdict: str | None) -> None:
    base = _record([_trial(None, seconds=2.0)] * 8)
    cand = _record([_trial(None, seconds=3.0)] * 8)
    comparison = _compare(base, cand, **flags)
    checks = [k for k in comparison.suites[0].usage_checks if k.metric == "latency"]
    assert [k.verdict for k in checks] == ([verdict] if verdict else [])


def test_usage_checks__are_holm_adjusted_over_every_suite() -> None:
    cases = [_trial(100)] * 6
    risen = [_trial(130)] * 6
    base = RunRecord.model_validate(
        {
            **_record(cases, "a").model_dump(by_alias=True),
            "suites": [*_record(cases, "a").suites, *_record(cases, "b").suites],
        }
    )
    cand = RunRecord.model_validate(
        {
            **_record(risen, "a").model_dump(by_alias=True),
            "suites": [*_record(risen, "a").suites, *_record(risen, "b").suites],
        }
    )
    comparison = _compare(base, cand)
    checks = [k for s in comparison.suites for k in s.usage_checks if k.metric == "tokens"]
    assert [k.p_value for k in checks] == [pytest.approx(1 / 64)] * 2
    assert [k.p_adjusted for k in checks] == [pytest.approx(2 / 64)] * 2


def _write(path: Path, record: RunRecord) -> str:
    path.write_text(record.to_json(), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("args", "config", "exit_code"),
    [
        ([], None, 1),
        (["--max-tokens-increase", "off"], None, 0),
        (["--max-tokens-increase", "0.5"], None, 0),
        ([], "gate:\n  max_tokens_increase: off\n", 0),
        ([], "gate:\n  max_tokens_increase: 0.4\n", 0),
        (["--max-tokens-increase", "0.1"], "gate:\n  max_tokens_increase: 0.4\n", 1),
    ],
)
def test_cli__flags_and_the_gate_block_set_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], config: str | None, exit_code: int
) -> None:
    monkeypatch.chdir(tmp_path)
    if config is not None:
        (tmp_path / "agent-evals.yaml").write_text(config, encoding="utf-8")
    base = _write(tmp_path / "base.json", _record([_trial(100)] * 8))
    cand = _write(tmp_path / "cand.json", _record([_trial(130)] * 8))
    result = CliRunner().invoke(cli, ["compare", base, cand, *args])
    assert result.exit_code == exit_code, result.output


def test_cli__a_percentage_for_a_fraction__is_exit_2_with_a_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    base = _write(tmp_path / "base.json", _record([_trial(100)] * 8))
    result = CliRunner().invoke(cli, ["compare", base, base, "--max-tokens-increase", "20"])
    assert result.exit_code == 2
    assert "did you mean 0.2" in result.output


def test_reports__show_each_usage_check_with_its_groups_and_the_cases_that_rose_most() -> None:
    from agent_evals.report.html import render_html
    from agent_evals.report.markdown import render_markdown
    from agent_evals.report.terminal import render_terminal

    comparison = _compare(_record([_trial(100)] * 8), _record([_trial(130)] * 7 + [_trial(90)]))
    terminal = " ".join(render_terminal(comparison, env={}).split())  # lines wrap at 80 columns
    assert (
        "usage s tokens per trial: 100 -> 125 (+25.0%; 7 up / 1 down, p 0.035) limit 20%: failed" in terminal
    )
    assert "group g1: 100 -> 120 (+20.0%)" in terminal  # means per trial, not sums over cases
    assert "rose most: c0 100 -> 130" in terminal
    markdown = render_markdown(comparison, env={})
    assert "| s | tokens | 100 | 125 | +25.0% | 7 / 1 | 20.0% | failed |" in markdown
    assert "| g1 | tokens | 100 | 120 | +20.0% |" in markdown
    assert "usage rose in 1 suite" in markdown
    assert "<td>tokens</td><td>100</td><td>125</td><td>+25.0%</td>" in render_html(comparison, env={})


def test_cost__a_candidate_on_a_model_without_a_price__fails_as_missing_never_a_decrease() -> None:
    base = _record([_trial(1000, model="gpt-4o")] * 8)
    cand = _record([_trial(1000, model="someones-unpriced-model")] * 8)
    comparison = _compare(base, cand, max_cost_increase=0.2)
    check = _check(comparison, "cost")
    assert check.verdict == "failed" and len(check.missing_case_ids) == 8
    assert check.increase is None or check.increase >= 0
    assert comparison.exit_code == 1


def test_usage__trials_of_a_case_that_did_not_measure__leave_the_mean_per_measured_trial_unchanged() -> None:
    # every candidate case measured one of its two trials (the other reported nothing): no decrease
    base = _record([[_trial(100), _trial(100)]] * 8)
    cand = _record([[_trial(100), _trial(None)]] * 8)
    check = _check(_compare(base, cand), "tokens")
    assert (check.n_paired, check.n_down, check.increase) == (8, 0, 0.0)
    assert check.verdict == "passed"


def test_usage__replayed_candidate_usage_is_gated_like_live_usage() -> None:
    base = _record([_trial(100)] * 8)
    replayed = {"input_tokens": 130, "output_tokens": 0, "cost_usd": None, "calls": 1}
    cand = _record([{**_trial(130), "usage": {**_trial(130)["usage"], "replayed": replayed}}] * 8)
    check = _check(_compare(base, cand), "tokens")
    assert check.verdict == "failed" and check.increase == pytest.approx(0.3)


GPT4O_1000 = 1000 * 2.50 / 1_000_000  # builtin price of 1,000 gpt-4o input tokens


@pytest.mark.parametrize(
    ("trials", "tokens", "cost", "seconds"),
    [
        pytest.param(
            [_trial(1000, model="gpt-4o", cost=9.0)], 1000, GPT4O_1000, 1.0, id="priced-not-recorded"
        ),
        pytest.param([_trial(None, cost=0.5, seconds=2.0)], None, 0.5, 2.0, id="recorded-cost-only"),
        pytest.param(
            [_trial(1000, model="gpt-4o"), _trial(None, cost=0.5, seconds=3.0)],
            1000,
            (GPT4O_1000 + 0.5) / 2,
            2.0,
            id="priced-and-recorded-mixed",
        ),
        pytest.param(
            [_trial(1000, model="house", cost=0.25), _trial(1000, model="house")],
            1000,
            0.25,
            1.0,
            id="unpriced-falls-back-to-recorded-else-not-counted",
        ),
        pytest.param(
            [_trial(500, cost=1.0), _trial(5000, model="gpt-4o", cost=7.0, seconds=9.0, error="boom")],
            500,
            1.0,
            1.0,
            id="errored-trials-are-left-out",
        ),
        pytest.param([_trial(None, seconds=0.0)], None, None, None, id="nothing-measured"),
    ],
)
def test_case_means__per_valid_trial_that_measured_them(
    trials: list[dict[str, Any]], tokens: float | None, cost: float | None, seconds: float | None
) -> None:
    from agent_evals.cost.prices import active_table
    from agent_evals.gate.usage_gate import priced
    from agent_evals.record.read import record_to_document
    from agent_evals.record.summary import summarise

    view = summarise(record_to_document(_record([trials]))).suites[0].view.cases["c0"]
    valid, *means, _ = priced(view.use, active_table(), set())
    assert valid
    assert means == [tokens, pytest.approx(cost) if cost is not None else None, seconds]


@pytest.mark.parametrize(
    ("side", "recorded", "cost"),
    [
        ("baseline", True, 0.25),
        ("candidate", True, 0.25),
        ("baseline", False, 0.25),  # the base side's own run: its recorded cost stands
        # a pull request's run worked its cost out with its own prices: not taken under the base's table
        ("candidate", False, None),
    ],
)
def test_priced__unpriced_model__recorded_cost_stands_in_unless_the_table_says_not_for_the_candidate(
    side: str, recorded: bool, cost: float | None
) -> None:
    from agent_evals.gate.usage_gate import priced
    from agent_evals.record.read import record_to_document
    from agent_evals.record.summary import summarise

    view = summarise(record_to_document(_record([[_trial(1000, model="house", cost=0.25)]]))).suites[0].view
    unpriced: set[str] | None = set() if side == "candidate" else None
    _, _, mean, _, _ = priced(view.cases["c0"].use, PriceTable(BUILTIN, recorded=recorded), unpriced)
    assert mean == cost
    assert unpriced in (None, {"house"})


@pytest.mark.parametrize(
    ("value", "exit_code"),
    [
        ("0.03", 1),  # tripled: the plain rise fails (for contrast)
        ("0.01", 0),  # unchanged: passes
        ("NaN", 1),  # a NaN compared false with the limit: it passed, whatever was spent
        ("-Infinity", 1),
        ("Infinity", 1),
        ("1e309", 1),  # read as infinity
        ("-0.5", 1),  # a negative cost is no measurement, and read as a fall it hid any rise
    ],
)
def test_cli__candidate_cost_that_is_no_measurement__fails_as_not_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, exit_code: int
) -> None:
    monkeypatch.chdir(tmp_path)
    base = _write(tmp_path / "base.json", _record([_trial(100, cost=0.01)] * 8))
    # the run's own record writer (json.dumps) writes a NaN an agent reported as NaN
    text = _record([_trial(100, cost=0.25)] * 8).to_json().replace('"cost_usd":0.25', f'"cost_usd":{value}')
    (tmp_path / "cand.json").write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["compare", base, str(tmp_path / "cand.json"), "--json", "v.json"])
    assert result.exit_code == exit_code, result.output
    reasons = json.loads((tmp_path / "v.json").read_text())["reasons"]
    if value not in ("0.03", "0.01"):
        [reason] = reasons
        assert reason["kind"] == "usage-missing" and reason["blocking"]
        assert (
            "recorded no cost (or none that is a finite, non-negative number) for 8 paired"
            in reason["message"]
        )


def test_baseline_cost_that_is_no_measurement__is_not_measured_in_the_baseline(tmp_path: Path) -> None:
    text = _record([_trial(100, cost=0.25)] * 8).to_json().replace('"cost_usd":0.25', '"cost_usd":NaN')
    (tmp_path / "base.json").write_text(text, encoding="utf-8")
    cand = _write(tmp_path / "cand.json", _record([_trial(100, cost=0.01)] * 8))
    policy = resolve_policy(repo_config=None, suite_blocks={}, overrides={})
    result = compare_documents(read_summary(tmp_path / "base.json"), read_summary(Path(cand)), policy)
    assert (_check(result, "cost").verdict, result.exit_code) == ("not-measured", 0)
