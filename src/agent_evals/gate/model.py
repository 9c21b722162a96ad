"""The comparison data model: everything a report renders about a baseline-vs-candidate decision."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from agent_evals.gate.policy import Knobs, Policy

Verdict = Literal["passed", "inconclusive", "failed", "no-baseline", "reused"]
"""The gate's statistical decision for a suite, a gated group, or the whole comparison (``reused``: the
whole comparison only, when every suite was reused from the baseline and none ran)."""

Outcome = Literal["pass", "warn", "fail", "incomplete"]
"""What the verdict does under the policy: ``fail`` is exit code 1, ``warn`` is a warning, exit 0."""

ReasonKind = Literal[
    "regression",
    "floor",
    "error-budget",
    "critical-case",
    "inconclusive",
    "missing-baseline",
    "fingerprint",
    "removed-suite",
    "incomplete-run",
    "baseline-unreadable",
    "ungraded",
    "lost-grade",
    "confirm",
    "usage",
    "usage-missing",
]
"""Why a verdict or outcome is what it is (``usage``: tokens, cost or latency rose beyond the policy;
``usage-missing``: the candidate lost the usage the baseline measured)."""

TestName = Literal[
    "mcnemar", "mcnemar-mid-p", "stratified-exact", "stratified-normal", "paired-t", "sign-flip", "none"
]
"""The paired test behind a p-value (``none``: nothing to test, e.g. no paired case differs)."""

CaseClass = Literal[
    "stable-pass",
    "stable-fail",
    "flaky",
    "regressed",
    "improved",
    "new",
    "removed",
    "not-run",
    "errored",
    "ungraded",
]
"""Per-case classification (trial-aware); ``ungraded``: no trial has a pass/fail verdict (numeric-only)."""

RowKind = Literal["group", "scorer", "dimension"]
"""What a breakdown row aggregates over."""

RowStatus = Literal[
    "ok", "regressed", "inconclusive", "improved", "below-floor", "new", "removed", "no-baseline"
]
"""Status flag of a breakdown row."""

Mode = Literal["compare", "single_run"]
"""``compare``: baseline vs candidate. ``single_run``: one run rendered alone (``agent-evals report``)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class Interval(_Model):
    """A two-sided confidence interval."""

    low: float
    """Lower bound."""
    high: float
    """Upper bound."""
    level: float = 0.95
    """Confidence level."""
    method: Literal["wilson", "paired-t", "bootstrap"]
    """How it was computed."""


class Reason(_Model):
    """One reason behind a verdict or outcome, with a sentence a reviewer can read."""

    kind: ReasonKind
    """Reason category."""
    message: str
    """Plain-language explanation with the figures."""
    suite_id: str | None = None
    """The suite it concerns."""
    group: str | None = None
    """The group it concerns, for group-level reasons."""
    case_id: str | None = None
    """The case it concerns (critical cases)."""
    blocking: bool = False
    """Whether this reason fails the gate (exit code 1) under the policy."""


class RateSummary(_Model):
    """One side's pass rate over a set of cases (macro over cases, errored trials excluded)."""

    rate: float | None
    """Mean per-case pass fraction; None when no case has a valid trial."""
    interval: Interval | None = None
    """Wilson interval of the rate (over valid trials pooled)."""
    cases: int
    """Cases in the set."""
    cases_scored: int
    """Cases with at least one valid (non-errored) trial."""
    trials: int
    """All trials, errored included."""
    passed_trials: int
    """Trials that passed."""
    errored_trials: int
    """Trials that errored (left out of the rate)."""
    error_rate: float | None = None
    """Errored trials / all trials."""
    k: int = 1
    """Largest number of trials per case."""
    pass_at_k: float | None = None
    """Mean unbiased pass@k over cases (k > 1 only)."""
    pass_hat_k: float | None = None
    """Mean unbiased pass^k over cases (k > 1 only)."""


class SettleHint(_Model):
    """For an inconclusive drop: how much more data would likely settle it (80% power)."""

    cases_needed: int | None = None
    """Paired cases needed in all at the observed spread."""
    more_cases: int | None = None
    """Cases to add to reach ``cases_needed``."""
    trials_needed: int | None = None
    """Trials per case that would shrink the spread enough with the current cases, when trials help."""
    message: str
    """One sentence for the report."""


class DeltaStat(_Model):
    """The paired comparison of candidate and baseline over the cases present on both sides."""

    delta: float | None
    """Mean per-case difference (candidate - baseline); None without paired cases."""
    interval: Interval | None = None
    """Interval of the delta (paired t, or bootstrap)."""
    test: TestName = "none"
    """Paired test used."""
    p_value: float | None = None
    """One-sided raw p-value for a drop."""
    p_adjusted: float | None = None
    """Holm-adjusted p-value (gated suites/groups), or BH q-value for informational rows."""
    n_paired: int = 0
    """Cases present on both sides with valid trials on both."""
    n_differ: int = 0
    """Paired cases whose pass fraction differs."""
    n_down: int = 0
    """Paired cases whose pass fraction dropped (pass -> fail for one trial)."""
    n_up: int = 0
    """Paired cases whose pass fraction rose."""
    sd: float | None = None
    """Standard deviation of the per-case differences."""
    mde: float | None = None
    """The drop the gate (test and max_drop together) catches 80% of the time at this suite's size,
    trials and flakiness; None when no drop reaches that (see ``can_fail``)."""
    mde_exceeds_max_drop: bool = False
    """True when the test alone has under 80% power at a drop of ``max_drop``."""
    can_fail: bool = True
    """False when no outcome of the candidate could make the test significant beyond max_drop."""
    min_discordant: int | None = None
    """Fewest cases flipping from passing every trial to failing every trial that can reach alpha."""
    capacity: str | None = None
    """What the suite can detect, in one sentence, when it is too small (every report shows it)."""
    history_runs: int = 0
    """Earlier baselines whose trials joined the baseline side of the test (``--history``)."""
    history_flaky: list[str] = Field(default_factory=list)
    """Paired cases the pooled baseline trials show as flaky (some passed, some failed)."""
    significant: bool = False
    """p_adjusted < alpha."""
    settle: SettleHint | None = None
    """How much more data would settle an inconclusive drop."""


class ErrorRise(_Model):
    """The paired comparison of error rates: did the candidate error more than the baseline?"""

    delta: float
    """Candidate error rate - baseline error rate over the paired cases (trials pooled)."""
    p_value: float
    """One-sided p-value for a rise (case-stratified exact test on the errored trials)."""
    p_adjusted: float | None = None
    """Holm-adjusted with the suites' and groups' drop tests."""
    significant: bool = False
    """p_adjusted < alpha."""


class UsageTotals(_Model):
    """Usage summed over trials (fields None when nothing recorded them)."""

    input_tokens: int | None = None
    """Prompt tokens."""
    output_tokens: int | None = None
    """Completion tokens."""
    cost_usd: float | None = None
    """Cost in US dollars."""
    duration_s: float | None = None
    """Wall-clock seconds summed over trials."""
    mean_latency_s: float | None = None
    """Mean seconds per trial."""
    trials: int = 0
    """Trials counted."""


class UsageDiff(_Model):
    """Usage on both sides and the change (candidate - baseline), informational (not gated)."""

    baseline: UsageTotals | None = None
    """Baseline usage (None without a baseline)."""
    candidate: UsageTotals
    """Candidate usage."""
    delta: UsageTotals | None = None
    """Difference of each recorded field (``trials`` difference too)."""


UsageMetric = Literal["tokens", "cost", "latency"]
"""What a usage check compares, per trial: input + output tokens, cost in US dollars, seconds."""


class CaseUsageChange(_Model):
    """One paired case's usage per trial on both sides (a report lists the largest increases)."""

    case_id: str
    """Case id."""
    baseline: float
    """Mean per measured trial in the baseline."""
    candidate: float
    """Mean per measured trial in the candidate."""


class UsageCheck(_Model):
    """A suite's paired comparison of one usage metric, and what the policy makes of it."""

    metric: UsageMetric
    """What is compared."""
    threshold: float | None
    """The policy's largest tolerated relative increase (None: reported only, never gated)."""
    verdict: Verdict | Literal["not-measured"]
    """``failed``: beyond the threshold and significant, or usage lost; ``inconclusive``: beyond the
    threshold, not significant; ``not-measured``: the baseline measured no paired case."""
    n_paired: int = 0
    """Paired cases measured on both sides (valid trials only)."""
    baseline_total: float | None = None
    """Sum over those cases of the baseline's mean per trial."""
    candidate_total: float | None = None
    """The same for the candidate."""
    increase: float | None = None
    """candidate_total / baseline_total - 1 (inf when the baseline total is 0 and the candidate's is not)."""
    n_up: int = 0
    """Paired cases whose value rose."""
    n_down: int = 0
    """Paired cases whose value fell."""
    p_value: float | None = None
    """One-sided exact sign test p-value for a rise."""
    p_adjusted: float | None = None
    """Holm-adjusted over every usage check of the comparison."""
    significant: bool = False
    """p_adjusted < alpha."""
    missing_case_ids: list[str] = Field(default_factory=list)
    """Paired cases the baseline measured and the candidate did not (a blocking reason when gated)."""
    unmeasured_in_baseline: int = 0
    """Paired cases only the candidate measured (left out: nothing to compare with)."""
    unpriced_models: list[str] = Field(default_factory=list)
    """Cost only: candidate models without a price in the table."""
    top_cases: list[CaseUsageChange] = Field(default_factory=list)
    """The paired cases with the largest increases (at most five)."""


class GroupUsage(_Model):
    """One group's usage per trial over its paired measured cases (informational)."""

    group: str
    """Group (capability or dataset)."""
    metric: UsageMetric
    """What is compared."""
    n_paired: int
    """Paired cases measured on both sides."""
    baseline_total: float
    """Sum of the baseline's per-case means per trial."""
    candidate_total: float
    """Sum of the candidate's."""
    increase: float | None = None
    """Relative change (None when the baseline total is 0)."""


class GroupRow(_Model):
    """One breakdown row: a group (capability/dataset), a scorer, or a dimension value."""

    kind: RowKind
    """What it aggregates over."""
    key: str
    """Group name, scorer name, or ``dimension=value``."""
    dimension: str | None = None
    """Dimension name for dimension rows."""
    value: str | None = None
    """Dimension value for dimension rows."""
    baseline: RateSummary | None = None
    """Baseline rate over the row's cases (None without a baseline or cases)."""
    candidate: RateSummary | None = None
    """Candidate rate (None when the row only exists in the baseline)."""
    delta: DeltaStat | None = None
    """Paired comparison over the row's cases."""
    status: RowStatus = "ok"
    """Status flag."""
    gated: bool = False
    """True when a policy override targets this group, so it can fail the gate on its own (Holm)."""
    verdict: Verdict | None = None
    """The group's verdict when gated."""
    bh_flag: bool = False
    """Informational: a drop significant at false-discovery rate alpha (Benjamini-Hochberg)."""
    reasons: list[Reason] = Field(default_factory=list)
    """Reasons, for gated groups."""


class ScorerFailure(_Model):
    """A scorer that failed (or errored) in a case's trial, with its evidence."""

    name: str
    """Scorer name."""
    value: float | None = None
    """Score value."""
    error: str | None = None
    """Scorer error, when it errored."""
    notes: str | None = None
    """Why (untrusted text)."""
    expected: str | None = None
    """What it expected (untrusted text)."""
    actual: str | None = None
    """What it found (untrusted text)."""
    trials_failed: int = 1
    """Candidate trials in which it failed."""


class CaseSide(_Model):
    """One side of a case: its trials summarised."""

    trials: int
    """All trials."""
    passes: int
    """Passing trials."""
    errors: int
    """Errored trials."""
    pass_fraction: float | None
    """passes / valid trials; None when every trial errored."""
    usage: UsageTotals | None = None
    """Usage over its trials, when recorded."""


class CaseDiff(_Model):
    """One case compared across the two runs."""

    suite_id: str
    """Suite id."""
    case_id: str
    """Case id."""
    name: str | None = None
    """Human-readable name (untrusted)."""
    group: str
    """Capability or dataset."""
    dimensions: dict[str, str] = Field(default_factory=dict)
    """Dimension values."""
    classification: CaseClass
    """Trial-aware class."""
    critical: bool = False
    """Marked critical (record or policy glob)."""
    critical_flip: bool = False
    """Critical and went from passing every trial to failing every trial (or to no graded trial)."""
    baseline: CaseSide | None = None
    """Baseline side (None for new cases)."""
    candidate: CaseSide | None = None
    """Candidate side (None for removed cases)."""
    delta: float | None = None
    """Candidate pass fraction - baseline pass fraction."""
    failing_scorers: list[ScorerFailure] = Field(default_factory=list)
    """Scorers that failed in the candidate, with notes/expected/actual."""
    error: str | None = None
    """First trial error message on the candidate side (or baseline for removed cases)."""
    location: str | None = None
    """``file:line`` where the case is declared."""
    input: str | None = None
    """Input snippet (untrusted)."""
    expected: str | None = None
    """Reference snippet (untrusted)."""
    output: str | None = None
    """Candidate output snippet of a failing trial (untrusted)."""
    baseline_output: str | None = None
    """Baseline output snippet (untrusted)."""
    usage: UsageDiff | None = None
    """Usage delta for the case, when recorded."""
    duration_s: float | None = None
    """Seconds the candidate's trials of the case took in all (detailed reports only)."""


class FingerprintCheck(_Model):
    """Whether the two runs of a suite are comparable."""

    baseline: str | None = None
    """Baseline fingerprint."""
    candidate: str
    """Candidate fingerprint."""
    matches: bool = True
    """Fingerprints equal (or no baseline)."""
    notes: list[str] = Field(default_factory=list)
    """What differs: case ids, agent, trials, configuration."""


class TrendPoint(_Model):
    """One run of a suite's pass-rate trend: an earlier baseline (``--history``), the baseline or the candidate."""

    role: Literal["history", "baseline", "candidate"]
    rate: float | None = None
    """The suite's pass rate in that run (None: no graded case)."""
    sha: str | None = None
    date: str | None = None
    """When the run started (ISO 8601), as its record says."""
    run_id: str | None = None


class SuiteComparison(_Model):
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


class ReusedSuite(_Model):
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


class BaselineInfo(_Model):
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


class RunInfoView(_Model):
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


class Comparison(_Model):
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
    reused_suites: list[ReusedSuite] = Field(default_factory=list)
    """Suites copied from the baseline instead of run: kept out of every test and rate, never evidence."""
    reuse_notes: list[str] = Field(default_factory=list)
    """Why the other suites ran under ``--reuse-unchanged`` (what changed), for the report."""

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
