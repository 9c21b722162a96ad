"""The `make demo` main job: run the home benchmark with agent v1 (baseline) and v2 (candidate), then gate."""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARK = HERE / "home.yaml"
OUT = Path.cwd() / "out"


def main() -> int:
    """Write out/baseline.json and out/candidate.json, gate them, print the Markdown and write the reports."""
    from agent_evals.benchmark.runner import run_benchmark
    from agent_evals.gate.compare import compare_runs
    from agent_evals.gate.model import BaselineInfo
    from agent_evals.gate.policy import resolve_policy
    from agent_evals.gate.store import write_record
    from agent_evals.report.html import render_html
    from agent_evals.report.markdown import render_markdown

    start = time.perf_counter()
    records = {}
    for label, agent in (("baseline", "home_agent:HomeAgent"), ("candidate", "home_agent:HomeAgentV2")):
        result = run_benchmark(BENCHMARK, agent)
        record = result.to_run_record()
        path = write_record(OUT / f"{label}.json", record)
        records[label] = (result, record)
        sys.stderr.write(
            f"{label}: {result.agent_name} v{result.agent_version}, micro pass rate "
            f"{result.micro_pass_rate:.1%} over {len(result.cases)} cases -> {path}\n"
        )
    baseline, candidate = records["baseline"][1], records["candidate"][1]
    policy = resolve_policy(
        repo_config=None, suite_blocks={s.id: s.gate for s in candidate.suites}, overrides={}
    )
    info = BaselineInfo(
        source="file",
        path=str(OUT / "baseline.json"),
        sha=baseline.run.git.sha,
        ref=baseline.run.git.ref,
        date=baseline.run.started_at,
    )
    comparison = compare_runs(baseline, candidate, policy, baseline_info=info)
    markdown = render_markdown(comparison, budget="summary")
    (OUT / "report.md").write_text(markdown, encoding="utf-8")
    (OUT / "report.html").write_text(render_html(comparison), encoding="utf-8")
    print(markdown)
    print(f"Verdict: {comparison.verdict} (agent-evals compare would exit {comparison.exit_code})")
    sys.stderr.write(
        f"demo finished in {time.perf_counter() - start:.1f}s; reports in {OUT / 'report.md'} and "
        f"{OUT / 'report.html'} (open it in a browser)\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
