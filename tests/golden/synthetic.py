"""Deterministic synthetic run records and the comparisons the golden reports are rendered from."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from agent_evals.gate.compare import compare_runs
from agent_evals.gate.model import BaselineInfo, Comparison
from agent_evals.gate.policy import Policy
from agent_evals.record.model import Case as RecordCase
from agent_evals.record.model import (
    CIInfo,
    GitInfo,
    RunInfo,
    RunRecord,
    Suite,
    Trial,
    TrialScore,
    fingerprint,
)

GROUPS = ("lights", "climate", "doors", "media", "scenes")

# One trial outcome: True (pass), False (fail) or "error".
Outcome = bool | str


@dataclass
class CaseSpec:
    """One case on one side: its trial outcomes and what the scorer saw."""

    case_id: str
    group: str
    trials: Sequence[Outcome]
    output: str = "done"
    expected: str = "light.kitchen on"
    notes: str = "state differs at light.kitchen"
    name: str | None = None
    critical: bool = False


@dataclass
class SuiteSpec:
    """One suite on one side."""

    suite_id: str
    cases: list[CaseSpec] = field(default_factory=list)


def _trial(outcome: Outcome, spec: CaseSpec) -> Trial:
    if outcome == "error":
        return Trial(passed=False, error="TimeoutError: agent did not answer within 30s", duration_s=30.0)
    passed = bool(outcome)
    score = TrialScore(
        passed=passed,
        value=1.0 if passed else 0.0,
        notes=None if passed else spec.notes,
        expected=None if passed else spec.expected,
        actual=None if passed else spec.output,
    )
    return Trial(passed=passed, scores={"state_match": score}, duration_s=1.5, output=spec.output)


def record(suites: Sequence[SuiteSpec], *, sha: str, run_id: str, started_at: str) -> RunRecord:
    """A run record holding ``suites``."""
    built = []
    for spec in suites:
        suite = Suite(
            id=spec.suite_id,
            kind="benchmark",
            source=f"benchmarks/{spec.suite_id}.yaml",
            cases=[
                RecordCase(
                    id=c.case_id,
                    group=c.group,
                    name=c.name,
                    critical=c.critical,
                    expected=c.expected,
                    trials=[_trial(t, c) for t in c.trials],
                )
                for c in spec.cases
            ],
        )
        suite.fingerprint = fingerprint(suite)
        built.append(suite)
    return RunRecord(
        run=RunInfo(
            tool_version="0.1.0",
            started_at=started_at,
            finished_at=started_at,
            git=GitInfo(sha=sha, ref="main" if run_id == "1001" else "feature/x"),
            ci=CIInfo(provider="github", run_id=run_id),
        ),
        suites=built,
    )


def pair(
    n: int,
    *,
    suite_id: str = "home-v1",
    k: int = 1,
    base: Callable[[int], Sequence[Outcome]] | None = None,
    cand: Callable[[int], Sequence[Outcome]] | None = None,
    output: Callable[[int], str] | None = None,
    name: Callable[[int], str | None] | None = None,
) -> tuple[SuiteSpec, SuiteSpec]:
    """Baseline and candidate suites of ``n`` cases; ``base``/``cand`` give each case's trial outcomes
    (default: every trial passes), ``output`` the candidate output of a case."""

    def default(_: int) -> Sequence[Outcome]:
        return [True] * k

    b, c = base or default, cand or default
    base_cases = []
    cand_cases = []
    for i in range(n):
        case_id = f"{GROUPS[i % len(GROUPS)]}/scenario-{i:05d}"
        group = GROUPS[i % len(GROUPS)]
        nm = name(i) if name else None
        base_cases.append(CaseSpec(case_id, group, b(i), name=nm))
        cand_cases.append(CaseSpec(case_id, group, c(i), output=output(i) if output else "done", name=nm))
    return SuiteSpec(suite_id, base_cases), SuiteSpec(suite_id, cand_cases)


BASELINE_INFO = BaselineInfo(
    source="artifact",
    run_id="1001",
    sha="1111111111111111111111111111111111111111",
    ref="main",
    date="2026-11-29T08:00:00Z",
    url="https://github.com/acme/home-agent/actions/runs/1001",
)


def compare(
    base: Sequence[SuiteSpec] | None,
    cand: Sequence[SuiteSpec],
    *,
    policy: Policy | None = None,
    baseline_info: BaselineInfo | None = BASELINE_INFO,
) -> Comparison:
    """Build both records and compare them with ``compare_runs``."""
    cand_record = record(
        cand, sha="2222222222222222222222222222222222222222", run_id="1002", started_at="2026-11-30T09:00:00Z"
    )
    base_record = (
        None
        if base is None
        else record(
            base,
            sha="1111111111111111111111111111111111111111",
            run_id="1001",
            started_at="2026-11-29T08:00:00Z",
        )
    )
    return compare_runs(base_record, cand_record, policy or Policy(), baseline_info=baseline_info)


HOSTILE = (
    "@channel please look </details><details open><summary>pwned</summary> "
    '<img src="http://evil.example/track.png"> | col | `code` ```fence``` '
    "![img](https://evil.example/x.png) [link](https://evil.example) fixes #1 GH-2 acme/repo#3 "
    "@acme/security-team <script>alert(1)</script>\nsecond line"
)


def scenarios() -> dict[str, Callable[[], Comparison]]:
    """Every golden scenario by name."""

    def no_regression() -> Comparison:
        # Two flips each way among 60 cases: noise, not a regression.
        b, c = pair(
            60,
            base=lambda i: [i not in (3, 7)],
            cand=lambda i: [i not in (11, 19)],
        )
        return compare([b], [c])

    def one_significant_regression() -> Comparison:
        # 200 cases, 30 pass -> fail, 2 fail -> pass: McNemar p far below alpha.
        b, c = pair(
            200,
            base=lambda i: [i not in (150, 151)],
            cand=lambda i: [i >= 30],
            output=lambda i: "I turned the kitchen light off." if i < 30 else "done",
        )
        return compare([b], [c])

    def inconclusive_drop() -> Comparison:
        # 40 cases, 4 pass -> fail: a 10-point drop, but McNemar p = 0.0625.
        b, c = pair(40, cand=lambda i: [i >= 4])
        return compare([b], [c])

    def missing_baseline() -> Comparison:
        _, c = pair(30, cand=lambda i: [i % 10 != 0])
        info = BaselineInfo(
            source="none",
            reason_missing="no successful agent-evals run on main in the last 90 days (artifact agent-evals-default)",
        )
        return compare(None, [c], baseline_info=info)

    def new_and_removed() -> Comparison:
        b, c = pair(50)
        b.cases.append(CaseSpec("lights/retired-scenario", "lights", [True]))
        c.cases += [
            CaseSpec("scenes/new-movie-night", "scenes", [True]),
            CaseSpec("scenes/new-wake-up", "scenes", [False], output="alarm not set"),
        ]
        gone = SuiteSpec("legacy-v0", [CaseSpec("lights/old", "lights", [True])])
        return compare([b, gone], [c])

    def errors_over_budget() -> Comparison:
        # k = 3; 12 of 150 candidate trials time out (8%) against a 5% budget.
        b, c = pair(50, k=3, cand=lambda i: ["error", True, True] if i < 12 else [True, True, True])
        return compare([b], [c])

    def hostile() -> Comparison:
        huge = "A" * 200_000
        b, c = pair(
            12,
            cand=lambda i: [i >= 6],
            output=lambda i: HOSTILE if i % 2 == 0 else HOSTILE + huge,
            name=lambda i: "kitchen | <b>light</b> @here `x`" if i < 6 else None,
        )
        return compare([b], [c])

    def degrade_20000_cases() -> Comparison:
        # 20,000 cases, 1,500 regress with long outputs: the full report is far over the comment budget.
        b, c = pair(
            20_000,
            cand=lambda i: [i % 13 != 0],
            output=lambda i: f"turned off {i} lights; " * 20,
        )
        return compare([b], [c])

    return {
        "no_regression": no_regression,
        "one_significant_regression": one_significant_regression,
        "inconclusive_drop": inconclusive_drop,
        "missing_baseline": missing_baseline,
        "new_and_removed": new_and_removed,
        "errors_over_budget": errors_over_budget,
        "hostile": hostile,
        "degrade_20000_cases": degrade_20000_cases,
    }
