"""`validate` and `list`: load every file a run would load and list its cases, running nothing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_evals.errors import AgentEvalsError, BenchmarkFileError, UsageError
from agent_evals.evals.discovery import collect
from agent_evals.evals.spec import EvalCaseSpec
from agent_evals.evals.suite_ids import suite_id
from agent_evals.run.plan import default_paths, display_path, eval_file_specs, nothing_selected, select_specs


@dataclass
class ListedCase:
    """One case a run would execute."""

    id: str
    """The case id in the run record."""
    dataset: str | None
    """Its dataset (evals) or capability (benchmarks): the record's group."""
    labels: list[str]
    """Its labels (evals) or ``key=value`` dimensions (benchmarks)."""
    trials: int
    """How many trials it runs."""
    file: str
    """The declaring file."""
    line: int | None
    """The declaring line."""


@dataclass
class ListedSuite:
    """One eval file or benchmark and the cases of it a run would execute."""

    id: str
    """The suite id in the run record."""
    kind: str
    """``evals`` or ``benchmark``."""
    source: str
    """The file."""
    cases: list[ListedCase] = field(default_factory=list)
    """The selected cases."""
    agent: str | None = None
    """The agent a benchmark runs (``module:attr``), None for eval files."""


@dataclass
class Inventory:
    """What ``validate`` found: the suites, and every problem (file by file)."""

    suites: list[ListedSuite] = field(default_factory=list)
    """The files that loaded."""
    problems: list[str] = field(default_factory=list)
    """One located message per file that a run would refuse (a file's further problems on lines below)."""
    further_problems: int = 0
    """Problems listed below the first one of their file, over all files."""
    skipped: list[str] = field(default_factory=list)
    """YAML files found in folders that do not parse and do not look like benchmarks, with why."""

    @property
    def cases(self) -> int:
        """Selected cases over every suite."""
        return sum(len(s.cases) for s in self.suites)

    @property
    def trials(self) -> int:
        """Trials a run would execute."""
        return sum(c.trials for s in self.suites for c in s.cases)

    def to_json(self) -> dict[str, Any]:
        """The inventory as plain JSON values (``agent-evals list --json``)."""
        return {
            "suites": [
                {
                    "id": s.id,
                    "kind": s.kind,
                    "source": s.source,
                    "agent": s.agent,
                    "cases": [vars(c) for c in s.cases],
                }
                for s in self.suites
            ],
            "cases": self.cases,
            "trials": self.trials,
            "problems": list(self.problems),
            "skipped": list(self.skipped),
        }


def _eval_suite(sid: str, label: str, specs: list[EvalCaseSpec]) -> ListedSuite:
    cases = [
        ListedCase(
            id=f"{sid}::{s.function_id}",
            dataset=s.dataset,
            labels=list(s.labels),
            trials=s.trials,
            file=label,
            line=s.line,
        )
        for s in specs
    ]
    return ListedSuite(id=sid, kind="evals", source=label, cases=cases)


def _benchmark_suite(
    path: Path, *, agent: str | None, check_agent: bool, trials: int | None, case_filter: str | None
) -> ListedSuite:
    from agent_evals.benchmark.runner import prepare_benchmark, select_jobs

    if check_agent:
        bench, _, jobs = prepare_benchmark(path, agent, case_filter)
    else:
        from agent_evals.benchmark.loader import load_benchmark

        bench = load_benchmark(path)
        jobs = select_jobs(bench, case_filter)
    k = trials or bench.execution.runs_per_scenario
    cases = [
        ListedCase(
            id=job.case.id,
            dataset=job.case.capability,
            labels=[f"{key}={value}" for key, value in sorted(job.case.dimensions.items())],
            trials=k,
            file=job.case.file or bench.path,
            line=job.case.line,
        )
        for job in jobs
    ]
    return ListedSuite(
        id=bench.benchmark, kind="benchmark", source=bench.path, cases=cases, agent=agent or bench.agent
    )


def inspect_paths(
    paths: Sequence[str | Path],
    *,
    cwd: Path,
    agent: str | None = None,
    check_agents: bool = True,
    trials: int | None = None,
    case_filter: str | None = None,
    datasets: Sequence[str] = (),
    labels: Sequence[str] = (),
) -> Inventory:
    """Load what ``agent-evals run`` with the same arguments would load, file by file, running nothing.

    Every file is tried, so one bad file does not hide the next; each refusal becomes a problem.
    ``check_agents`` also imports (and creates) each benchmark's agent, as a run does first.
    """
    inventory = Inventory()
    try:
        searched = [Path(p) for p in paths] if paths else default_paths(cwd)
        found = collect(searched)
    except UsageError as exc:
        inventory.problems.append(str(exc))
        return inventory
    inventory.problems += [str(exc) for exc in found.broken]
    inventory.skipped += found.skipped
    available: list[EvalCaseSpec] = []
    for file in found.eval_files:
        try:
            label, specs = eval_file_specs(file, cwd, found.eval_files)
        except AgentEvalsError as exc:
            inventory.problems.append(str(exc))
            continue
        available += specs
        sid = suite_id(file, cwd)
        selected = select_specs(
            specs, sid, trials=trials, case_filter=case_filter, datasets=datasets, labels=labels
        )
        if selected:
            inventory.suites.append(_eval_suite(sid, label, selected))
    for yaml_file in found.benchmark_files:
        try:
            suite = _benchmark_suite(
                yaml_file, agent=agent, check_agent=check_agents, trials=trials, case_filter=case_filter
            )
        except AgentEvalsError as exc:
            inventory.problems.append(str(exc))
            inventory.further_problems += len(exc.further) if isinstance(exc, BenchmarkFileError) else 0
            continue
        except Exception as exc:  # an agent constructor or a scorer that breaks: still this file's fault
            inventory.problems.append(f"{display_path(yaml_file, cwd)}: {type(exc).__name__}: {exc}")
            continue
        inventory.suites.append(suite)
    if not inventory.problems and not found.benchmark_files and not inventory.suites:
        problem = nothing_selected(
            searched, available, case_filter=case_filter, datasets=datasets, labels=labels
        )
        inventory.problems.append(str(problem))
    return inventory
