"""A case the baseline marks critical stays guarded: unmarking, removing or renaming it never hides a break."""

from __future__ import annotations

from typing import Any

import pytest

from agent_evals.errors import UsageError
from agent_evals.gate.compare import compare_documents
from agent_evals.gate.model import Comparison
from agent_evals.gate.policy import resolve_policy


def compare(base: dict[str, Any], cand: dict[str, Any], **flags: Any) -> Comparison:
    return compare_documents(base, cand, resolve_policy(repo_config=None, suite_blocks={}, overrides=flags))


def critical_reasons(result: Comparison) -> list[tuple[str | None, bool]]:
    return [(r.case_id, r.blocking) for r in result.reasons if r.kind == "critical-case"]


def suite(n: int, **codes: str) -> dict[str, str]:
    """``n`` passing cases g/c0.., with the trial codes of some replaced (``c3="FFF"``) or dropped (``c3=""``)."""
    out = {f"g/c{i}": "PPP" for i in range(n)}
    for name, code in codes.items():
        if code:
            out[f"g/{name}"] = code
        else:
            del out[f"g/{name}"]
    return out


@pytest.mark.parametrize(
    ("cand_cases", "cand_critical", "outcome", "flagged"),
    [
        # the candidate un-marks the critical case in the same change that breaks it
        (suite(20, c0="FFF"), (), "fail", ["g/c0"]),
        # still marked and broken: the plain critical flip
        (suite(20, c0="FFF"), ("g/c0",), "fail", ["g/c0"]),
        # un-marked but still passing: nothing to say
        (suite(20), (), "pass", []),
        # the critical case is gone (deleted or renamed) while it passed in the baseline
        (suite(20, c0=""), (), "fail", ["g/c0"]),
        # renamed: a new id that fails, the old critical id gone
        ({**suite(20, c0=""), "g/c0-renamed": "FFF"}, (), "fail", ["g/c0"]),
    ],
)
def test_compare__baseline_critical_case__guarded_whatever_the_candidate_marks(
    record, cand_cases: dict[str, str], cand_critical: tuple[str, ...], outcome: str, flagged: list[str]
) -> None:
    base = record({"home": suite(20)}, critical=("g/c0",))
    cand = record({"home": cand_cases}, critical=cand_critical)
    result = compare(base, cand)
    assert result.outcome == outcome
    assert [cid for cid, _ in critical_reasons(result)] == flagged
    assert result.exit_code == (1 if outcome == "fail" else 0)


def test_compare__removed_critical_case__message_says_it_is_missing(record) -> None:
    base = record({"home": suite(20)}, critical=("g/c0",))
    result = compare(base, record({"home": suite(20, c0="")}))
    (reason,) = [r for r in result.reasons if r.kind == "critical-case"]
    assert "g/c0" in reason.message
    assert "not in this run" in reason.message


@pytest.mark.parametrize(
    ("action", "outcome", "blocking"), [("fail", "fail", [True]), ("warn", "warn", [False])]
)
def test_compare__removed_critical_case__follows_the_critical_action(
    record, action: str, outcome: str, blocking: list[bool]
) -> None:
    base = record({"home": suite(20)}, critical=("g/c0",))
    result = compare(base, record({"home": suite(20, c0="")}), critical=action)
    assert result.outcome == outcome
    assert [b for _, b in critical_reasons(result)] == blocking


def test_compare__removed_critical_case__ignored_when_critical_is_ignore(record) -> None:
    base = record({"home": suite(20)}, critical=("g/c0",))
    result = compare(base, record({"home": suite(20, c0="")}), critical="ignore")
    assert critical_reasons(result) == []
    assert result.exit_code == 0


def test_compare__removed_critical_case_that_failed_in_the_baseline__no_critical_reason(record) -> None:
    base = record({"home": suite(20, c0="FFF")}, critical=("g/c0",))
    result = compare(base, record({"home": suite(20, c0="")}))
    assert critical_reasons(result) == []


def test_compare__removed_suite_with_a_passing_critical_case__fails(record) -> None:
    base = record({"home": suite(20), "safety": {"s/lock": "PPP", "s/other": "PPP"}}, critical=("s/lock",))
    result = compare(base, record({"home": suite(20)}))
    assert result.outcome == "fail"
    assert critical_reasons(result) == [("s/lock", True)]
    assert "removed-suite" in {r.kind for r in result.reasons}


def test_compare__removed_suite_without_critical_cases__still_only_warns(record) -> None:
    base = record({"home": suite(20), "extra": {"x/a": "PPP"}})
    result = compare(base, record({"home": suite(20)}))
    assert result.outcome == "warn"
    assert result.exit_code == 0


def test_compare__critical_glob_of_the_policy__guards_a_removed_case_too(record) -> None:
    base = record({"home": suite(20)})
    result = compare(base, record({"home": suite(20, c5="")}), critical_cases=("g/c5",))
    assert critical_reasons(result) == [("g/c5", True)]


def test_compare__interrupted_candidate_missing_a_critical_case__incomplete_not_removed(record) -> None:
    base = record({"home": suite(20)}, critical=("g/c0",))
    result = compare(base, record({"home": suite(20, c0="")}, complete=False))
    assert result.outcome == "incomplete"
    assert result.exit_code == 3


EVAL_IDS = [f"evals/eval_refund.py::test_refund[amount-{i}]" for i in range(20)]


@pytest.mark.parametrize(
    ("glob", "flagged"),
    [
        # eval case ids hold brackets: the id itself, as the report prints it, names the case
        (EVAL_IDS[3], [EVAL_IDS[3]]),
        ("*::test_refund[amount-3]", [EVAL_IDS[3]]),
        ("evals/eval_refund.py::test_refund[amount-3*", [EVAL_IDS[3]]),
        ("*[amount-?]", [EVAL_IDS[3]]),
    ],
)
def test_compare__critical_glob_naming_an_eval_case_id__guards_it(
    record, glob: str, flagged: list[str]
) -> None:
    base = record({"evals/eval_refund.py": dict.fromkeys(EVAL_IDS, "P")})
    cand = record({"evals/eval_refund.py": {**dict.fromkeys(EVAL_IDS, "P"), EVAL_IDS[3]: "F"}})
    result = compare(base, cand, critical_cases=(glob,))
    assert critical_reasons(result) == [(cid, True) for cid in flagged]
    assert result.exit_code == (1 if flagged else 0)


def test_compare__critical_glob_with_brackets_naming_no_case__usage_error_naming_it(record) -> None:
    # brackets are text, not a character class: this names no case, so it would guard nothing
    base = record({"evals/eval_refund.py": dict.fromkeys(EVAL_IDS, "P")})
    cand = record({"evals/eval_refund.py": {**dict.fromkeys(EVAL_IDS, "P"), EVAL_IDS[3]: "F"}})
    with pytest.raises(
        UsageError, match=r"'evals/eval_refund.py::test_refund\[amount-0-9\]' matches no case"
    ):
        compare(base, cand, critical_cases=("evals/eval_refund.py::test_refund[amount-0-9]",))


OWN_GLOB = {"home": {"critical_cases": ["g/c0"]}}  # the suite's own gate block names its critical case


@pytest.mark.parametrize(
    ("cand_suites", "cand_gate", "outcome", "flagged"),
    [
        # the pull request drops the glob from the suite's block in the change that breaks the case
        ({"home": suite(20, c0="FFF")}, None, "fail", ["g/c0"]),
        # ... or deletes the case, or the whole suite (its benchmark file) with its block
        ({"home": suite(20, c0="")}, None, "fail", ["g/c0"]),
        ({"other": {"x/a": "PPP"}}, None, "fail", ["g/c0"]),
        # the block kept and the case broken: the plain critical flip (for contrast)
        ({"home": suite(20, c0="FFF")}, OWN_GLOB, "fail", ["g/c0"]),
        # the block dropped, the case still passing: nothing to say but the block change
        ({"home": suite(20)}, None, "warn", []),
    ],
    ids=["glob-dropped", "case-deleted", "suite-deleted", "glob-kept", "glob-dropped-case-passing"],
)
def test_compare__critical_glob_of_the_baselines_own_gate_block__stays_guarded(
    record, cand_suites: dict[str, Any], cand_gate: Any, outcome: str, flagged: list[str]
) -> None:
    base = record({"home": suite(20), "other": {"x/a": "PPP"}}, gate=OWN_GLOB)
    cand = record(cand_suites, gate=cand_gate)
    blocks = {s["id"]: s.get("gate") for s in cand["suites"]}  # the run's blocks, as the CLI reads them
    result = compare_documents(
        base, cand, resolve_policy(repo_config=None, suite_blocks=blocks, overrides={})
    )
    assert [cid for cid, blocking in critical_reasons(result) if blocking] == flagged
    assert result.outcome == outcome
