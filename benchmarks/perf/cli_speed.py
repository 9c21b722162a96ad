"""Measure the CLI's speed: `agent-evals --help` cold start, and `agent-evals run` on 10,000 trivial evals.

Prints the best and median wall-clock time of several fresh processes next to the targets
(--help <= 0.150 s; 10,000 evals via one `cases=` eval, whole process, <= 1.0 s), and the best
CPU time (user + sys), which a busy shared machine disturbs less than the wall clock.

    python benchmarks/perf/cli_speed.py [--runs N]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

HELP_TARGET_S = 0.150
RUN_TARGET_S = 1.0
N_EVALS = 10_000

EVAL_FILE = f"""
from agent_evals import eval, EvalContext

@eval(cases=[{{"input": i}} for i in range({N_EVALS})])
def test_trivial(ctx: EvalContext):
    ctx.output = ctx.input * 2
    assert ctx.output % 2 == 0
"""


def _cli() -> str:
    script = Path(sys.executable).with_name("agent-evals")
    if not script.exists():
        sys.exit("agent-evals is not installed next to this Python; run `pip install -e .` first")
    return str(script)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _times(cmd: list[str], runs: int, cwd: Path) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU (user + sys) seconds of ``runs`` fresh processes."""
    wall, cpu = [], []
    for _ in range(runs):
        cpu_before = _cpu()
        started = time.perf_counter()
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
        wall.append(time.perf_counter() - started)
        cpu.append(_cpu() - cpu_before)
        if done.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr}")
    return wall, cpu


def _report(label: str, times: tuple[list[float], list[float]], target: float) -> None:
    wall, cpu = times
    best = min(wall)
    verdict = "ok" if best <= target else "OVER TARGET"
    print(
        f"{label:<44} wall best {best * 1000:7.1f} ms  median {statistics.median(wall) * 1000:7.1f} ms  "
        f"cpu best {min(cpu) * 1000:7.1f} ms  target {target * 1000:6.0f} ms  {verdict}"
    )


def main() -> None:
    """Run both measurements and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per measurement (default 7)")
    args = parser.parse_args()
    cli = _cli()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "eval_trivial.py").write_text(textwrap.dedent(EVAL_FILE), encoding="utf-8")
        _times([cli, "--help"], 1, root)  # warm the OS file cache and bytecode
        _report("agent-evals --help (cold process)", _times([cli, "--help"], args.runs, root), HELP_TARGET_S)
        run_cmd = [cli, "run", "eval_trivial.py", "--quiet", "--output", str(root / "run.json")]
        _times(run_cmd, 1, root)
        _report(
            f"agent-evals run ({N_EVALS:,} evals, --output)", _times(run_cmd, args.runs, root), RUN_TARGET_S
        )


if __name__ == "__main__":
    main()
