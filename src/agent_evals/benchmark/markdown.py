"""Markdown summary of one BenchmarkResult (no baseline; the gate's report compares two runs)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_evals.benchmark.result import BenchmarkResult

MAX_FAILING_LISTED = 25
"""Failing cases listed before the rest are summarised as a count."""


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _cell(text: object, limit: int = 120) -> str:
    raw = " ".join(str(text).split())
    raw = raw if len(raw) <= limit else raw[: limit - 1] + "…"
    return raw.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;").replace("@", "@\u200b")


def render_result(result: BenchmarkResult) -> str:
    """Overall micro/macro rates, per-capability, per-dimension and per-scorer tables, failing cases."""
    agent = " ".join(x for x in (result.agent_name, result.agent_version and f"v{result.agent_version}") if x)
    lines = [
        f"## Benchmark `{_cell(result.benchmark_id)}`" + (f" with {_cell(agent)}" if agent else ""),
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
    lines.append(f"- Duration: {result.duration_s:.2f} s")
    lines += ["", "| Capability | Cases | Pass rate |", "|---|---:|---:|"]
    counts: dict[str, int] = {}
    for case in result.cases:
        counts[case.capability] = counts.get(case.capability, 0) + 1
    for name, rate in result.pass_rates_by_capability.items():
        lines.append(f"| {_cell(name)} | {counts[name]} | {_pct(rate)} |")
    for key, values in result.pass_rates_by_dimension.items():
        lines += ["", f"| By {_cell(key)} | Pass rate |", "|---|---:|"]
        lines += [f"| {_cell(value)} | {_pct(rate)} |" for value, rate in values.items()]
    lines += ["", "| Scorer | Pass rate |", "|---|---:|"]
    lines += [f"| {_cell(name)} | {_pct(rate)} |" for name, rate in result.pass_rates_by_scorer.items()]
    failing = [c for c in result.cases if c.passes < len(c.trials)]
    if failing:
        lines += ["", "<details><summary>Failing or errored cases</summary>", ""]
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
        lines += ["", "</details>"]
    return "\n".join(lines) + "\n"
