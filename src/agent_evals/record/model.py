"""The run record: the versioned JSON document every run produces and the gate compares."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# re-exported: the ids live in a module without imports, so readers need not load these models
from agent_evals.record.fingerprint import fingerprint_of
from agent_evals.record.schema_ids import READABLE_SCHEMAS as READABLE_SCHEMAS
from agent_evals.record.schema_ids import SCHEMA_ID as SCHEMA_ID
from agent_evals.record.text import model_json


class _Model(BaseModel):
    # Unknown fields are kept so a newer writer's additions survive a read-modify-write. Each model's
    # validator is built on its first use (a run validates only its run block; compare, whole records).
    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)


class ModelUsage(_Model):
    """One model's share of a trial's usage."""

    input_tokens: int = 0
    """Prompt tokens."""
    output_tokens: int = 0
    """Completion tokens."""
    calls: int = 0
    """Model calls counted."""


class ReplayedUsage(_Model):
    """The share of a trial's usage whose answers the response cache replayed (``--cache replay``)."""

    input_tokens: int = 0
    """Prompt tokens of the replayed calls."""
    output_tokens: int = 0
    """Completion tokens of the replayed calls."""
    cost_usd: float | None = None
    """What those calls cost when they were recorded; not charged to ``--budget-usd`` again."""
    calls: int = 0
    """Model calls replayed."""


class Usage(_Model):
    """Tokens and cost one trial reported, when it did."""

    input_tokens: int | None = None
    """Prompt tokens."""
    output_tokens: int | None = None
    """Completion tokens."""
    cost_usd: float | None = None
    """Cost in US dollars."""
    models: dict[str, ModelUsage] | None = None
    """Tokens per model, when they were captured from the model calls (so both sides of a comparison
    can be priced with one table); absent when the agent reported its own counts."""
    replayed: ReplayedUsage | None = None
    """The part of these figures answered by the response cache's replay (counted for gating, not
    charged to the budget); None when every call was live."""


class TrialScore(_Model):
    """One scorer's result in one trial."""

    value: float | None = None
    """Numeric value (library scores are in [0, 1]; eval scores may be any number), None if pass/fail only."""
    passed: bool | None = None
    """Pass/fail verdict, None for a numeric-only score."""
    error: str | None = None
    """Set when the scorer itself failed."""
    notes: str | None = None
    """Why: a judge's reasoning, an assertion message, which paths failed."""
    expected: str | None = None
    """What the scorer expected, rendered as short text (for reports)."""
    actual: str | None = None
    """What it found, rendered as short text (for reports)."""
    source: str | None = None
    """Code-first evals: ``body`` (the eval itself) or ``evaluator``; lets ``regrade`` replace evaluator scores."""


class Attempt(_Model):
    """An earlier attempt of a trial that errored with an infrastructure error and was retried."""

    error: str | None = None
    """The attempt's error."""
    duration_s: float = 0.0
    """Wall-clock seconds of the attempt."""
    reason: str | None = None
    """Why the error counts as infrastructure (``HTTP 429``, ``openai.APIConnectionError``)."""
    waited_s: float = 0.0
    """Seconds waited before the next attempt (``Retry-After``, else the backoff)."""
    usage: Usage | None = None
    """What the attempt's model calls used before it failed: charged to ``--budget-usd``, not part of
    the trial's own ``usage``."""


class TrialCache(_Model):
    """What the response cache did in a trial (``--cache record|replay``)."""

    mode: Literal["record", "replay"]
    """The run's cache mode."""
    replayed: int = 0
    """Model responses served from the cache."""
    recorded: int = 0
    """Model responses fetched live and stored."""
    missed: int = 0
    """Requests replay mode had no entry for (the trial is errored)."""


class Trial(_Model):
    """One execution of a case."""

    passed: bool
    """Whether the trial passed (always False when ``error`` is set)."""
    error: str | None = None
    """Set when the trial errored (exception, timeout, infrastructure); not a failure."""
    scores: dict[str, TrialScore] = Field(default_factory=dict)
    """Scores keyed by scorer name."""
    duration_s: float = 0.0
    """Wall-clock seconds."""
    usage: Usage | None = None
    """Tokens and cost, when reported."""
    output: str | None = None
    """The agent's output as text (bytes as their UTF-8 text, invalid bytes as ``\\xNN``): its first
    100,000 characters (``record.trial.TEXT_LIMIT``, the same for evals, benchmarks and library runs),
    for reports and ``regrade``."""
    output_json: Any = None
    """The output as JSON when it is not text (code-first evals), so ``regrade`` can re-score it."""
    graded: bool = True
    """False when the trial has no pass/fail score (numeric-only eval): left out of pass rates and pass@k."""
    traceback: str | None = None
    """The error's traceback trimmed to user frames, when the trial errored."""
    attempts: list[Attempt] | None = None
    """Earlier attempts retried by ``--retry-errors`` (oldest first; None when it ran once); this trial is
    the final attempt."""
    cache: TrialCache | None = None
    """The response cache's part in this trial, when a cache mode was on."""


class Location(_Model):
    """Where a case is declared."""

    file: str | None = None
    """Path of the declaring file, relative to the working directory when possible."""
    line: int | None = None
    """1-based line number."""


class Case(_Model):
    """One scenario or eval case with its trials."""

    id: str
    """Stable id: ``capability/scenario-id`` for benchmarks, ``file::function[case]`` for evals."""
    group: str
    """Capability (benchmarks) or dataset (evals)."""
    name: str | None = None
    """Human-readable name."""
    dimensions: dict[str, str] = Field(default_factory=dict)
    """Dimension values, e.g. ``{"difficulty": "hard"}``."""
    critical: bool = False
    """A critical case that flips from pass to fail fails the gate."""
    location: Location | None = None
    """Where the case is declared."""
    input: str | None = None
    """The prompt or input, truncated (for reports)."""
    expected: str | None = None
    """The reference, rendered as short text (for reports)."""
    labels: list[str] = Field(default_factory=list)
    """Labels declared on a code-first eval."""
    input_json: Any = None
    """The input as JSON when it is not text (code-first evals, for ``regrade``)."""
    reference_json: Any = None
    """The reference as JSON when it is not text (code-first evals, for ``regrade``)."""
    definition: str | None = None
    """Digest of what the case asks and checks (input, expected values, checks, scorers): a
    different one in the baseline means the case was redefined (``core.definition``)."""
    trials: list[Trial] = Field(default_factory=list)
    """Every trial of the case."""


class AgentInfo(_Model):
    """The agent a suite ran against."""

    name: str | None = None
    """Agent name."""
    version: str | None = None
    """Agent version."""


class SuiteModels(_Model):
    """The models a suite's trials used, per role, as far as the run could tell (``record.models``)."""

    agent: list[str] | None = None
    """The agent's models: named by its ``TaskResult.context["model"]``, by the ``model`` of the usage it
    reported, or counted by the usage meter from the model calls' responses; sorted. Absent: unknown."""
    judge: list[str] | None = None
    """The models the suite's LLM scorers (judges) ask, as they name them; sorted. Absent: none named."""


class Suite(_Model):
    """One benchmark file or one eval collection."""

    id: str
    """Stable suite id (the benchmark id, or the eval file's path)."""
    kind: Literal["benchmark", "evals"]
    """What produced the suite."""
    source: str
    """The file or folder it came from."""
    agent: AgentInfo = Field(default_factory=AgentInfo)
    """The agent, when declared."""
    fingerprint: str = ""
    """Hash of case ids, configuration, agent and trials; differs when runs are not comparable."""
    gate: dict[str, Any] | None = None
    """The suite's own ``gate:`` policy block, when its file declares one."""
    models: SuiteModels | None = None
    """The models its agent and its judges used, when any is known (records written before had none):
    ``compare`` names a change of either as a difference between the runs."""
    cases: list[Case] = Field(default_factory=list)
    """Every case of the suite."""
    case_positions: list[int] | None = None
    """Shard records only: each case's position in the whole suite, so ``merge`` restores the order."""
    inputs: dict[str, Any] | None = None
    """What the suite's results depend on (``ci`` records it): project files read with their hashes,
    folders listed, package versions, Python, agent-evals, the environment and the command, and their
    ``digest``; ``ci --reuse-unchanged`` reuses the suite when the digest is unchanged."""
    reused: dict[str, Any] | None = None
    """Set when the cases were copied from the baseline instead of run (``ci --reuse-unchanged``):
    the baseline's ``run_id`` and ``sha``, the ``digest`` and the ``reason``. Never evidence for a pass."""
    policy: dict[str, Any] | None = None
    """The gate policy that applied to the suite (``ci`` records it): its resolved ``knobs`` and the
    resolved knobs of each group an override targets (``groups``). A pull request's gate takes each knob
    as the stricter of this (the baseline's) and its own; older records without it use the base commit's files."""


class GitInfo(_Model):
    """The commit a run was made on."""

    sha: str | None = None
    """Commit SHA."""
    ref: str | None = None
    """Branch or ref."""


class CIInfo(_Model):
    """The CI run that made the record."""

    provider: str | None = None
    """``github`` or None when run locally."""
    run_id: str | None = None
    """The provider's run id."""
    pr: int | None = None
    """Pull request number, when any."""
    head_sha: str | None = None
    """The pull request's head commit (``pull_request.head.sha`` of the event; ``git.sha`` is the merge
    commit Actions checks out); the publisher refuses a record whose head is not the gate run's."""


class ShardSuite(_Model):
    """One suite of a sharded run as a whole, the same in every shard record of the run."""

    cases: int
    """How many cases the whole suite has (every shard's together)."""
    case_ids: str
    """A digest of the whole suite's case ids in suite order (``ids_digest``)."""
    files: str | None = None
    """A digest of the contents of the files that declare the suite's cases (the eval file; the
    benchmark YAML and the files it includes or reads cases from)."""


class ShardInfo(_Model):
    """Which slice of a sharded run (``run --shard INDEX/COUNT``) a record holds."""

    index: int
    """1-based shard index."""
    count: int
    """How many shards the run was split into."""
    suites: dict[str, ShardSuite] | None = None
    """Suite id -> the whole suite as every shard dealt it, so ``merge`` sees a case, a suite or a
    file that no shard holds (older records lack it)."""


UNCOUNTED_LISTED = 10
"""Trials whose cost could not be counted that a run record's budget block names (the rest are counted)."""


class BudgetInfo(_Model):
    """The run's spending limit (``--budget-usd``) and what it came to."""

    limit_usd: float
    """The limit in US dollars."""
    spent_usd: float
    """What the finished attempts spent: their recorded cost, retried attempts included, replayed answers left out."""
    skipped_trials: int = 0
    """Trials the budget kept from starting (then the run is ``complete: false``)."""
    uncounted_trials: int = 0
    """Trials whose cost the budget could not count (a model without a price; a cost that is NaN,
    infinite or negative): left out of ``spent_usd``, so the spend may be more than it says."""
    uncounted: list[str] | None = None
    """The first of those trials (at most ``UNCOUNTED_LISTED``), as ``case id trial N (why)``."""


class RunInfo(_Model):
    """Facts about the run as a whole."""

    tool_version: str
    """agent-evals version that wrote the record."""
    started_at: str
    """ISO 8601 UTC start time."""
    finished_at: str | None = None
    """ISO 8601 UTC end time."""
    complete: bool = True
    """False when the run was interrupted and the record holds partial results."""
    incomplete_reason: str | None = None
    """Why a run is incomplete, when it stopped on its own: ``budget`` (``--budget-usd`` was spent).
    A merged record says ``budget`` when any shard stopped on its budget."""
    incomplete_reasons: list[str] | None = None
    """Merged records (``merge --allow-partial``): why each shard that is not whole is not, in shard
    order, each naming its shard (``shard 2/3: budget of $0.5 reached``, ``shard 3/3: missing``)."""
    budget: BudgetInfo | None = None
    """The spending limit, when the run had one."""
    suite_ids: str | None = None
    """How eval suite ids were made: ``project-root`` (the eval file's path relative to its project
    root). Absent in records written before, whose eval suite ids were relative to the working
    directory of the run; ``compare`` maps those onto the new ones."""
    git: GitInfo = Field(default_factory=GitInfo)
    """Commit information."""
    ci: CIInfo = Field(default_factory=CIInfo)
    """CI information."""
    shard: ShardInfo | None = None
    """Set on a shard record: the record holds one slice of the run, not the whole run (merge the shards)."""


class RunRecord(_Model):
    """The whole run record."""

    schema_: str = Field(default=SCHEMA_ID, alias="schema")
    """Schema id, ``agent-evals/run@1``."""
    run: RunInfo
    """Facts about the run."""
    suites: list[Suite] = Field(default_factory=list)
    """Every suite that ran."""

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        """pydantic's ``model_dump``, always with ``schema`` spelled as the file format does.

        The field is ``schema_`` in Python (``schema`` would shadow a pydantic method): without
        ``by_alias=True`` pydantic would write ``schema_``, a file no reader takes for a record. So
        ``by_alias`` is always on; every other option is pydantic's.
        """
        return super().model_dump(**{**kwargs, "by_alias": True})

    def model_dump_json(self, **kwargs: Any) -> str:
        """pydantic's ``model_dump_json``, always with ``schema`` spelled as the file format does (see
        :meth:`model_dump`); :meth:`to_json` is the compact form the writers use."""
        return super().model_dump_json(**{**kwargs, "by_alias": True})

    def to_json(self) -> str:
        """Serialize as the file format: ``schema`` spelled as such, compact, unset (null) fields left out.

        Records are machine artifacts that can hold hundreds of thousands of trials: compact output is
        about a quarter of the indented size and parses several times faster. Readers accept both.
        """
        return model_json(self)  # lone surrogates written as U+FFFD: record.text


def fingerprint(suite: Suite, config: dict[str, Any] | None = None) -> str:
    """Hash what makes two runs of a suite comparable: case ids, config, agent and trial counts."""
    return fingerprint_of(
        [c.id for c in suite.cases],
        [len(c.trials) for c in suite.cases],
        config or {},
        [suite.agent.name, suite.agent.version],
    )


def ids_digest(case_ids: Iterable[str]) -> str:
    """A digest of a suite's case ids in suite order: what every shard of a run records of the whole
    suite, so ``merge`` can tell that the shards together hold every case (the last one included)."""
    digest = hashlib.sha256()
    for case_id in case_ids:
        digest.update(case_id.encode("utf-8", "surrogateescape") + b"\0")
    return digest.hexdigest()[:32]
