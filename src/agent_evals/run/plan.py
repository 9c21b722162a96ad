"""What a run would execute: the eval files and benchmarks under the paths, and the selected cases."""

from __future__ import annotations

import fnmatch
import sys
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent_evals.errors import EvalFileError, UsageError
from agent_evals.evals.discovery import Collected, collect, eval_bindings, import_eval_file
from agent_evals.evals.spec import EvalCaseSpec
from agent_evals.evals.suite_ids import suite_id

DEFAULT_DIRS = ("benchmarks", "evals")
"""Searched, when they exist, when a command gets no path (``agent-evals init`` writes both)."""


def display_path(path: Path, cwd: Path) -> str:
    """``path`` relative to ``cwd`` in POSIX form when it is below it, else absolute."""
    resolved = path.resolve()
    try:
        return resolved.relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return resolved.as_posix()


def match_case_id(case_id: str, pattern: str) -> bool:
    """``--filter``: a glob over case ids (``*``, ``?``; brackets are literal); no wildcard = substring."""
    if "*" not in pattern and "?" not in pattern:
        return pattern in case_id
    escaped = pattern.replace("[", "\0").replace("]", "[]]").replace("\0", "[[]")
    return fnmatch.fnmatchcase(case_id, escaped)


def default_paths(cwd: Path) -> list[Path]:
    """The folders searched without a path; UsageError when there is none."""
    found = [cwd / name for name in DEFAULT_DIRS if (cwd / name).is_dir()]
    if not found:
        raise UsageError(
            f"no path given and no {'/ or '.join(DEFAULT_DIRS)}/ folder here; pass eval files or "
            "benchmark YAML (or scaffold a project with `agent-evals init`)"
        )
    return found


@dataclass
class EvalSuitePlan:
    """One eval file's selected cases."""

    label: str
    """The file as shown (relative to the working directory)."""
    specs: list[EvalCaseSpec]
    """The selected cases, trials already overridden."""
    suite_id: str
    """The suite id: the file relative to its project root (``evals.suite_ids``)."""


@dataclass
class RunPlan:
    """The eval suites and benchmark files a run executes."""

    paths: list[Path]
    """The paths searched (the default folders when none was given)."""
    eval_suites: list[EvalSuitePlan] = field(default_factory=list)
    """Eval files with at least one selected case."""
    benchmark_files: list[Path] = field(default_factory=list)
    """Benchmark YAML files (selected by ``--filter`` only, when they run)."""


def _select(
    specs: list[EvalCaseSpec],
    label: str,
    *,
    case_filter: str | None,
    datasets: Sequence[str],
    labels: Sequence[str],
) -> list[EvalCaseSpec]:
    out = []
    for spec in specs:
        if datasets and spec.dataset not in datasets:
            continue
        if labels and not set(labels) & set(spec.labels):
            continue
        if case_filter and not match_case_id(f"{label}::{spec.function_id}", case_filter):
            continue
        out.append(spec)
    return out


def _selection(case_filter: str | None, datasets: Sequence[str], labels: Sequence[str]) -> str:
    parts = [f"--filter {case_filter!r}"] if case_filter else []
    parts += [f"--dataset {d!r}" for d in datasets] + [f"--label {lab!r}" for lab in labels]
    return " ".join(parts)


def _menu(specs: Sequence[EvalCaseSpec]) -> str:
    """What the selection could have matched: datasets, labels and a few case ids."""
    datasets = sorted({s.dataset for s in specs if s.dataset})
    labels = sorted({lab for s in specs for lab in s.labels})
    ids = [s.function_id for s in specs[:5]]
    more = f" (+{len(specs) - 5} more)" if len(specs) > 5 else ""
    return (
        f"found {len(specs)} eval(s): datasets {', '.join(datasets) or '-'}; labels {', '.join(labels) or 'none'}; "
        f"ids such as {', '.join(ids)}{more}"
    )


def eval_file_specs(
    file: Path, cwd: Path, collected: Collection[Path] | None = None
) -> tuple[str, list[EvalCaseSpec]]:
    """Import one eval file and resolve its cases: its label and every case it declares.

    ``collected``: every eval file of the run (an eval imported from one of them is left to it).
    Raises ``EvalFileError`` when the file fails to import or declares bad options.
    """
    label = display_path(file, cwd)
    module = import_eval_file(file)
    specs: list[EvalCaseSpec] = []
    try:
        for fn, line in eval_bindings(module, collected=collected):
            for spec in fn.specs(file_label=label):
                spec.line = line  # where this file binds it (a factory's eval: not the factory's line)
                specs.append(spec)
    except (TypeError, ValueError) as exc:
        raise EvalFileError(f"{label}: {exc}") from exc
    seen: dict[str, EvalCaseSpec] = {}
    for spec in specs:  # the case id is what the gate pairs cases by: two evals must not share one
        first = seen.setdefault(spec.function_id, spec)
        if first is not spec:
            raise EvalFileError(
                f"{label}: two evals have the case id {spec.function_id!r} (declared at lines {first.line} "
                f"and {spec.line}); give each @eval function its own name (a factory: set each one's __name__)"
            )
    return label, specs


def select_specs(
    specs: list[EvalCaseSpec],
    suite: str,
    *,
    trials: int | None = None,
    case_filter: str | None = None,
    datasets: Sequence[str] = (),
    labels: Sequence[str] = (),
) -> list[EvalCaseSpec]:
    """The cases a run keeps (``--filter`` on the case ids of suite id ``suite``, ``--dataset``,
    ``--label``), with ``--trials`` applied."""
    selected = _select(specs, suite, case_filter=case_filter, datasets=datasets, labels=labels)
    if trials is not None:
        for spec in selected:
            spec.trials = trials
    return selected


def nothing_selected(
    searched: Sequence[Path],
    available: Sequence[EvalCaseSpec],
    *,
    case_filter: str | None,
    datasets: Sequence[str],
    labels: Sequence[str],
) -> UsageError:
    """The error of a run that found no eval (or whose selection matched none) and no benchmark."""
    where = ", ".join(str(p) for p in searched)
    if available:  # evals exist, the selection matched none of them: say what there is
        return UsageError(
            f"no evals in {where} match {_selection(case_filter, datasets, labels)}; {_menu(available)}"
        )
    return UsageError(f"no evals found in {where} (eval files are eval_*.py, *_eval.py or evals.py)")


def refuse_unparsed(found: Collected) -> None:
    """Say each YAML file that was skipped because it does not parse (stderr), and refuse (UsageError,
    exit 2) the ones that look like benchmarks: a benchmark that cannot be read must not drop out of the
    run, where its suite would then count as removed."""
    for note in found.skipped:
        print(f"skipped: {note}", file=sys.stderr)
    if len(found.broken) == 1:
        raise found.broken[0]
    if found.broken:
        raise UsageError(
            f"{len(found.broken)} benchmark files cannot be read or parsed:\n"
            + "\n".join(f"  {exc}" for exc in found.broken)
        )


def plan_run(
    paths: Sequence[str | Path],
    *,
    cwd: Path,
    trials: int | None = None,
    case_filter: str | None = None,
    datasets: Sequence[str] = (),
    labels: Sequence[str] = (),
    skip: Collection[Path] = (),
) -> RunPlan:
    """Collect the paths, import the eval files and select their cases (benchmarks are not loaded).

    Files in ``skip`` (resolved paths) are left out before anything is imported; when that leaves
    nothing, the plan is empty rather than an error (every suite was reused).

    Raises ``EvalFileError`` for an eval file that fails to import or declares bad options, and
    ``UsageError`` for a bad path or a selection that matches nothing.
    """
    searched = [Path(p) for p in paths] if paths else default_paths(cwd)
    found = collect(searched)
    refuse_unparsed(found)
    kept = [f for f in found.benchmark_files if f.resolve() not in skip]
    plan = RunPlan(paths=searched, benchmark_files=kept)
    eval_files = [f for f in found.eval_files if f.resolve() not in skip]
    if skip and not eval_files and not kept and (found.eval_files or found.benchmark_files):
        return plan
    available: list[EvalCaseSpec] = []  # every eval found, to explain an empty selection
    for file in eval_files:
        label, specs = eval_file_specs(file, cwd, found.eval_files)
        sid = suite_id(file, cwd)
        available += specs
        selected = select_specs(
            specs, sid, trials=trials, case_filter=case_filter, datasets=datasets, labels=labels
        )
        if selected:
            plan.eval_suites.append(EvalSuitePlan(label, selected, sid))
    if not plan.eval_suites and not kept:
        raise nothing_selected(searched, available, case_filter=case_filter, datasets=datasets, labels=labels)
    return plan
