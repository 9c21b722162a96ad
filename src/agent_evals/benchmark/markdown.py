"""Markdown summary of one BenchmarkResult (no baseline; the gate's report compares two runs)."""

from __future__ import annotations

from agent_evals.benchmark.outcome import BenchmarkRun, CaseOutcome
from agent_evals.core.percent import percent

MAX_FAILING_LISTED = 25
"""Failing cases listed before the rest are summarised as a count."""

MAX_TASK_ROWS = 200
"""Cases listed per capability in the Tasks section before the rest are summarised as a count."""


def _pct(value: float | None) -> str:
    return percent(value)


def _cell(text: object, limit: int = 120) -> str:
    raw = " ".join(str(text).split())
    raw = raw if len(raw) <= limit else raw[: limit - 1] + "…"
    return raw.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;").replace("@", "@\u200b")


def _count(passed: int, total: int) -> str:
    return f"{passed}/{total} ({percent(passed / total)})" if total else "0/0"


def _run_info(result: BenchmarkRun) -> list[str]:
    rows = [("benchmark", result.benchmark_id)]
    if result.agent_name:
        rows.append(("agent", " ".join(x for x in (result.agent_name, result.agent_version) if x)))
    if result.description:
        rows.append(("description", result.description))
    rows.append(("config", result.source))
    if result.started_at:
        rows.append(("started", result.started_at))
    rows.append(("duration", f"{result.duration_s:.2f} s"))
    return ["## Run info", "", "| | |", "|---|---|", *(f"| {k} | {_cell(v)} |" for k, v in rows)]


def _trial_counts(cases: list[CaseOutcome]) -> tuple[int, int]:
    return sum(c.passes for c in cases), sum(len(c.trials) for c in cases)


def _verdict(case: CaseOutcome) -> str:
    trial = case.trials[0] if case.trials else None
    if trial is None or trial.error is not None:
        return "ERROR"
    return "PASS" if trial.passed else "FAIL"


def _tasks(by_capability: dict[str, list[CaseOutcome]]) -> list[str]:
    """One table per capability, a row per scenario: its verdict, or over several trials Pass% and Std."""
    lines = ["", "## Tasks"]
    for name in sorted(by_capability):
        cases = by_capability[name]
        keys = list(dict.fromkeys(key for case in cases for key in case.dimensions))
        several = any(len(case.trials) > 1 for case in cases)
        tail = ["Passed", "Errored", "Pass%", "Std"] if several else ["Result", "Duration"]
        header = ["Scenario", "Name", *keys, *tail]
        lines += ["", f"### {_cell(name)}", "", "| " + " | ".join(_cell(h) for h in header) + " |"]
        lines.append("|" + "---|" * (2 + len(keys)) + "---:|" * len(tail))
        for case in cases[:MAX_TASK_ROWS]:
            cells = [case.scenario_id, case.name or "", *(case.dimensions.get(key, "") for key in keys)]
            if several:
                cells += [f"{case.passes}/{len(case.trials)}", str(case.errors), _pct(case.pass_fraction)]
                cells.append(f"{case.std:.2f}")
            else:
                duration = case.trials[0].duration_s if case.trials else 0.0
                cells += [_verdict(case), f"{duration:.2f} s"]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        if len(cases) > MAX_TASK_ROWS:
            lines.append(
                f"\n… and {len(cases) - MAX_TASK_ROWS} more scenarios (every trial is in the run record)"
            )
    return lines


def render_result(result: BenchmarkRun) -> str:
    """Run info, the score (passed/total trials, micro/macro rates), breakdowns, tasks and the failures."""
    passed, total = _trial_counts(result.cases)
    lines = [f"# Benchmark `{_cell(result.benchmark_id)}`", "", *_run_info(result), "", "## Score", ""]
    lines += [
        f"**{_count(passed, total)}** trials passed (no error, every scorer passed)",
        "",
        f"- Pass rate, micro (mean over {len(result.cases)} cases): **{_pct(result.micro_pass_rate)}**",
        f"- Pass rate, macro (mean over {len(result.pass_rates_by_capability)} capabilities): "
        f"**{_pct(result.macro_pass_rate)}**",
        f"- Trials: {result.trial_count} ({result.runs_per_scenario} per scenario), "
        f"failed {result.failure_count}, errored {result.error_count}",
    ]
    if result.runs_per_scenario > 1:
        k = result.runs_per_scenario
        lines.append(f"- pass@{k}: {_pct(result.pass_at_k)}, pass^{k}: {_pct(result.pass_hat_k)}")
    if result.setup_error:
        lines.append(f"- Agent setup failed: {_cell(result.setup_error.splitlines()[0], 200)}")
    by_capability: dict[str, list[CaseOutcome]] = {}
    for case in result.cases:
        by_capability.setdefault(case.capability, []).append(case)
    lines += ["", "## Breakdown", "", "### By capability", ""]
    lines += ["| Capability | Cases | Trials passed | Pass rate |", "|---|---:|---:|---:|"]
    for name in sorted(by_capability):
        cases = by_capability[name]
        lines.append(
            f"| {_cell(name)} | {len(cases)} | {_count(*_trial_counts(cases))} | "
            f"{_pct(result.pass_rates_by_capability.get(name))} |"
        )
    for key, values in result.pass_rates_by_dimension.items():
        lines += [
            "",
            f"### By {_cell(key)}",
            "",
            f"| {_cell(key)} | Trials passed | Pass rate |",
            "|---|---:|---:|",
        ]
        for value, rate in values.items():
            cases = [c for c in result.cases if c.dimensions.get(key) == value]
            lines.append(f"| {_cell(value)} | {_count(*_trial_counts(cases))} | {_pct(rate)} |")
    lines += ["", "### By scorer", "", "| Scorer | Pass rate |", "|---|---:|"]
    lines += [f"| {_cell(name)} | {_pct(rate)} |" for name, rate in result.pass_rates_by_scorer.items()]
    lines += _tasks(by_capability)
    failing = [c for c in result.cases if c.passes < len(c.trials)]
    lines += ["", "## Failures", ""]
    if not failing:
        lines.append("None: every trial passed.")
    for case in failing[:MAX_FAILING_LISTED]:
        why = ""
        for trial in case.trials:
            if trial.error:
                why = f"error: {trial.error}"
                break
            bad = [s for s in trial.scores.values() if not s.passed]
            if bad:
                why = f"{bad[0].name}: {bad[0].reasoning or bad[0].error or 'failed'}"
                break
        lines.append(f"- `{_cell(case.id)}` {case.passes}/{len(case.trials)} passed; {_cell(why, 200)}")
    if len(failing) > MAX_FAILING_LISTED:
        lines.append(f"- … and {len(failing) - MAX_FAILING_LISTED} more")
    return "\n".join(lines) + "\n"
