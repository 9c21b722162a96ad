"""The comparison data model: everything a report renders about a baseline-vs-candidate decision.

The models of its parts live beside it (``model_stats``: verdicts, reasons, rates and rows;
``model_usage``: usage; ``model_cases``: per-case diffs) and are importable from here too."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, computed_field

from agent_evals.gate.model_cases import CaseDiff, CaseSide, ScorerFailure
from agent_evals.gate.model_stats import (
    CaseClass,
    DeltaStat,
    ErrorRise,
    GateModel,
    GroupRow,
    Interval,
    Mode,
    Outcome,
    RateSummary,
    Reason,
    ReasonKind,
    RenameCheck,
    RowKind,
    RowStatus,
    SettleHint,
    TestName,
    Verdict,
)
from agent_evals.gate.model_usage import (
    CaseUsageChange,
    GroupUsage,
    UsageCheck,
    UsageDiff,
    UsageMetric,
    UsageTotals,
)
from agent_evals.gate.policy import Knobs, Policy

__all__ = [
    "BaselineInfo",
    "CaseClass",
    "CaseDiff",
    "CaseSide",
    "CaseUsageChange",
    "Comparison",
    "DeltaStat",
    "ErrorRise",
    "FingerprintCheck",
    "GroupRow",
    "GroupUsage",
    "Interval",
    "Mode",
    "Outcome",
    "RateSummary",
    "Reason",
    "ReasonKind",
    "RenameCheck",
    "ReusedSuite",
    "RowKind",
    "RowStatus",
    "RunInfoView",
    "ScorerFailure",
    "SettleHint",
    "SuiteComparison",
    "TestName",
    "TrendPoint",
    "UsageCheck",
    "UsageDiff",
    "UsageMetric",
    "UsageTotals",
    "Verdict",
]


class FingerprintCheck(GateModel):
    """Whether the two runs of a suite are comparable."""

    baseline: str | None = None
    """Baseline fingerprint."""
    candidate: str
    """Candidate fingerprint."""
    matches: bool = True
    """Fingerprints equal (or no baseline)."""
    notes: list[str] = Field(default_factory=list)
    """What differs: models, case ids, agent, trials, configuration."""
    info: list[str] = Field(default_factory=list)
    """What could not be compared and decides nothing: a model recorded on one side only."""


class TrendPoint(GateModel):
    """One run of a suite's pass-rate trend: an earlier baseline (``--history``), the baseline or the candidate."""

    role: Literal["history", "baseline", "candidate"]
    rate: float | None = None
    """The suite's pass rate in that run (None: no graded case)."""
    sha: str | None = None
    date: str | None = None
    """When the run started (ISO 8601), as its record says."""
    run_id: str | None = None


class SuiteComparison(GateModel):
    """One suite: verdict, rates, paired statistics, breakdowns and per-case diffs."""

    suite_id: str
    """Suite id."""
    kind: str
    """``benchmark`` or ``evals``."""
    source: str | None = None
    """The file or folder it came from."""
    verdict: Verdict
    """Statistical decision."""
    outcome: Outcome
    """Effect under the policy."""
    reasons: list[Reason] = Field(default_factory=list)
    """Why (regression, floor, error budget, critical case, inconclusive, missing baseline ...)."""
    policy: Knobs
    """Knobs applied to this suite."""
    baseline: RateSummary | None = None
    """Baseline rate over all its cases (None without a baseline)."""
    candidate: RateSummary
    """Candidate rate over all its cases."""
    paired_baseline: RateSummary | None = None
    """Baseline rate over the paired cases only."""
    paired_candidate: RateSummary | None = None
    """Candidate rate over the paired cases only."""
    delta: DeltaStat | None = None
    """Paired comparison (None without a baseline)."""
    error_rise: ErrorRise | None = None
    """Paired comparison of the error rates (None without a baseline or paired trials)."""
    groups: list[GroupRow] = Field(default_factory=list)
    """Per group (capability/dataset)."""
    scorers: list[GroupRow] = Field(default_factory=list)
    """Per scorer (trial passes by that scorer)."""
    dimensions: list[GroupRow] = Field(default_factory=list)
    """Per dimension value."""
    cases: list[CaseDiff] = Field(default_factory=list)
    """Every case, regressions first; without the stable cases (no errored trial, not critical) when the
    comparison was made with ``case_detail='listed'`` (``counts`` still covers them)."""
    added_case_ids: list[str] = Field(default_factory=list)
    """Cases only in the candidate."""
    removed_case_ids: list[str] = Field(default_factory=list)
    not_run_case_ids: list[str] = Field(default_factory=list)
    """Baseline cases an incomplete (interrupted) candidate never ran; not counted as removed."""
    """Cases only in the baseline."""
    redefined_case_ids: list[str] = Field(default_factory=list)
    """Cases on both sides whose definition digest changed (``gate.redefined``)."""
    fingerprint: FingerprintCheck
    """Comparability."""
    usage: UsageDiff
    """Tokens, cost and latency on both sides."""
    counts: dict[str, int] = Field(default_factory=dict)
    """Cases per classification (every CaseClass key present)."""
    confirm_flaky: list[str] = Field(default_factory=list)
    """Cases a confirm run (``ci --confirm-trials``) showed as flaky: they flipped, the drop did not hold."""
    trend: list[TrendPoint] = Field(default_factory=list)
    """Pass rate per run, earlier baselines oldest first, then the baseline, the candidate last; empty
    when no earlier baseline holds this suite."""
    usage_checks: list[UsageCheck] = Field(default_factory=list)
    """Paired usage comparisons (tokens, cost, latency) with their verdicts; empty without a baseline."""
    usage_groups: list[GroupUsage] = Field(default_factory=list)
    """Usage per trial by group over the paired measured cases."""
    replaced: bool = False
    """The suite has a baseline but shares no case with it: every case renamed or replaced (fails)."""
    renamed: RenameCheck | None = None
    """The removed cases' baseline results against the added cases' candidate results, when the suite
    both removed and added cases."""
    fewer_trials: list[str] = Field(default_factory=list)
    """Cases run with fewer trials than in the baseline."""
    trials_change: str | None = None
    """The most common change of those cases, as ``trials 3 -> 1``."""


class ReusedSuite(GateModel):
    """A suite whose results were copied from the baseline (``ci --reuse-unchanged``): not compared."""

    suite_id: str
    """The suite id."""
    source: str | None = None
    """Its file."""
    cases: int = 0
    """Cases copied."""
    reason: str = ""
    """Why it was reused (its inputs are unchanged since the baseline run named here)."""
    baseline_run_id: str | None = None
    """The baseline run its results come from."""
    baseline_sha: str | None = None
    """That run's commit."""


class BaselineInfo(GateModel):
    """Where the baseline came from, or why there is none."""

    source: Literal["artifact", "file", "none"] = "none"
    """Artifact of a base-branch run, a local file, or none."""
    run_id: str | None = None
    """CI run id that produced it."""
    sha: str | None = None
    """Commit it was run on."""
    ref: str | None = None
    """Branch or ref."""
    date: str | None = None
    """When it ran (ISO 8601)."""
    url: str | None = None
    """Link to the run."""
    path: str | None = None
    """Local file path, for ``file`` baselines."""
    reason_missing: str | None = None
    """Why there is no baseline (which one was looked for)."""
    unreadable: str | None = None
    """Why the baseline that was found could not be used (a corrupt or invalid artifact, a record of
    other suites); None when there was none to read. Reports say it loudly: it is not a first run."""
    selection: str | None = None
    """How this baseline run was chosen among the candidates, as a phrase for the report (e.g. "the run at
    the merge base abc1234", or the newest older run when none exists there); None when not chosen by
    a lookup (a file given by the user)."""


class RunInfoView(GateModel):
    """Provenance of the candidate run."""

    run_id: str | None = None
    """CI run id."""
    sha: str | None = None
    """Commit."""
    ref: str | None = None
    """Branch or ref."""
    date: str | None = None
    """Start time."""
    complete: bool = True
    """False for a partial run."""
    incomplete_reason: str | None = None
    """``budget`` when the run stopped at its spending limit (``--budget-usd``): "budget exhausted"."""
    tool_version: str | None = None
    """agent-evals version that wrote it."""
    retried_trials: int = 0
    """Trials ``--retry-errors`` ran again after an infrastructure error."""
    earlier_attempts: int = 0
    """The errored attempts before those trials' final ones."""
    replayed_calls: int = 0
    """Model calls the response cache answered (``--cache replay``) instead of the live model."""


class Comparison(GateModel):
    """The whole decision: overall verdict and outcome, per-suite details, policy and provenance."""

    mode: Mode = "compare"
    """``compare`` or ``single_run``."""
    verdict: Verdict
    """Overall verdict: failed > inconclusive > no-baseline > passed."""
    outcome: Outcome
    """Overall effect under the policy; ``fail`` means exit code 1."""
    reasons: list[Reason] = Field(default_factory=list)
    """Every reason across suites (blocking first)."""
    suites: list[SuiteComparison] = Field(default_factory=list)
    """Suites of the candidate (and suites only in the baseline, verdict failed/warned as removed)."""
    removed_suite_ids: list[str] = Field(default_factory=list)
    """Suites present only in the baseline."""
    not_run_suite_ids: list[str] = Field(default_factory=list)
    """Baseline suites an incomplete candidate never reached (not counted as removed)."""
    policy: Policy
    """The policy applied (all sources)."""
    effective_policy: Knobs
    """The knobs that apply where no suite block or override does."""
    baseline: BaselineInfo = Field(default_factory=BaselineInfo)
    """Baseline provenance."""
    candidate: RunInfoView = Field(default_factory=RunInfoView)
    """Candidate provenance."""
    notes: list[str] = Field(default_factory=list)
    """Plain warnings (partial runs, fingerprint mismatches) for the report."""
    info: list[str] = Field(default_factory=list)
    """Notes that change no outcome, for the report: each suite's model recorded on one side only
    (``FingerprintCheck.info``), so a run whose agent stopped naming its model is never silent."""
    reused_suites: list[ReusedSuite] = Field(default_factory=list)
    """Suites copied from the baseline instead of run: kept out of every test and rate, never evidence."""
    reuse_notes: list[str] = Field(default_factory=list)
    """Why the other suites ran under ``--reuse-unchanged`` (what changed), for the report."""
    replaced: bool = False
    """The baseline and this run share no (suite id, case id) though both have cases: every case was
    renamed or replaced (fails the gate)."""
    renamed_suites: RenameCheck | None = None
    """The removed suites' baseline cases against the added suites' candidate cases, when the run both
    removed and added suites."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def exit_code(self) -> int:
        """0 when the gate passes (warnings allowed), 1 when it fails, 3 when the candidate is incomplete."""
        return {"fail": 1, "incomplete": 3}.get(self.outcome, 0)

    @property
    def regression_count(self) -> int:
        """Suites and gated groups failed for a significant regression."""
        return sum(1 for r in self.reasons if r.kind == "regression")

    @property
    def regressed_case_count(self) -> int:
        """Cases classified ``regressed`` across suites."""
        return sum(s.counts.get("regressed", 0) for s in self.suites)
