"""Compare the CPU time of one trivial 10,000-case job written as a YAML benchmark and as code-first evals.

Both run as fresh `agent-evals run ... --quiet --output run.json` processes; the script prints the
median and best wall-clock and CPU time (user + sys) of each, and the YAML / code-first ratio of the
median CPU times next to its target (<= 2.0x), with the load average. CPU time is what a busy shared
machine disturbs least. The first run of each form (which also writes the bytecode cache) is not counted.

    python benchmarks/perf/yaml_vs_code.py [--runs N] [--cases N]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

RATIO_TARGET = 2.0

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""The children run from cached bytecode, as an installed package does (the YAML path imports more
modules, so compiling them on every start would count against it)."""

EVAL_FILE = """
from agent_evals import eval, EvalContext

@eval(cases=[{{"input": str(i)}} for i in range({n})])
def test_trivial(ctx: EvalContext):
    ctx.output = ctx.input
    assert ctx.output == ctx.input
"""

AGENT_FILE = """
async def echo(prompt: str) -> str:
    return prompt
"""


def _yaml(n: int) -> str:
    lines = [
        "benchmark: trivial",
        "agent: trivial_agent:echo",
        "capabilities:",
        "  - name: echo",
        "    scenarios:",
    ]
    for i in range(n):
        lines += [
            f"      - id: {i}",
            f'        prompt: "{i}"',
            f'        success: {{output: {{equals: "{i}"}}}}',
        ]
    return "\n".join(lines) + "\n"


def _cli() -> str:
    script = Path(sys.executable).with_name("agent-evals")
    if not script.exists():
        sys.exit("agent-evals is not installed next to this Python; run `pip install -e .` first")
    return str(script)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _measure(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """Wall-clock and CPU (user + sys) seconds of one fresh process."""
    cpu_before = _cpu()
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=ENV, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return wall, _cpu() - cpu_before


def main() -> None:
    """Run both forms of the job and print their times and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per form (default 7)")
    parser.add_argument("--cases", type=int, default=10_000, help="cases in the job (default 10,000)")
    args = parser.parse_args()
    cli = _cli()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "eval_trivial.py").write_text(
            textwrap.dedent(EVAL_FILE.format(n=args.cases)), encoding="utf-8"
        )
        (root / "trivial_agent.py").write_text(textwrap.dedent(AGENT_FILE), encoding="utf-8")
        (root / "trivial.yaml").write_text(_yaml(args.cases), encoding="utf-8")
        forms = {
            "code-first evals": [
                cli,
                "run",
                "eval_trivial.py",
                "--quiet",
                "--output",
                str(root / "code.json"),
            ],
            "YAML benchmark": [cli, "run", "trivial.yaml", "--quiet", "--output", str(root / "yaml.json")],
        }
        for cmd in forms.values():
            _measure(cmd, root)  # warm the OS file cache and write the bytecode cache
        walls: dict[str, list[float]] = {label: [] for label in forms}
        cpus: dict[str, list[float]] = {label: [] for label in forms}
        for _ in range(args.runs):  # the forms take turns, so a change in the machine's load hits both
            for label, cmd in forms.items():
                wall, cpu = _measure(cmd, root)
                walls[label].append(wall)
                cpus[label].append(cpu)
    median = {label: statistics.median(cpus[label]) for label in forms}
    for label in forms:
        print(
            f"{label:<18} {args.cases:,} cases: cpu median {median[label]:6.2f} s  best {min(cpus[label]):6.2f} s"
            f"  wall median {statistics.median(walls[label]):6.2f} s"
        )
    ratio = median["YAML benchmark"] / median["code-first evals"]
    verdict = "ok" if ratio <= RATIO_TARGET else "OVER TARGET"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"YAML / code-first CPU time (medians of {args.runs}): {ratio:.2f}x  target <= {RATIO_TARGET:.1f}x  "
        f"{verdict}  (load average {load})"
    )


if __name__ == "__main__":
    main()
