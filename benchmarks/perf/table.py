"""Measure the speed and memory targets in one run and print one table (`make perf`).

    python benchmarks/perf/table.py [--quick] [--rounds N] [--cache DIR] [--ref REF] [--compare-ref REF]
                                    [--pin CPU]

Every figure is a whole fresh process (or process tree), run from cached bytecode as an installed
package is. The script builds what it measures under --cache (default .perf-cache/, git-ignored), once:
a core install (`pip install -e .`, no extras) of this working tree, one of the speed reference --ref
(default d4e6c0b), one of --compare-ref (default f18b4d8) and a venv with ezvals 0.2.0, the peer.

- Item 1: 10,000 trivial code-first evals (`@eval(cases=...)`, `run --quiet --output`): CPU of this
  tree / CPU of --ref. Target <= 1.1x.
- Item 2: the same job as a YAML benchmark, with a sync and with an async function agent: CPU / the
  code-first CPU. Target <= 1.5x.
- Item 3: ezvals 0.2.0 (`ezvals run FILE --no-save -c 8`) on the same job: wall time of its whole
  process tree (its worker outlives the host: the script is a child subreaper and waits for every
  process the run left) / ours, timed the same way. Target >= 6x (goal 8x).
- Item 5: peak RSS of `run` on 100,000 trivial evals (<= 250 MiB); `agent-evals --help` wall time,
  median of 10 after a first run (<= 100 ms); `compare` on two 100,000-case x 3-trial records, CPU of
  this tree / CPU of --compare-ref (no slower: <= 1.0x).

Pairs run interleaved (A B A B ...), each a median of --rounds (default 5) after one warm-up run; a
ratio is the median of the per-round ratios. CPU is user + system time from RUSAGE_CHILDREN deltas.
--quick runs fewer cases and rounds (a smoke run: under 2 minutes once the venvs exist).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

CODE_FILE = """from agent_evals import eval, EvalContext

@eval(cases=[{{"input": str(i)}} for i in range({n})])
def test_trivial(ctx: EvalContext):
    ctx.output = ctx.input
    assert ctx.output == ctx.input
"""

EZVALS_FILE = CODE_FILE.replace("agent_evals", "ezvals")
"""ezvals 0.2.0's own `@eval(cases=...)` and `EvalContext`: the same job, word for word."""

SYNC_AGENT = "def echo(prompt: str) -> str:\n    return prompt\n"
ASYNC_AGENT = "async def echo(prompt: str) -> str:\n    return prompt\n"


def yaml_job(n: int, agent: str) -> str:
    """The job as a YAML benchmark: one capability of ``n`` scenarios, each an exact-output check."""
    lines = [f"benchmark: trivial\nagent: {agent}:echo\ncapabilities:\n  - name: echo\n    scenarios:"]
    lines += [
        f'      - id: {i}\n        prompt: "{i}"\n        success: {{output: {{equals: "{i}"}}}}'
        for i in range(n)
    ]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Target:
    """One line of the table: what is measured, the better direction, and its bound."""

    key: str
    item: str
    what: str
    unit: str  # "x", "MiB" or "ms"
    at_most: bool  # True: the figure must not exceed the bound; False: it must reach it
    bound: float
    goal: str = ""


TARGETS = (
    Target("code_vs_ref", "1", "{jobs} code-first evals, CPU: this tree / {ref}", "x", True, 1.1),
    Target("yaml_sync_vs_code", "2", "the job as YAML, sync agent, CPU / code-first", "x", True, 1.5),
    Target("yaml_async_vs_code", "2", "the job as YAML, async agent, CPU / code-first", "x", True, 1.5),
    Target(
        "ezvals_vs_ours",
        "3",
        "ezvals 0.2.0 -c 8 / ours, wall of the process tree",
        "x",
        False,
        6.0,
        "goal 8x",
    ),
    Target("run_peak_mib", "5", "run on {big} trivial evals, peak RSS", "MiB", True, 250.0),
    Target("help_ms", "5", "agent-evals --help, wall, median of {help_runs} after one", "ms", True, 100.0),
    Target(
        "compare_vs_ref",
        "5",
        "compare 2 x {compare_cases} cases x 3 trials, CPU: tree / {compare_ref}",
        "x",
        True,
        1.0,
    ),
)


def verdict(target: Target, value: float | None) -> str:
    """'ok' when ``value`` meets the target, 'OVER' / 'UNDER' when it misses, 'not measured' without one."""
    if value is None:
        return "not measured"
    if target.at_most:
        return "ok" if value <= target.bound else "OVER"
    return "ok" if value >= target.bound else "UNDER"


def _figure(value: float, unit: str) -> str:
    return f"{value:.3f}x" if unit == "x" else f"{value:.0f} {unit}"


def build_table(figures: dict[str, list[float]], names: dict[str, str]) -> list[list[str]]:
    """Rows (item, what, median, spread, target, verdict) for every target, from each target's measured
    values (one per round, or one in all); the verdict is the median's. ``names`` fills the refs in."""
    rows = []
    for target in TARGETS:
        values = figures.get(target.key) or []
        value = statistics.median(values) if values else None
        measured = "-" if value is None else _figure(value, target.unit)
        spread = ""
        if len(values) > 1:
            spread = f"{_figure(min(values), target.unit)} - {_figure(max(values), target.unit)}"
        bound = ("<= " if target.at_most else ">= ") + _figure(target.bound, target.unit)
        if target.goal:
            bound += f" ({target.goal})"
        what = target.what.format(**names)
        row = [target.item, what, measured, spread, bound, verdict(target, value)]
        rows.append(row)
    return rows


def render(rows: list[list[str]]) -> str:
    """The rows as a Markdown table, as the README's performance section quotes it."""
    head = ["item", "what", "median", "min - max", "target", "verdict"]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join([":--"] * len(head)) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


@dataclass(frozen=True)
class Sample:
    """One whole process tree: wall and CPU seconds, the largest single process's peak RSS in KiB."""

    wall: float
    cpu: float
    peak_kib: int


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""Children run from cached bytecode, as an installed package does."""


SUBREAPER = [False]
"""Whether this process is a child subreaper (then waiting for its children covers every orphan)."""


def _become_subreaper() -> bool:
    """Orphans of our children are re-parented to this process (Linux), so we can wait for them."""
    try:
        return bool(ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def _session_alive(sid: int) -> bool:
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            return True
    return False


def run_tree(cmd: list[str], cwd: Path, ok: tuple[int, ...] = (0,)) -> Sample:
    """Run ``cmd`` in a new session; time it until every process it started has ended."""
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out, err = cwd / "stdout.txt", cwd / "stderr.txt"
    started = time.perf_counter()
    with out.open("wb") as stdout, err.open("wb") as stderr:
        proc = subprocess.Popen(cmd, cwd=cwd, env=ENV, stdout=stdout, stderr=stderr, start_new_session=True)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        peak = usage.ru_maxrss
        while True:  # orphans re-parented to us (the subreaper): ezvals' worker outlives its host
            try:
                peak = max(peak, os.wait4(-1, 0)[2].ru_maxrss)
            except ChildProcessError:
                break
        while not SUBREAPER[0] and _session_alive(proc.pid):  # no subreaper: wait for the session to end
            time.sleep(0.005)
    wall = time.perf_counter() - started
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if code not in ok:
        tail = err.read_text(errors="replace")[-3000:]
        sys.exit(f"{' '.join(cmd)} failed with exit code {code} in {cwd}:\n{tail}")
    cpu = cpu_after.ru_utime + cpu_after.ru_stime - cpu_before.ru_utime - cpu_before.ru_stime
    return Sample(wall, cpu, peak)


def interleaved(
    commands: dict[str, list[str]], folders: dict[str, Path], rounds: int
) -> dict[str, list[Sample]]:
    """One warm-up run of each command, then ``rounds`` rounds in which they take turns."""
    for name, cmd in commands.items():
        run_tree(cmd, folders[name], OK_CODES.get(name, (0,)))
    samples: dict[str, list[Sample]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, cmd in commands.items():
            samples[name].append(run_tree(cmd, folders[name], OK_CODES.get(name, (0,))))
    return samples


OK_CODES = {"compare tree": (0, 1), "compare ref": (0, 1)}
"""`compare` exits 1 when the verdict fails, which the synthetic records may make it do."""


def paired_ratios(a: list[Sample], b: list[Sample], field: str) -> list[float]:
    """a's figure / b's figure, round by round (pairing keeps a drift in the machine's speed out)."""
    return [getattr(x, field) / getattr(y, field) for x, y in zip(a, b, strict=True)]


def _median(samples: list[Sample], field: str) -> float:
    return float(statistics.median(getattr(s, field) for s in samples))


def machine() -> str:
    """Where and when the figures were taken: cores, CPU model, memory, Python, load average, date."""
    model, mem = platform.processor() or "unknown CPU", ""
    try:
        model = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kib / 1024 / 1024:.0f} GiB"
    except (OSError, StopIteration, ValueError, IndexError):
        pass
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return (
        f"machine: {os.cpu_count()} cores, {model}{mem}; Python {platform.python_version()} "
        f"({platform.system()}); load average {load}; {when}"
    )


def _write_jobs(root: Path, n: int) -> dict[str, Path]:
    """One folder per command (each keeps its own output), with the job's files."""
    files = {
        "code tree": ("eval_trivial.py", CODE_FILE.format(n=n)),
        "code ref": ("eval_trivial.py", CODE_FILE.format(n=n)),
        "yaml sync": ("trivial.yaml", yaml_job(n, "trivial_agent")),
        "yaml async": ("trivial.yaml", yaml_job(n, "trivial_agent")),
        "ezvals": ("eval_trivial.py", EZVALS_FILE.format(n=n)),
    }
    folders = {}
    for name, (file, text) in files.items():
        folder = root / name.replace(" ", "-")
        folder.mkdir()
        (folder / file).write_text(text, encoding="utf-8")
        folders[name] = folder
    (folders["yaml sync"] / "trivial_agent.py").write_text(SYNC_AGENT, encoding="utf-8")
    (folders["yaml async"] / "trivial_agent.py").write_text(ASYNC_AGENT, encoding="utf-8")
    return folders


def measure_jobs(
    tree: Path, ref: Path, ezvals: Path, n: int, rounds: int, root: Path
) -> dict[str, list[float]]:
    """Items 1-3: the trivial job as code-first evals (tree and ref), as YAML (sync, async), in ezvals."""
    folders = _write_jobs(root, n)
    ours = str(tree.with_name("agent-evals"))
    commands = {
        "code tree": [ours, "run", "eval_trivial.py", "--quiet", "--output", "run.json"],
        "code ref": [
            str(ref.with_name("agent-evals")),
            "run",
            "eval_trivial.py",
            "--quiet",
            "--output",
            "run.json",
        ],
        "yaml sync": [ours, "run", "trivial.yaml", "--quiet", "--output", "run.json"],
        "yaml async": [ours, "run", "trivial.yaml", "--quiet", "--output", "run.json"],
        "ezvals": [str(ezvals.with_name("ezvals")), "run", "eval_trivial.py", "--no-save", "-c", "8"],
    }
    samples = interleaved(commands, folders, rounds)
    for name, runs in samples.items():
        print(
            f"  {name:<11} {n:,} cases: CPU median {_median(runs, 'cpu'):6.2f} s, "
            f"wall median {_median(runs, 'wall'):6.2f} s",
            file=sys.stderr,
        )
    code = samples["code tree"]
    return {
        "code_vs_ref": paired_ratios(code, samples["code ref"], "cpu"),
        "yaml_sync_vs_code": paired_ratios(samples["yaml sync"], code, "cpu"),
        "yaml_async_vs_code": paired_ratios(samples["yaml async"], code, "cpu"),
        "ezvals_vs_ours": paired_ratios(samples["ezvals"], code, "wall"),
    }


def measure_memory_and_help(tree: Path, n: int, help_runs: int, root: Path) -> dict[str, list[float]]:
    """Item 5: peak RSS of `run` on ``n`` trivial evals; `--help` wall time, median after one run."""
    folder = root / "memory"
    folder.mkdir()
    (folder / "eval_trivial.py").write_text(CODE_FILE.format(n=n), encoding="utf-8")
    cli = str(tree.with_name("agent-evals"))
    peak = (
        run_tree([cli, "run", "eval_trivial.py", "--quiet", "--output", "run.json"], folder).peak_kib / 1024
    )
    run_tree([cli, "--help"], folder)
    runs = [run_tree([cli, "--help"], folder) for _ in range(help_runs)]
    helps = [run.wall * 1000 for run in runs]
    print(
        f"  run on {n:,} evals: peak RSS {peak:.0f} MiB; --help wall median {statistics.median(helps):.0f} ms, "
        f"CPU median {_median(runs, 'cpu') * 1000:.0f} ms (a busy machine stretches the wall, not the CPU)",
        file=sys.stderr,
    )
    return {"run_peak_mib": [peak], "help_ms": helps}


def measure_compare(
    tree: Path, ref: Path, n: int, rounds: int, cache: Path, root: Path
) -> dict[str, list[float]]:
    """Item 5: `compare` on two records of ``n`` cases x 3 trials (made once by compare_speed.py's generator)."""
    records = cache / f"records-{n}x3"
    if not (records / "candidate.json").exists():
        records.mkdir(parents=True, exist_ok=True)
        generator = Path(__file__).with_name("compare_speed.py")
        args = [
            str(tree),
            str(generator),
            "--cases",
            str(n),
            "--trials",
            "3",
            "--generate-only",
            str(records),
        ]
        subprocess.run(args, check=True)
    folders = {name: root / name.replace(" ", "-") for name in ("compare tree", "compare ref")}
    commands = {}
    for (name, folder), python in zip(folders.items(), (tree, ref), strict=True):
        folder.mkdir()
        commands[name] = [str(python.with_name("agent-evals")), "compare"]
        commands[name] += [
            str(records / "baseline.json"),
            str(records / "candidate.json"),
            "--json",
            "verdict.json",
        ]
    samples = interleaved(commands, folders, rounds)
    for name, runs in samples.items():
        print(f"  {name:<12} {n:,} cases x 3: CPU median {_median(runs, 'cpu'):6.2f} s", file=sys.stderr)
    return {"compare_vs_ref": paired_ratios(samples["compare tree"], samples["compare ref"], "cpu")}


def main() -> None:
    """Build the environments, take every measurement, print the machine line and the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run: fewer cases and rounds")
    parser.add_argument("--rounds", type=int, help="interleaved rounds per pair (default 5; --quick 3)")
    parser.add_argument("--cache", type=Path, default=Path(__file__).resolve().parents[2] / ".perf-cache")
    parser.add_argument("--ref", default="d4e6c0b", help="speed reference for item 1 (default d4e6c0b)")
    parser.add_argument("--compare-ref", default="f18b4d8", help="reference for compare (default f18b4d8)")
    parser.add_argument("--pin", type=int, metavar="CPU", help="run everything on this one processor")
    args = parser.parse_args()
    if args.pin is not None:
        os.sched_setaffinity(0, {args.pin})  # the children inherit it
    sys.path.insert(0, str(Path(__file__).parent))
    import perf_envs

    rounds = args.rounds or (3 if args.quick else 5)
    jobs, big, compare_cases, help_runs = (
        (2_000, 20_000, 10_000, 5) if args.quick else (10_000, 100_000, 100_000, 10)
    )
    cache = args.cache.resolve()
    tree = perf_envs.tree_python(cache)
    ref_commit, ref = perf_envs.ref_python(args.ref, cache)
    compare_commit, compare_ref = perf_envs.ref_python(args.compare_ref, cache)
    ezvals = perf_envs.ezvals_python(cache)
    SUBREAPER[0] = _become_subreaper()
    if not SUBREAPER[0]:
        print(
            "(not a child subreaper here: waiting for each run's session to empty instead)", file=sys.stderr
        )
    header = machine()
    with tempfile.TemporaryDirectory(prefix="agent-evals-perf-") as tmp:
        root = Path(tmp)
        figures = measure_jobs(tree, ref, ezvals, jobs, rounds, root)
        figures |= measure_memory_and_help(tree, big, help_runs, root)
        figures |= measure_compare(tree, compare_ref, compare_cases, rounds, cache, root)
    names = {"ref": ref_commit[:7], "compare_ref": compare_commit[:7], "help_runs": str(help_runs)}
    names |= {"jobs": f"{jobs:,}", "big": f"{big:,}", "compare_cases": f"{compare_cases:,}"}
    print(header + (f"; pinned to CPU {args.pin}" if args.pin is not None else ""))
    print(f"this tree: {perf_envs.tree_version()}; references: {ref_commit[:12]}, {compare_commit[:12]}")
    print(
        f"end load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}; medians of {rounds} interleaved rounds"
    )
    if args.quick:
        print("QUICK RUN (a smoke run: the targets are for the full sizes)")
    print(render(build_table(figures, names)))


if __name__ == "__main__":
    main()
