"""Time every report renderer on a large comparison (default 100,000 cases x 3 trials) and print sizes.

Usage: python benchmarks/perf/report_speed.py [--cases N] [--trials K]

The run records come from compare_speed.py's generator (same shape as real records); the comparison is
built once with the gate, then the Markdown comment and job summary, JUnit XML, JSON verdict, terminal
text and HTML report are rendered from it, each timed separately.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType


def _generator() -> ModuleType:
    path = Path(__file__).with_name("compare_speed.py")
    spec = importlib.util.spec_from_file_location("compare_speed", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args()

    from agent_evals.gate.compare import compare_documents
    from agent_evals.gate.policy import Policy
    from agent_evals.record.read import check_document
    from agent_evals.report.html import render_html
    from agent_evals.report.junit import render_junit
    from agent_evals.report.markdown import render_markdown
    from agent_evals.report.terminal import render_terminal
    from agent_evals.report.verdict_json import render_json

    gen = _generator()
    base = check_document(gen.make_record(args.cases, args.trials, 7, drift=0.0))
    cand = check_document(gen.make_record(args.cases, args.trials, 8, drift=0.03))
    start = time.perf_counter()
    comparison = compare_documents(base, cand, Policy())
    print(f"compare: {time.perf_counter() - start:.2f} s for {args.cases:,} cases x {args.trials} trials")

    renderers = {
        "markdown (comment)": lambda: render_markdown(comparison, env={}),
        "markdown (summary)": lambda: render_markdown(comparison, budget="summary", env={}),
        "junit": lambda: render_junit(comparison, env={}),
        "json": lambda: render_json(comparison, env={}),
        "terminal": lambda: render_terminal(comparison, env={}),
        "html": lambda: render_html(comparison, env={}),
    }
    for name, render in renderers.items():
        start = time.perf_counter()
        text = render()
        elapsed = time.perf_counter() - start
        print(f"{name:20s} {elapsed:6.2f} s  {len(text):>12,} chars  {len(text.encode()):>12,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
