"""Time `agent-evals compare` (the whole process) on two 100,000-case x 3-trial run records; print peak memory.

Usage: python benchmarks/perf/compare_speed.py [--cases N] [--trials K] [--repeat R] [--keep DIR]
                                              [--core-venv DIR]

``--core-venv DIR`` measures the core install (the figure the target is for): it creates a virtual
environment in DIR with ``pip install -e .`` of this checkout and nothing else when DIR has none yet
(``python -m venv DIR && DIR/bin/pip install -e .``), then runs this script again with its Python.
The script says which decoder it measured.

The records are synthetic but shaped like real ones: every trial carries one scorer verdict, a duration
and token usage; 85% of cases are stable (all trials pass or all fail), 15% are flaky, and the candidate
differs from the baseline in a few percent of cases. They are written by the product's own writer
(``gate.store.write_record``), so the files have the size and layout ``agent-evals run`` produces.
Target: under 3 s of CPU time with the core install only (no msgspec) on the project's 2-core
machine; the CPU time (user + system) is the median of the repeats, printed with the load average
(wall time on a shared machine says more about the other jobs). The build machine's speed changes
between sessions, so the script also prints a reference figure: the CPU time of a fixed pure-Python
loop. Two measurements taken on different days compare as ratios to their reference figures. After the timed runs, the same steps
are timed in this process (each record's decode and check-and-summarise walk, compare, render) to
show where the time goes.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path
from typing import Any


def make_record(n_cases: int, trials: int, seed: int, *, drift: float) -> dict[str, Any]:
    """A run record with one benchmark suite of ``n_cases`` cases in 20 capabilities."""
    rng = random.Random(seed)
    base_rng = random.Random(1)  # the same case population on both sides
    cases = []
    for i in range(n_cases):
        kind = base_rng.random()
        p = 1.0 if kind < 0.7 else 0.0 if kind < 0.85 else base_rng.uniform(0.2, 0.8)
        if rng.random() < drift:
            p = 1.0 - p
        group = f"capability-{i % 20}"
        trial_list = []
        for _ in range(trials):
            passed = rng.random() < p
            trial_list.append(
                {
                    "passed": passed,
                    "error": None,
                    "scores": {"state": {"value": 1.0 if passed else 0.0, "passed": passed}},
                    "duration_s": round(rng.uniform(0.2, 2.0), 3),
                    "usage": {"input_tokens": 900, "output_tokens": 120, "cost_usd": 0.0021},
                }
            )
        cases.append(
            {
                "id": f"{group}/scenario-{i}",
                "group": group,
                "name": f"Scenario {i}",
                "dimensions": {"difficulty": "hard" if i % 3 == 0 else "easy"},
                "critical": False,
                "location": {"file": "benchmarks/big.yaml", "line": 10 + i},
                "trials": trial_list,
            }
        )
    return {
        "schema": "agent-evals/run@1",
        "run": {"tool_version": "0.1.0", "started_at": "2026-01-01T00:00:00Z", "complete": True},
        "suites": [
            {
                "id": "big",
                "kind": "benchmark",
                "source": "benchmarks/big.yaml",
                "agent": {"name": "perf", "version": "1"},
                "fingerprint": "perf",
                "cases": cases,
            }
        ],
    }


def write(path: Path, data: dict[str, Any]) -> None:
    """Write a record the way ``agent-evals run`` does: validated model, then the product's writer."""
    from agent_evals.record.model import RunRecord
    from agent_evals.record.store import write_record

    write_record(path, RunRecord.model_validate(data))


def time_steps(base: Path, cand: Path) -> str:
    """CPU time of the command's steps in this process, as the command runs them: each record decoded,
    then checked and summarised in one walk (the candidate first, then the baseline: the same steps),
    then compare, then render."""
    from agent_evals.gate.compare import compare_documents
    from agent_evals.gate.policy import resolve_policy
    from agent_evals.record.read import read_data
    from agent_evals.record.summary import summarise
    from agent_evals.report.terminal import render_terminal
    from agent_evals.report.verdict_json import render_json

    clock = time.process_time
    gc.disable()  # as the command does (see cli.compare.run_command)
    t0 = clock()
    cand_data = read_data(cand)
    t1 = clock()
    cand_summary = summarise(cand_data, str(cand))
    t2 = clock()
    base_data = read_data(base)
    t3 = clock()
    base_summary = summarise(base_data, str(base))
    t4 = clock()
    policy = resolve_policy(repo_config=None, suite_blocks={}, overrides={})
    comparison = compare_documents(base_summary, cand_summary, policy, case_detail="listed")
    t5 = clock()
    render_json(comparison)
    render_terminal(comparison)
    t6 = clock()
    gc.enable()
    return (
        f"candidate: decode {t1 - t0:.2f} s, check + summarise {t2 - t1:.2f} s; "
        f"baseline: decode {t3 - t2:.2f} s, check + summarise {t4 - t3:.2f} s; "
        f"compare {t5 - t4:.2f} s; render (json + terminal) {t6 - t5:.2f} s (CPU)"
    )


def reference_seconds() -> float:
    """CPU time of a fixed pure-Python loop (10,000,000 integer additions), best of 3: how fast this
    machine runs Python today."""
    best = math.inf
    for _ in range(3):
        started = time.process_time()
        total = 0
        for i in range(10_000_000):
            total += i
        best = min(best, time.process_time() - started)
    return best


def core_python(folder: Path) -> Path:
    """The Python of a core-only virtual environment in ``folder`` (created with ``pip install -e .``
    of this checkout when it has none yet)."""
    python = folder / "bin" / "python"
    if not python.exists():
        print(f"creating a core-only environment in {folder} (pip install -e .)", flush=True)
        venv.create(folder, with_pip=True)
        repo = Path(__file__).resolve().parents[2]
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "-e", str(repo)], check=True)
    return python


def main() -> None:
    """Generate the records, run the CLI once, print time, peak memory and sizes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3, help="Time the command this many times.")
    parser.add_argument("--generate-only", type=Path, help=argparse.SUPPRESS)
    parser.add_argument(
        "--keep", type=Path, help="Write the records here and keep them (reused when already there)."
    )
    parser.add_argument(
        "--core-venv",
        type=Path,
        help="Measure the core install: a venv with only `pip install -e .` here (created when missing).",
    )
    args = parser.parse_args()
    if args.core_venv is not None:
        python = core_python(args.core_venv)
        again = [str(python), __file__, "--cases", str(args.cases), "--trials", str(args.trials)]
        again += ["--repeat", str(args.repeat)] + (["--keep", str(args.keep)] if args.keep else [])
        os.execv(str(python), again)

    if args.generate_only is not None:
        write(args.generate_only / "baseline.json", make_record(args.cases, args.trials, 11, drift=0.0))
        write(args.generate_only / "candidate.json", make_record(args.cases, args.trials, 12, drift=0.02))
        return
    folder = args.keep or Path(tempfile.mkdtemp(prefix="agent-evals-perf-"))
    folder.mkdir(parents=True, exist_ok=True)
    base, cand, verdict = folder / "baseline.json", folder / "candidate.json", folder / "verdict.json"
    if args.keep is not None and base.exists() and cand.exists():
        print(f"reusing the records in {folder}")
    else:
        # generated in a child process, so this one stays small and its own memory is not measured
        started = time.perf_counter()
        generator = [sys.executable, __file__, "--cases", str(args.cases), "--trials", str(args.trials)]
        subprocess.run([*generator, "--generate-only", str(folder)], check=True)
        took = time.perf_counter() - started
        print(f"generated 2 records of {args.cases:,} cases x {args.trials} trials in {took:.1f} s")
    print(f"record size: {base.stat().st_size / 1e6:.1f} MB each")

    import importlib.util

    core_only = importlib.util.find_spec("msgspec") is None
    exe = Path(sys.executable).parent / "agent-evals"
    command = [str(exe), "compare", str(base), str(cand), "--json", str(verdict)]
    times, cpu, peak_kib = [], [], 0
    out, err = folder / "stdout.txt", folder / "stderr.txt"
    for _ in range(args.repeat):
        started = time.perf_counter()
        with out.open("w") as stdout, err.open("w") as stderr:
            proc = subprocess.Popen(command, stdout=stdout, stderr=stderr)
            # wait4 gives this child's own peak RSS (RUSAGE_CHILDREN would mix in every child's)
            _, status, usage = os.wait4(proc.pid, 0)
        times.append(time.perf_counter() - started)
        proc.returncode = os.waitstatus_to_exitcode(status)
        peak_kib = max(peak_kib, usage.ru_maxrss)
        cpu.append(usage.ru_utime + usage.ru_stime)
        if proc.returncode not in (0, 1):
            print(err.read_text(), file=sys.stderr)
            sys.exit(f"agent-evals compare failed with exit code {proc.returncode}")
    result = json.loads(verdict.read_text(encoding="utf-8"))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"agent-evals compare: CPU time (user + system) {statistics.median(cpu):.2f} s, median of "
        f"{len(cpu)} ({', '.join(f'{c:.2f}' for c in cpu)}) (target < 3 s core-only); "
        f"wall {min(times):.2f} s best; exit code {proc.returncode}; load average {load} "
        f"on {os.cpu_count()} CPUs"
    )
    print(f"peak memory (max RSS of the compare process): {peak_kib / 1024:.0f} MiB")
    print(f"verdict: {result['verdict']}; terminal output {len(out.read_text()):,} chars")
    if core_only:
        decoder = "pydantic-core into plain objects (core install: the target's figure), then the walk"
    else:
        decoder = "msgspec into plain objects (the 'speed' extra: not the core-only figure), then the walk"
    print(f"JSON decoder: {decoder}")
    print(f"in-process split: {time_steps(base, cand)}")
    reference = reference_seconds()
    print(
        f"machine reference: a 10,000,000-addition Python loop takes {reference:.2f} s CPU here; "
        f"compare / reference = {statistics.median(cpu) / reference:.2f}"
    )
    if args.keep is None:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
