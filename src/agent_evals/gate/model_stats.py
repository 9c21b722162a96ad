"""The comparison model's words and statistics: verdicts, reasons, rates, paired deltas, breakdown rows."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

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
    "replaced",
    "renamed",
    "removed-cases",
    "fewer-trials",
    "redefined",
]
"""Why a verdict or outcome is what it is (``usage``: tokens, cost or latency rose beyond the policy;
``usage-missing``: the candidate lost the usage the baseline measured; ``replaced``: a suite, or the whole
run, shares no case with its baseline; ``renamed``: the added cases did significantly worse than the
removed ones; ``removed-cases``: baseline cases or suites this run lacks; ``fewer-trials``: fewer trials
per case than the baseline's; ``redefined``: cases whose definition changed since the baseline)."""

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


class GateModel(BaseModel):
    """Base of the comparison models: unknown fields refused, schemas built on first use."""

    model_config = ConfigDict(extra="forbid", defer_build=True)


class Interval(GateModel):
    """A two-sided confidence interval."""

    low: float
    """Lower bound."""
    high: float
    """Upper bound."""
    level: float = 0.95
    """Confidence level."""
    method: Literal["wilson", "paired-t", "bootstrap"]
    """How it was computed."""


class Reason(GateModel):
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


class RateSummary(GateModel):
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
    k_min: int | None = None
    """Fewest trials of a case (below ``k`` when trial counts differ, as after ``--confirm-trials``)."""
    cases_at_k: int = 0
    """Cases with at least ``k`` valid trials: the ones ``pass_at_k`` and ``pass_hat_k`` average over."""


class SettleHint(GateModel):
    """For an inconclusive drop: how much more data would likely settle it (80% power)."""

    cases_needed: int | None = None
    """Paired cases needed in all at the observed spread."""
    more_cases: int | None = None
    """Cases to add to reach ``cases_needed``."""
    trials_needed: int | None = None
    """Trials per case that would shrink the spread enough with the current cases, when trials help."""
    message: str
    """One sentence for the report."""


class DeltaStat(GateModel):
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


class ErrorRise(GateModel):
    """The paired comparison of error rates: did the candidate error more than the baseline?"""

    delta: float
    """Candidate error rate - baseline error rate over the paired cases (trials pooled)."""
    p_value: float
    """One-sided p-value for a rise (case-stratified exact test on the errored trials)."""
    p_adjusted: float | None = None
    """Holm-adjusted with the suites' and groups' drop tests."""
    significant: bool = False
    """p_adjusted < alpha."""


class RenameCheck(GateModel):
    """Cases removed and cases added (renamed, or replaced) in a suite or across suites: the removed
    cases' baseline pass fractions against the added cases' candidate ones, by an unpaired exact test."""

    suite_ids: list[str] = Field(default_factory=list)
    """The suite, or (across suites) the removed suites then the added ones."""
    removed: int
    """Baseline cases the candidate lacks."""
    added: int
    """Candidate cases the baseline lacks."""
    removed_graded: int = 0
    """Removed cases with a graded baseline trial (the test's first group)."""
    added_graded: int = 0
    """Added cases with a graded candidate trial (its second group)."""
    paired_by_input: int = 0
    """Removed and added cases paired because they have the same recorded input (a rename)."""
    baseline_rate: float | None = None
    """Mean pass fraction of the removed cases in the baseline."""
    candidate_rate: float | None = None
    """Mean pass fraction of the added cases in the candidate."""
    delta: float | None = None
    """candidate_rate - baseline_rate."""
    p_value: float = 1.0
    """One-sided p-value for a drop (exact permutation test of case pass fractions; Fisher's exact
    test with one trial per case)."""
    p_floor: float = 1.0
    """The smallest p-value these groups can give: below alpha, the test joins the Holm family."""
    p_adjusted: float = 1.0
    """Holm-adjusted with every other test that can fail the gate."""
    test: str = "none"
    """``permutation-exact``, ``permutation-normal`` (large groups) or ``none``."""
    significant: bool = False
    """p_adjusted < alpha."""
    failed: bool = False
    """Significant and a drop of at least max_drop: fails the gate."""


class GroupRow(GateModel):
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
