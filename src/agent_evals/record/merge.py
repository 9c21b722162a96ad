"""Join the shard records of one run (``run --shard i/n``) into the run record of the whole run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent_evals.errors import UsageError
from agent_evals.record.model import (
    UNCOUNTED_LISTED,
    BudgetInfo,
    Case,
    RunInfo,
    RunRecord,
    ShardSuite,
    Suite,
    SuiteModels,
    ids_digest,
)
from agent_evals.record.models import merged_models


class MergeError(UsageError):
    """Shard records that cannot be one run (exit 2); the message names the files."""


@dataclass
class Merged:
    """The merged record and what, if anything, it lacks."""

    record: RunRecord
    missing: list[int]
    """Shard indices not given (only with ``allow_partial``)."""
    incomplete: list[str]
    """Shard records that were themselves interrupted (only with ``allow_partial``)."""
    count: int
    """How many shards the run was split into."""
    missing_cases: dict[str, list[int]] = field(default_factory=dict)
    """Suite id -> positions (0-based, in the whole suite) of the cases no shard record holds (only
    with ``allow_partial``; records that say how large each suite is)."""

    def lacking(self) -> list[str]:
        """What the merged record lacks, in words: missing shards, interrupted ones, missing cases."""
        out = [f"shard {i}/{self.count}" for i in self.missing]
        out += [f"{source} (interrupted)" for source in self.incomplete]
        return out + self.lacking_cases()

    def lacking_cases(self) -> list[str]:
        """The cases no shard record holds, suite by suite, in words."""
        out = []
        for suite_id, positions in self.missing_cases.items():
            shown = ", ".join(str(p + 1) for p in positions[:10]) + (" ..." if len(positions) > 10 else "")
            out.append(f"{len(positions)} case(s) of suite {suite_id!r} (at position {shown} of the suite)")
        return out


def _header(suite: Suite) -> dict[str, object]:
    # each shard records the models its own trials used: joined below, not compared
    return suite.model_dump(
        exclude={"cases", "case_positions", "fingerprint", "inputs", "models"}, by_alias=True
    )


def _check_runs(shards: Sequence[tuple[str, RunRecord]]) -> int:
    """Every record is a shard of the same split, version and commit; returns the shard count."""
    for source, record in shards:
        if record.run.shard is None:
            raise MergeError(
                f"{source}: not a shard record (it has no run.shard); write shard records with "
                "`agent-evals run --shard INDEX/COUNT -o FILE`"
            )
    first_source, first = shards[0]
    assert first.run.shard is not None
    count = first.run.shard.count
    seen: dict[int, str] = {}
    for source, record in shards:
        shard = record.run.shard
        assert shard is not None
        if shard.count != count:
            raise MergeError(
                f"{source}: shard {shard.index}/{shard.count}, but {first_source} is a shard of "
                f"{count}: the records come from different splits"
            )
        if shard.index in seen:
            raise MergeError(
                f"{source}: shard {shard.index}/{count} was already given as {seen[shard.index]}"
            )
        seen[shard.index] = source
        if record.run.tool_version != first.run.tool_version:
            raise MergeError(
                f"{source}: written by agent-evals {record.run.tool_version}, but {first_source} by "
                f"{first.run.tool_version}: run every shard with the same version"
            )
        sha, first_sha = record.run.git.sha, first.run.git.sha
        if sha and first_sha and sha != first_sha:
            raise MergeError(
                f"{source}: run on commit {sha}, but {first_source} on {first_sha}: the shards "
                "must come from the same commit"
            )
        if bool(sha) != bool(first_sha):  # one that says its commit beside one that does not
            with_sha, without = (source, first_source) if sha else (first_source, source)
            raise MergeError(
                f"{without}: records no commit (run.git.sha), but {with_sha} was run on "
                f"{sha or first_sha}: the shards must come from the same commit, each saying so"
            )
    return count


def _check_commit(shards: Sequence[tuple[str, RunRecord]], commit: str) -> None:
    """Every shard record was run on ``commit`` (the job's own: ``ci --shards``)."""
    for source, record in shards:
        sha = record.run.git.sha
        if sha != commit:
            said = f"was run on commit {sha}" if sha else "records no commit (run.git.sha)"
            raise MergeError(
                f"{source}: {said}, but this job checks commit {commit}: shard records of another "
                "commit cannot stand for this one; download the shard records of this workflow run"
            )


def _whole_suites(shards: Sequence[tuple[str, RunRecord]]) -> dict[str, ShardSuite] | None:
    """The whole suites every shard dealt (``run.shard.suites``), the same in every record; None when
    no record says (records of an older agent-evals)."""
    said = [(source, r.run.shard.suites) for source, r in shards if r.run.shard is not None]
    first_source, first = said[0]
    for source, suites in said:
        if (suites is None) != (first is None):
            without, other = (source, first_source) if suites is None else (first_source, source)
            raise MergeError(
                f"{without}: says nothing of the whole suites (run.shard.suites), but {other} does: "
                "the records were not all written by `agent-evals run --shard` of one version"
            )
    if first is None:
        return None
    for source, suites in said[1:]:
        assert suites is not None
        for suite_id in sorted(suites.keys() | first.keys()):
            mine, theirs = suites.get(suite_id), first.get(suite_id)
            if mine is None or theirs is None:
                holder, lacks = (first_source, source) if mine is None else (source, first_source)
                raise MergeError(
                    f"{lacks}: dealt no suite {suite_id!r}, but {holder} did: the shards ran different files"
                )
            if mine.files != theirs.files:
                raise MergeError(
                    f"{source}: suite {suite_id!r} was run from files whose contents differ from those "
                    f"{first_source} ran (files digest {mine.files} vs {theirs.files}): every shard must "
                    "run the same version of the suite"
                )
            if (mine.cases, mine.case_ids) != (theirs.cases, theirs.case_ids):
                raise MergeError(
                    f"{source}: suite {suite_id!r} was dealt as {mine.cases} case(s), but {first_source} "
                    f"dealt it as {theirs.cases} (or other case ids): the shards ran different cases "
                    "(files, --filter)"
                )
    return first


def _merge_suite(
    suite_id: str,
    parts: list[tuple[str, Suite]],
    *,
    whole: bool,
    expected: ShardSuite | None,
    missing_cases: dict[str, list[int]],
) -> Suite:
    first_source, first = parts[0]
    for source, suite in parts[1:]:
        if suite.fingerprint != first.fingerprint:
            raise MergeError(
                f"{source}: suite {suite_id!r} has fingerprint {suite.fingerprint}, but {first_source} "
                f"has {first.fingerprint}: the shards ran different cases or settings (files, --filter, "
                "--trials, --timeout, agent)"
            )
        if _header(suite) != _header(first):
            raise MergeError(
                f"{source}: suite {suite_id!r} is declared differently than in {first_source} "
                "(source, agent or gate block)"
            )
    placed: list[tuple[int, int, Case]] = []
    owner: dict[str, str] = {}
    for order, (source, suite) in enumerate(parts):
        positions = suite.case_positions
        if positions is not None and len(positions) != len(suite.cases):
            raise MergeError(
                f"{source}: suite {suite_id!r} lists {len(positions)} case_positions for "
                f"{len(suite.cases)} cases"
            )
        for i, case in enumerate(suite.cases):
            if case.id in owner:
                raise MergeError(
                    f"{source}: case {case.id!r} of suite {suite_id!r} is also in {owner[case.id]}: "
                    "shards must not overlap (were they run with different --shard counts or files?)"
                )
            owner[case.id] = source
            position = positions[i] if positions is not None else -1
            placed.append((position, order, case))
    placed.sort(key=lambda p: (p[0], p[1]))
    positions_seen = [p for p, _, _ in placed]
    if (
        whole
        and all(s.case_positions is not None for _, s in parts)
        and positions_seen != list(range(len(placed)))
    ):
        gap = next(i for i, p in enumerate([*positions_seen, -1]) if p != i)
        raise MergeError(
            f"suite {suite_id!r}: the shard records lack the case at position {gap} of the suite (a shard "
            "record was edited or truncated); run the shards again"
        )
    if expected is not None:
        _check_cases(suite_id, placed, expected, whole=whole, missing_cases=missing_cases)
    merged = first.model_copy(deep=False)
    merged.cases = [case for _, _, case in placed]
    merged.case_positions = None
    merged.inputs = None  # each shard read its own part: a merged suite claims no input digest (never reused)
    models = merged_models(s.models.model_dump(exclude_none=True) if s.models else None for _, s in parts)
    merged.models = SuiteModels.model_validate(models) if models else None
    return merged


def _check_cases(
    suite_id: str,
    placed: list[tuple[int, int, Case]],
    expected: ShardSuite,
    *,
    whole: bool,
    missing_cases: dict[str, list[int]],
) -> None:
    """The shards' cases of a suite are the whole suite (every shard given) or a part of it (the
    positions no shard holds go to ``missing_cases``)."""
    held = {p for p, _, _ in placed}
    if any(p < 0 or p >= expected.cases for p in held) or len(held) != len(placed):
        raise MergeError(
            f"suite {suite_id!r}: the shard records place cases outside the suite's {expected.cases} "
            "positions (a shard record was edited); run the shards again"
        )
    absent = [p for p in range(expected.cases) if p not in held]
    if not whole:
        if absent:
            missing_cases[suite_id] = absent
        return
    if absent:
        shown = ", ".join(str(p + 1) for p in absent[:10]) + (" ..." if len(absent) > 10 else "")
        raise MergeError(
            f"suite {suite_id!r}: every shard was given, yet {len(absent)} of its {expected.cases} cases "
            f"are in none of them (position {shown} of the suite): a shard record was edited or "
            "truncated; run the shards again"
        )
    if ids_digest(case.id for _, _, case in placed) != expected.case_ids:
        raise MergeError(
            f"suite {suite_id!r}: the shard records' case ids are not the ones the shards dealt (a shard "
            "record was edited); run the shards again"
        )


def merge_shards(
    shards: Sequence[tuple[str, RunRecord]], *, allow_partial: bool = False, commit: str | None = None
) -> Merged:
    """Merge ``(source, record)`` shard records; MergeError (exit 2) when they are not one run.

    Refused: a record that is not a shard, shards of different splits, a shard given twice, different
    tool versions or commits, a shard without a commit beside one with, any commit but ``commit``
    when given, suites that differ (fingerprint, declaration, the contents of their files, the whole
    suite dealt, or present in only some shards), a case in two shards, and a full set of shards that
    lacks a case of a suite (``run.shard.suites`` says how many there are). Missing or interrupted
    shards are refused too unless ``allow_partial``: then the merged record is marked
    ``complete: false``, which the gate never passes, and ``missing_cases`` says which cases it lacks.
    """
    if not shards:
        raise MergeError("no shard records given")
    count = _check_runs(shards)
    if commit is not None:
        _check_commit(shards, commit)
    whole_suites = _whole_suites(shards)
    given = {r.run.shard.index for _, r in shards if r.run.shard is not None}
    missing = [i for i in range(1, count + 1) if i not in given]
    incomplete = [source for source, r in shards if not r.run.complete]
    if (missing or incomplete) and not allow_partial:
        problems = []
        if missing:
            problems.append(f"shard(s) {', '.join(f'{i}/{count}' for i in missing)} missing")
        if incomplete:
            problems.append(f"interrupted shard record(s): {', '.join(incomplete)}")
        raise MergeError(
            f"{'; '.join(problems)}: pass every shard's complete record, or --allow-partial to write an "
            "incomplete record (complete: false) that compare and ci never pass"
        )

    ordered = sorted(shards, key=lambda s: s[1].run.shard.index if s[1].run.shard else 0)
    suite_ids: list[str] = []
    parts: dict[str, list[tuple[str, Suite]]] = {}
    for source, record in ordered:
        for suite in record.suites:
            if suite.id not in parts:
                suite_ids.append(suite.id)
            elif any(src == source for src, _ in parts[suite.id]):
                raise MergeError(f"{source}: suite {suite.id!r} appears twice")
            parts.setdefault(suite.id, []).append((source, suite))
    for suite_id in suite_ids:
        have = {src for src, _ in parts[suite_id]}
        lacking = [src for src, _ in ordered if src not in have]
        if lacking:
            raise MergeError(
                f"{lacking[0]}: has no suite {suite_id!r}, but {parts[suite_id][0][0]} has: the shards "
                "ran different files"
            )

    first = ordered[0][1]
    run = first.run.model_copy(deep=True)
    run.shard = None
    run.started_at = min(r.run.started_at for _, r in ordered)
    finished = [r.run.finished_at for _, r in ordered if r.run.finished_at]
    run.finished_at = max(finished) if finished else None
    run.complete = not missing and not incomplete
    run.incomplete_reason, run.incomplete_reasons = shard_reasons([r.run for _, r in ordered], missing, count)
    run.budget = summed_budget([r.run.budget for _, r in ordered])
    whole = not missing and not incomplete
    missing_cases: dict[str, list[int]] = {}
    if whole_suites is not None:
        _check_suite_set(suite_ids, whole_suites, whole=whole, missing_cases=missing_cases)
    suites = [
        _merge_suite(
            sid,
            parts[sid],
            whole=whole,
            expected=whole_suites.get(sid) if whole_suites is not None else None,
            missing_cases=missing_cases,
        )
        for sid in suite_ids
    ]
    record = RunRecord(run=run, suites=suites)
    return Merged(
        record=record, missing=missing, incomplete=incomplete, count=count, missing_cases=missing_cases
    )


def _why(run: RunInfo) -> str:
    """Why one shard record is not whole, in words."""
    budget = run.budget
    if run.incomplete_reason == "budget" and budget is not None:
        return (
            f"budget of ${budget.limit_usd:g} reached (${budget.spent_usd:.4f} spent, "
            f"{budget.skipped_trials} trial(s) not started)"
        )
    if run.incomplete_reason:
        return run.incomplete_reason
    return "interrupted (its record holds what finished)"


def shard_reasons(
    runs: Sequence[RunInfo], missing: Sequence[int], count: int
) -> tuple[str | None, list[str] | None]:
    """The merged record's ``incomplete_reason`` and ``incomplete_reasons`` from the shards' run blocks
    (``runs``, in shard order) and the shards not given.

    The reason is ``budget`` when any shard stopped on its budget (the gate then says "budget
    exhausted"), else the first shard's that has one. The reasons name every shard that is not whole,
    in shard order: each one's own reason, ``interrupted``, or ``missing``.
    """
    said = [r.incomplete_reason for r in runs if r.incomplete_reason]
    reason = "budget" if "budget" in said else (said[0] if said else None)
    entries = [(r.shard.index, _why(r)) for r in runs if r.shard is not None and not r.complete]
    entries += [(i, "missing (no shard record given)") for i in missing]
    reasons = [f"shard {i}/{count}: {why}" for i, why in sorted(entries)]
    return reason, reasons or None


def summed_budget(budgets: Sequence[BudgetInfo | None]) -> BudgetInfo | None:
    """The merged record's budget block: every shard's added up (None when no shard had one).

    Each shard ran under its own ``--budget-usd``, so the whole run was allowed the sum of the
    shards' limits: ``limit_usd`` is that sum, beside the summed ``spent_usd`` it is measured
    against (a shard's own limit is named in ``incomplete_reasons`` when it stopped that shard).
    Skipped and uncounted trials are added; the uncounted trials named are the shards' own, in
    shard order, up to ``UNCOUNTED_LISTED``.
    """
    held = [b for b in budgets if b is not None]
    if not held:
        return None
    names = [name for b in held for name in (b.uncounted or ())][:UNCOUNTED_LISTED]
    return BudgetInfo(
        limit_usd=sum(b.limit_usd for b in held),
        spent_usd=round(sum(b.spent_usd for b in held), 6),
        skipped_trials=sum(b.skipped_trials for b in held),
        uncounted_trials=sum(b.uncounted_trials for b in held),
        uncounted=names or None,
    )


def _check_suite_set(
    suite_ids: list[str],
    whole_suites: dict[str, ShardSuite],
    *,
    whole: bool,
    missing_cases: dict[str, list[int]],
) -> None:
    """The shard records hold exactly the suites the shards dealt (a partial set may lack some)."""
    for suite_id in suite_ids:
        if suite_id not in whole_suites:
            raise MergeError(
                f"suite {suite_id!r} is in the shard records but no shard dealt it (run.shard.suites): "
                "a shard record was edited; run the shards again"
            )
    for suite_id, suite in whole_suites.items():
        if suite_id in suite_ids or suite.cases == 0:
            continue
        if whole:
            raise MergeError(
                f"suite {suite_id!r} was dealt to the shards ({suite.cases} cases), but no shard record "
                "holds it: a shard record was edited or truncated; run the shards again"
            )
        missing_cases[suite_id] = list(range(suite.cases))


def merge_folder(folder: Path, *, commit: str | None = None) -> Merged:
    """Merge every ``*.json`` under ``folder`` (what download-artifact leaves), partial allowed.

    A missing or interrupted shard makes the record ``complete: false`` (the gate's ``incomplete``);
    anything else that is not one run is a MergeError, as is a folder without records, and, given
    ``commit`` (the job's), a shard record of any other commit.
    """
    from agent_evals.record.read import read_record

    files = sorted(p for p in folder.rglob("*.json") if p.is_file()) if folder.is_dir() else []
    if not files:
        raise MergeError(
            f"--shards {folder}: no shard records (*.json) found; did the shard jobs upload their records?"
        )
    return merge_shards([(str(p), read_record(p)) for p in files], allow_partial=True, commit=commit)
