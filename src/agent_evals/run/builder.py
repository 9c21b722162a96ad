"""The run builder: each case that finishes is written to the streamed record and counted, then let go."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_evals.core.redact import Redactor
from agent_evals.cost.budget import note_written_case
from agent_evals.errors import UsageError
from agent_evals.evals.case_record import case_record
from agent_evals.evals.definition import spec_definitions
from agent_evals.evals.execution import evaluator_name
from agent_evals.evals.result import EvalCaseResult
from agent_evals.evals.spec import EvalCaseSpec
from agent_evals.record.case_stats import trial_outcome
from agent_evals.record.fingerprint import fingerprint_of
from agent_evals.record.read import decode_json
from agent_evals.record.stream import RecordWriter, partial_path
from agent_evals.record.streamed_suite import StreamedSuite
from agent_evals.record.summary import RunSummary
from agent_evals.record.text import plain_bytes
from agent_evals.report.run_digest import RunDigest
from agent_evals.run.facts import git_info, run_block, utc_now

if TYPE_CHECKING:
    from agent_evals.benchmark.result import BenchmarkResult
    from agent_evals.cost.budget import Budget
    from agent_evals.record.model import Case, RunRecord, Suite
    from agent_evals.run.inputs import Tracker
    from agent_evals.run.shard import Slicer


def keep_definition(redacted: str, definition: str | None) -> str:
    """A redacted case (JSON text) with its definition digest as computed: a short secret value
    that happens to occur in the hex digest would otherwise mask part of it."""
    if definition is None or f'"definition":"{definition}"' in redacted:
        return redacted
    case = json.loads(redacted)
    case["definition"] = definition
    return json.dumps(case, ensure_ascii=False, separators=(",", ":"))


class _EvalSuitePlan:
    """One eval file's selected cases and where their results land."""

    def __init__(self, suite_id: str, label: str, specs: list[EvalCaseSpec], start: int, index: int) -> None:
        self.suite_id = suite_id
        """Relative to the project root (``evals.suite_ids``): the same from any working directory."""
        self.label = label
        """The file as shown to the user (relative to the working directory when below it)."""
        self.specs = specs
        self.start = start
        self.index = index
        """The suite's number in the record."""
        self.stem = Path(label).stem
        """The group of its cases that name no dataset."""
        self.definitions = spec_definitions(specs)
        """Each case's definition digest, worked out together before the trials run (one loop over
        the same code costs about half of what one call per finished case does)."""


class _Bench:
    """A benchmark that is running (or ran): which of its cases reached the record."""

    def __init__(self, result: BenchmarkResult, index: int) -> None:
        self.result = result
        self.index = index
        self.written = bytearray(len(result.cases))


class RunBuilder:
    """Follows a run as it executes: every case is written to the record file the moment its last
    trial finishes (``record.stream``), counted for the summary and the run's own verdict, and
    not kept. An interrupted or killed run leaves the record of what finished."""

    def __init__(
        self,
        *,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        output: str | os.PathLike[str] | None = None,
        max_failures: int = 50,
    ) -> None:
        """Start a run now; ``env`` (default ``os.environ``) feeds git/CI facts and secret redaction.

        ``output`` is the record file (None: a temporary one, removed after :meth:`record`). Nothing is
        written until :meth:`start`; ``max_failures`` failures keep their details for the summary."""
        self.env: Mapping[str, str] = os.environ if env is None else env
        self.cwd = (cwd or Path.cwd()).absolute()
        self.started_at = utc_now()
        self.redact = Redactor.from_env(self.env)
        # absolute: an agent that changes the working directory must not move the record
        self.output = Path(output).absolute() if output is not None else None
        self.shard: Slicer | None = None
        self.digest = RunDigest(max_failures)
        self.complete: bool | None = None
        """None while running; whether the run finished once :meth:`finish` wrote the record."""
        self._scratch: Path | None = None
        # Ask git while the run executes rather than after it.
        self._git: list[dict[str, str]] = []
        self._git_thread = threading.Thread(
            target=lambda: self._git.append(git_info(self.env, self.cwd)), daemon=True
        )
        self._git_thread.start()
        self._plans: list[_EvalSuitePlan] = []
        self._specs: list[EvalCaseSpec] = []
        self._pending: dict[int, dict[int, EvalCaseResult]] = {}
        self._lock = threading.RLock()
        self._benches: list[_Bench] = []
        self._sides: list[StreamedSuite] = []
        self._stream: RecordWriter | None = None
        self.budget: Budget | None = None
        """The run's ``--budget-usd`` budget, once it ran: an exhausted one leaves the record incomplete."""
        self.tracker: Tracker | None = None
        """Set (``run --record-inputs``) to record each suite's inputs (``suite_inputs``)."""
        self._inputs: dict[int, dict[str, Any]] = {}  # suite number -> run-side inputs
        self._partial: tuple[int, dict[str, Any]] | None = None
        self._groups: dict[str, str] = {}
        self._tally = [0, 0, 0]
        """Written trials as (passed, failed, errored), for :meth:`tally`."""

    def snapshot_inputs(self, suites: Sequence[int], sources: Sequence[str]) -> None:
        """Record the inputs read so far as those of ``suites`` (by number; suites just finished: every
        earlier read counts, a module imported before is an input all the same)."""
        if self.tracker is None:
            return
        from agent_evals.run.inputs import project_root

        root = project_root(self.cwd)
        # a virtual environment inside the project holds installed packages, not project files (their
        # versions count); a prefix at or above the root must not hide the whole project
        prefixes = [
            Path(p).resolve()
            for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}
            if root in Path(p).resolve().parents
        ]
        if self.output is not None:  # the record this run writes (and streams) is its output, not an input
            prefixes += [self.output.resolve(), partial_path(self.output).resolve()]
        for index, source in zip(suites, sources, strict=True):
            extra = [self.cwd / source]
            self._inputs[index] = self.tracker.inputs(root, skipped=prefixes, extra=extra)

    # -- planning ----------------------------------------------------------------------------
    def _suite(self, header: dict[str, Any]) -> int:
        """Add a suite; UsageError when its id is taken (the record pairs suites by id: one must not
        hide another)."""
        taken = next((side.header for side in self._sides if side.header["id"] == header["id"]), None)
        if taken is not None:
            raise UsageError(
                f"{header.get('source')}: its suite id {header['id']!r} is already the id of "
                f"{taken.get('source')}; every suite of a run needs its own id (give each benchmark its "
                "own `benchmark:` name)"
            )
        index = len(self._sides)
        self._sides.append(StreamedSuite(header))
        self.digest.add_suite(index, header["id"], header["kind"])
        return index

    def add_eval_suite(self, label: str, specs: list[EvalCaseSpec], *, suite_id: str | None = None) -> None:
        """Plan an eval suite (one file's selected cases); ``suite_id`` defaults to ``label``."""
        sid = suite_id or label
        with self._lock:
            index = self._suite({"id": sid, "kind": "evals", "source": label, "agent": {}})
            self._sides[index].judges(e for spec in specs for e in spec.evaluators)
            self._plans.append(_EvalSuitePlan(sid, label, specs, len(self._specs), index))
            self._specs.extend(specs)

    @property
    def specs(self) -> list[EvalCaseSpec]:
        """Every planned eval case, in suite order."""
        return self._specs

    @property
    def eval_suite_indices(self) -> list[int]:
        """The eval suites' numbers in the record, in order."""
        return [plan.index for plan in self._plans]

    @property
    def eval_sources(self) -> list[str]:
        """The eval suites' files as shown to the user, in order."""
        return [plan.label for plan in self._plans]

    def benchmark_index(self, result: BenchmarkResult) -> int:
        """The suite number of a benchmark that ran (``add_benchmark``)."""
        return next(b.index for b in self._benches if b.result is result)

    @property
    def eval_plans(self) -> list[tuple[int, int]]:
        """Each eval suite's ``(first spec index, number of specs)``: suites run one after another."""
        return [(plan.start, len(plan.specs)) for plan in self._plans]

    # -- the record file -----------------------------------------------------------------------
    def _partial_block(self) -> dict[str, Any]:
        """The run block of the partial record: made again only once git has answered."""
        if self._partial is None or self._partial[0] != len(self._git):
            self._partial = (len(self._git), self._run_block(complete=False))
        return self._partial[1]

    def _run_block(self, *, complete: bool, finished: bool = False) -> dict[str, Any]:
        return run_block(
            started_at=self.started_at,
            complete=complete,
            git=self._git[0] if self._git else {},
            env=self.env,
            finished=finished,
            budget=self.budget,
            shard=self.shard,
        )

    def start(self) -> None:
        """Open the record file: from now on it is a valid record (``complete: false``) of what finished."""
        with self._lock:
            if self._stream is not None:
                return
            target = self.output
            if target is None:
                self._scratch = Path(tempfile.mkdtemp(prefix="agent-evals-run-"))
                target = self._scratch / "run.json"
            self._stream = RecordWriter(target, self._partial_block())
            for side in self._sides:
                self._stream.add_suite(side.header)

    def _write(self, suite: int, position: int, case: Case | dict[str, Any], redact: bool = False) -> None:
        """Write one finished case (plain data as the record's model would dump it, or the model);
        the caller holds the lock."""
        self.start()
        assert self._stream is not None
        if not isinstance(case, dict):  # a benchmark's whole suite arrives as record models
            case = case.model_dump(mode="json", exclude_none=True)
        note_written_case(case)
        data = plain_bytes(case)  # any text kept, as strict UTF-8 (record.text)
        masked = redact and self.redact.active
        if masked:
            data = keep_definition(self.redact(data.decode("utf-8")), case.get("definition")).encode("utf-8")
        self._stream.add_case(suite, position, data, self._partial_block())
        # the id as the file holds it (a masked secret included); the rest is read back at the end
        trials = case["trials"]
        self._sides[suite].note(position, decode_json(data)["id"] if masked else case["id"], len(trials))
        for trial in trials:
            self._tally[trial_outcome(trial.get("error"), trial["passed"])] += 1

    def _read_back(self, suite: int, positions: list[int], cases: bytes) -> None:
        """Sum cases of the final record as its file holds them (``RecordWriter.finish``, in plan order):
        the summary the run's verdict reads, and the digest the terminal shows."""
        written: list[dict[str, Any]] = decode_json(b"[" + cases + b"]")
        for case in written:  # one string per group, not per case
            case["group"] = self._groups.setdefault(case["group"], case["group"])
        counted = self._sides[suite].summarise(written)  # the walk checks every case and counts it
        for position, case, stats in zip(positions, written, counted, strict=True):
            self.digest.add(suite, position, case, stats)

    # -- evals ---------------------------------------------------------------------------------
    def add_result(self, spec_index: int, trial: int, result: EvalCaseResult) -> None:
        """Record one finished trial (thread-safe); the case is written when its last trial is in."""
        with self._lock:
            done = self._pending.setdefault(spec_index, {})
            done[trial] = result
            if len(done) >= self._specs[spec_index].trials:
                self._write_eval(spec_index)

    def _plan_of(self, spec_index: int) -> _EvalSuitePlan:
        for plan in self._plans:
            if plan.start <= spec_index < plan.start + len(plan.specs):
                return plan
        raise IndexError(spec_index)

    def _write_eval(self, spec_index: int) -> None:
        plan = self._plan_of(spec_index)
        results = self._pending.pop(spec_index)
        self._sides[plan.index].saw(results.values())
        case = case_record(
            self._specs[spec_index],
            results,
            suite_id=plan.suite_id,
            label=plan.label,
            stem=plan.stem,
            definition=plan.definitions[spec_index - plan.start],
            redact=self.redact,
        )
        self._write(plan.index, spec_index - plan.start, case)

    # -- benchmarks and whole suites --------------------------------------------------------------
    def add_suite(self, suite: Suite) -> None:
        """Add a finished suite (a benchmark); secret values in it are masked like the evals' ones."""
        with self._lock:
            header = suite.model_dump(mode="json", exclude_none=True, exclude={"cases", "case_positions"})
            index = self._suite(header)
            if self._stream is not None:
                self._stream.add_suite(header)
            for position, case in enumerate(suite.cases):
                self._write(index, position, case, redact=True)

    def add_benchmark(self, result: BenchmarkResult) -> None:
        """Follow a benchmark as it runs (``on_start``); its cases are written as they finish."""
        header = {
            "id": result.benchmark_id,
            "kind": "benchmark",
            "source": result.source,
            "agent": {
                k: v
                for k, v in (("name", result.agent_name), ("version", result.agent_version))
                if v is not None
            },
            "gate": result.gate,
        }
        with self._lock:
            index = self._suite({k: v for k, v in header.items() if v is not None})
            self._sides[index].judges(names=result.judge_models)
            if self._stream is not None:
                self._stream.add_suite(self._sides[index].header)
            self._benches.append(_Bench(result, index))

    def benchmark_case_done(self, result: BenchmarkResult, position: int) -> None:
        """A benchmark case ran its last trial (``on_case``): write it, then let its trials go."""
        with self._lock:
            bench = next(b for b in self._benches if b.result is result)
            self._write_bench(bench, position)

    def _write_bench(self, bench: _Bench, position: int) -> None:
        from agent_evals.benchmark.result import case_data

        if bench.written[position]:
            return
        outcome = bench.result.cases[position]
        self._sides[bench.index].saw(outcome.trials)
        self._write(bench.index, position, case_data(outcome), redact=True)
        bench.written[position] = 1
        outcome.trials = []  # in the record now; a run of 100,000 cases must not keep them

    def tally(self) -> tuple[int, int, int]:
        """Finished trials so far as (passed, failed, errored), for a live progress line."""
        with self._lock:
            passed, failed, errored = self._tally
            for results in self._pending.values():
                for result in results.values():
                    if result.error is not None:
                        errored += 1
                    elif result.passed:
                        passed += 1
                    else:
                        failed += 1
        return passed, failed, errored

    @property
    def setup_failures(self) -> list[str]:
        """``benchmark id: why`` for each benchmark whose agent's ``setup()`` raised (an infra fault)."""
        failures = []
        for bench in self._benches:
            why = bench.result.setup_error
            if why:
                failures.append(f"{bench.result.benchmark_id}: {why.splitlines()[0]}")
        return failures

    # -- the end -------------------------------------------------------------------------------
    def _git_facts(self) -> dict[str, str]:
        self._git_thread.join(timeout=10)
        return self._git[0] if self._git else {}

    def _final_suites(self, complete: bool) -> list[int]:
        assert self._stream is not None
        return [i for i in range(len(self._sides)) if complete or self._stream.written(i)]

    def _extra(self, index: int) -> dict[str, Any]:
        """A suite's end-only fields: its fingerprint, its models, and a shard's case positions."""
        assert self._stream is not None
        side = self._sides[index]
        positions = self._stream.written(index)
        ids = [side.ids[p] for p in positions]
        trials = [side.trials[p] for p in positions]
        agent = side.header.get("agent") or {}
        who = [agent.get("name"), agent.get("version")]
        config = self._config(index, positions)
        extra: dict[str, Any] = {"fingerprint": fingerprint_of(ids, trials, config, who)}
        if (models := side.models(self.redact if self.redact.active else None)) is not None:
            extra["models"] = models
        if index in self._inputs:
            extra["inputs"] = self._inputs[index]
        population = self.shard.populations.get(side.header["id"]) if self.shard is not None else None
        if population is not None:
            where = {case_id: i for i, case_id in reversed(list(enumerate(population.ids)))}
            extra["case_positions"] = [where.get(c, -1) for c in ids]
            extra["fingerprint"] = fingerprint_of(population.ids, population.trials, population.config, who)
        return extra

    def _config(self, index: int, positions: list[int]) -> dict[str, Any]:
        for plan in self._plans:
            if plan.index == index:
                names = {evaluator_name(e) for p in positions for e in plan.specs[p].evaluators}
                return {"evaluators": sorted(names)}
        for bench in self._benches:
            if bench.index == index:
                return dict(bench.result.config)
        return {}

    def finish(self, *, complete: bool) -> Path:
        """Write the final record (``complete`` or not) over the output; returns its path.

        An incomplete run first writes its cases with some but not all trials finished."""
        if self.budget is not None and self.budget.exhausted:
            complete = False  # trials the budget kept from starting were not run
        with self._lock:
            self.start()
            assert self._stream is not None
            if not complete:
                for spec_index in sorted(self._pending):
                    self._write_eval(spec_index)
            for bench in self._benches:
                for position, outcome in enumerate(bench.result.cases):
                    if outcome.trials or (complete and bench.result.complete):
                        self._write_bench(bench, position)
            suites = self._final_suites(complete)
            self._git_facts()
            extra = {i: self._extra(i) for i in suites}
            for i in suites:
                self._sides[i].header.update(extra[i])
            self._final_run = self._run_block(complete=complete, finished=True)
            path = self._stream.finish(self._final_run, suites=suites, extra=extra, read_back=self._read_back)
            assert path is not None
            for i in suites:
                self.digest.add_reruns(self._sides[i].view.reruns)
            self.complete = complete
            self._final = suites
            return path

    @property
    def record_suites(self) -> list[int]:
        """The suites of the finished record, by number (for :func:`render_digest`)."""
        return self._final

    def summary(self) -> RunSummary:
        """The finished record's counts as the gate reads them (``record.read.read_summary`` gives the
        same), without its raw cases: each case's ``raw`` is empty, the record file has them. Enough
        for a run's own verdict (``single_run(..., case_detail="none")``), not for case diffs."""
        return RunSummary(dict(self._final_run), [self._sides[i].summary() for i in self._final])

    def record(self, *, complete: bool) -> RunRecord:
        """Finish the run and read the record back as the model (library callers and tests)."""
        from agent_evals.record.read import read_record

        path = self.finish(complete=complete)
        try:
            return read_record(path)
        finally:
            self.discard_scratch()

    def abandon(self) -> Path | None:
        """End a run that failed without a final record: the partial record stays only when a case
        reached it (what finished, ``complete: false``); a temporary record goes in any case.

        A run that failed before its record opened (an eval file that does not import) removes the
        record an earlier run left at the output, as opening it would have: that one is not this run's.

        Returns the partial record kept (None: none, or it was temporary)."""
        with self._lock:
            if self._stream is None and self.output is not None:
                self.output.unlink(missing_ok=True)
            kept = self._stream.abandon() if self._stream is not None else None
            if self._scratch is not None:
                self.discard_scratch()
                return None
            return kept

    def discard_scratch(self) -> None:
        """Remove the temporary record of a run without an output file (nothing else)."""
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
