"""Measure `agent-evals run` peak memory on 100,000 trivial evals (streamed record; target <= 250 MiB).

Runs one fresh `agent-evals run FILE --output run.json --quiet` process on a single ``cases=`` eval
and prints its peak resident memory (max RSS of the child, from ``getrusage``), its wall-clock time
and the record's size next to the target.

    python benchmarks/perf/run_memory.py [--cases N]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

TARGET_MIB = 250.0
N_CASES = 100_000

EVAL_FILE = """
from agent_evals import eval, EvalContext

@eval(cases=[{{"input": i}} for i in range({n})])
def test_trivial(ctx: EvalContext):
    ctx.output = ctx.input * 2
    assert ctx.output % 2 == 0
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=N_CASES, help="trivial cases in the run")
    args = parser.parse_args()
    cli = Path(sys.executable).with_name("agent-evals")
    if not cli.exists():
        sys.exit("agent-evals is not installed next to this Python; run `pip install -e .` first")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "eval_trivial.py").write_text(textwrap.dedent(EVAL_FILE.format(n=args.cases)), "utf-8")
        out = folder / "run.json"
        started = time.perf_counter()
        done = subprocess.run(
            [str(cli), "run", "eval_trivial.py", "--output", str(out), "--quiet"],
            cwd=folder,
            capture_output=True,
            text=True,
            check=False,
        )
        wall = time.perf_counter() - started
        if done.returncode != 0:
            sys.exit(f"agent-evals run failed ({done.returncode}):\n{done.stderr}")
        peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
        cases = sum(len(s["cases"]) for s in json.loads(out.read_text("utf-8"))["suites"])
        size_mib = out.stat().st_size / 1024 / 1024
    verdict = "ok" if peak_mib <= TARGET_MIB else "OVER"
    print(
        f"run on {cases:,} trivial cases: peak RSS {peak_mib:.0f} MiB (target <= {TARGET_MIB:.0f}) {verdict}"
    )
    print(f"  wall {wall:.1f} s, record {size_mib:.1f} MiB")


if __name__ == "__main__":
    main()
