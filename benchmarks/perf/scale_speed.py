"""Time `ci` against `run` + `compare`, and a 4-shard run merged and compared, on 100,000 trivial evals.

Every step is a fresh `agent-evals` process; the script prints its wall-clock time, its CPU time
(user + sys, its child processes included: `ci` runs the suites in a child `agent-evals run`) and
its peak memory (the largest resident set of the process or of any child it waited for), then:

- `ci` (outside GitHub Actions, `--baseline FILE`) next to `run --output` + `compare`, and the ratio
  against its target (<= 2.0x, CPU time);
- four `run --shard i/4` processes one after another (on a real matrix they run side by side, so
  the slowest shard is the wall-clock figure), `merge`, and `compare` of the merged record.

Every step runs ``--repeat`` times (default 3); each figure is the median of its repeats, and the
load average is printed before and after (the machine may be shared).

    python benchmarks/perf/scale_speed.py [--cases N] [--shards N] [--repeat N] [--keep DIR]

The children run from cached bytecode, as an installed package does.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

RATIO_TARGET = 2.0

EVAL_FILE = """
from agent_evals import eval, EvalContext

@eval(cases=[{{"input": i}} for i in range({n})])
def test_trivial(ctx: EvalContext):
    ctx.output = ctx.input * 2
    assert ctx.output % 2 == 0
"""

DROPPED = ("PYTHONDONTWRITEBYTECODE", "GITHUB_ACTIONS", "GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH")
ENV = {k: v for k, v in os.environ.items() if k not in DROPPED}
"""Cached bytecode, and never taken for a GitHub Actions job (ci then compares with --baseline)."""


@dataclass
class Step:
    """What one process cost."""

    label: str
    wall: float
    cpu: float
    peak_mib: float

    def show(self) -> str:
        return (
            f"{self.label:<40} wall {self.wall:6.2f} s  cpu {self.cpu:6.2f} s  peak {self.peak_mib:6.0f} MiB"
        )


def _cli() -> str:
    script = Path(sys.executable).with_name("agent-evals")
    if not script.exists():
        sys.exit("agent-evals is not installed next to this Python; run `pip install -e .` first")
    return str(script)


def _step(label: str, cmd: list[str], cwd: Path) -> Step:
    log = cwd / "step.log"
    started = time.perf_counter()
    with log.open("w") as sink:
        proc = subprocess.Popen(cmd, cwd=cwd, env=ENV, stdout=sink, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)  # the rusage of this process and its children
        proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited {proc.returncode}:\n{log.read_text()}")
    return Step(label, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def _median(runs: list[Step]) -> Step:
    """The step's median wall, CPU and peak over its repeats."""
    return Step(
        runs[0].label,
        statistics.median(r.wall for r in runs),
        statistics.median(r.cpu for r in runs),
        statistics.median(r.peak_mib for r in runs),
    )


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


def main() -> None:
    """Run every step ``--repeat`` times and print the median figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000, help="evals in the suite (default 100,000)")
    parser.add_argument("--shards", type=int, default=4, help="shards of the sharded run (default 4)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each step, median taken (default 3)")
    parser.add_argument("--keep", type=Path, help="keep the records in this folder")
    args = parser.parse_args()
    print(f"{args.repeat} repeats, medians; {_load()} at the start")
    cli = _cli()
    root = Path(tempfile.mkdtemp(prefix="agent-evals-scale-"))
    try:
        (root / "eval_trivial.py").write_text(
            textwrap.dedent(EVAL_FILE.format(n=args.cases)), encoding="utf-8"
        )
        run = [cli, "run", "eval_trivial.py", "--quiet", "--output"]
        _step("baseline run (not counted)", [*run, "base.json"], root)

        def once() -> list[Step]:
            return [
                _step(f"run --output ({args.cases:,} cases)", [*run, "head.json"], root),
                _step("compare base.json head.json", [cli, "compare", "base.json", "head.json"], root),
                _step(
                    f"ci --baseline base.json ({args.cases:,} cases)",
                    [cli, "ci", "eval_trivial.py", "--baseline", "base.json", "--output-dir", "ci-out"],
                    root,
                ),
            ]

        repeats = [once() for _ in range(args.repeat)]  # the steps take turns: a load change hits all
        steps = [_median([r[i] for r in repeats]) for i in range(len(repeats[0]))]
        for step in steps:
            print(step.show())
        run_compare = steps[0].cpu + steps[1].cpu
        ratio = steps[2].cpu / run_compare
        verdict = "ok" if ratio <= RATIO_TARGET else "OVER TARGET"
        print(
            f"ci / (run + compare) CPU time: {steps[2].cpu:.2f} / {run_compare:.2f} s = {ratio:.2f}x  "
            f"target <= {RATIO_TARGET:.1f}x  {verdict}"
        )
        print()
        n = args.shards

        def sharded() -> list[Step]:
            shards = [
                _step(f"run --shard {i}/{n}", [*run, f"shard-{i}.json", "--shard", f"{i}/{n}"], root)
                for i in range(1, n + 1)
            ]
            merged = _step(
                f"merge {n} shards",
                [cli, "merge", *(f"shard-{i}.json" for i in range(1, n + 1)), "-o", "merged.json"],
                root,
            )
            compared = _step(
                "compare base.json merged.json", [cli, "compare", "base.json", "merged.json"], root
            )
            return [*shards, merged, compared]

        repeats = [sharded() for _ in range(args.repeat)]
        *shards, merged, compared = [_median([r[i] for r in repeats]) for i in range(len(repeats[0]))]
        for step in [*shards, merged, compared]:
            print(step.show())
        slowest = max(s.wall for s in shards)
        print(
            f"{n} shards: CPU {sum(s.cpu for s in shards):.2f} s in all, slowest shard {slowest:.2f} s wall, "
            f"peak {max(s.peak_mib for s in shards):.0f} MiB; merge + compare {merged.wall + compared.wall:.2f} s wall; "
            f"as a matrix (shards side by side): {slowest + merged.wall + compared.wall:.2f} s wall "
            f"vs {steps[0].wall + steps[1].wall:.2f} s unsharded"
        )
        print(_load() + " at the end")
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            for name in (
                "base.json",
                "head.json",
                "merged.json",
                *(f"shard-{i}.json" for i in range(1, n + 1)),
            ):
                shutil.copy(root / name, args.keep / name)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
