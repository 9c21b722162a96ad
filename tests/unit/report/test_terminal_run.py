"""The terminal run summary: per-group table, pass@k columns, failures with notes, totals line."""

from __future__ import annotations

from agent_evals.record.model import Case, RunInfo, RunRecord, Suite, Trial, TrialScore
from agent_evals.report.terminal_run import render_run_summary, run_pass_rate


def _trial(passed: bool, *, notes: str | None = None, error: str | None = None, graded: bool = True) -> Trial:
    scores = {} if error else {"pass": TrialScore(passed=passed, notes=notes)}
    return Trial(
        passed=passed,
        error=error,
        scores=scores,
        graded=graded,
        traceback="Traceback: line" if error else None,
    )


def _record(*suites: Suite, complete: bool = True) -> RunRecord:
    return RunRecord(run=RunInfo(tool_version="0", started_at="t", complete=complete), suites=list(suites))


def _suite(*cases: Case) -> Suite:
    return Suite(id="evals/eval_a.py", kind="evals", source="evals/eval_a.py", cases=list(cases))


def test_summary__one_trial__table_per_group_then_failures_with_notes() -> None:
    record = _record(
        _suite(
            Case(id="a::ok", group="chat", trials=[_trial(True)]),
            Case(id="a::bad", group="chat", trials=[_trial(False, notes="Should acknowledge the refund")]),
            Case(id="a::boom", group="math", trials=[_trial(False, error="ValueError: x")]),
        )
    )
    text = render_run_summary(record)
    lines = text.splitlines()
    assert lines[0] == "evals/eval_a.py (evals)"
    assert lines[1].split() == ["group", "cases", "passed", "failed", "errors", "pass", "rate"]
    assert lines[2].split() == ["chat", "2", "1", "1", "0", "50.0%"]
    assert lines[3].split() == ["math", "1", "0", "0", "1", "–"]
    assert lines[4].split() == ["(all)", "3", "1", "1", "1", "50.0%"]
    assert "pass@" not in text
    assert "  FAIL a::bad\n      failed: Should acknowledge the refund" in text
    assert "  ERROR a::boom\n      error: ValueError: x" in text
    assert "Traceback" not in text
    assert (
        lines[-1]
        == "Run: 3 cases, 1 passed, 1 failed, 1 errored; 1 of 3 trials errored (33.3%); pass rate 50.0%"
    )


def test_summary__several_trials__shows_pass_at_k_and_pass_hat_k() -> None:
    record = _record(
        _suite(Case(id="a::flaky", group="g", trials=[_trial(True), _trial(True), _trial(False, notes="n")]))
    )
    text = render_run_summary(record)
    assert "evals/eval_a.py (evals, 3 trials per case)" in text
    assert text.splitlines()[1].split()[-2:] == ["pass@3", "pass^3"]
    assert text.splitlines()[2].split() == ["g", "1", "0", "1", "0", "66.7%", "100.0%", "0.0%"]
    assert "FAIL a::flaky (2/3 trials passed)" in text


def test_summary__numeric_only_cases__counted_apart_and_left_out_of_the_rate() -> None:
    record = _record(
        _suite(
            Case(id="a::ok", group="g", trials=[_trial(True)]),
            Case(
                id="a::num",
                group="g",
                trials=[Trial(passed=False, graded=False, scores={"sim": TrialScore(value=0.3)})],
            ),
        )
    )
    text = render_run_summary(record)
    assert text.splitlines()[1].split() == [
        "group",
        "cases",
        "passed",
        "failed",
        "errors",
        "numeric",
        "pass",
        "rate",
    ]
    assert "numeric-only (not in the pass rate)" in text and "FAIL" not in text
    assert run_pass_rate(record) == 1.0


def test_summary__verbose_prints_traceback_and_incomplete_runs_say_so() -> None:
    record = _record(_suite(Case(id="a::boom", group="g", trials=[_trial(False, error="E")])), complete=False)
    text = render_run_summary(record, verbose=True)
    assert "        Traceback: line" in text
    assert text.rstrip().endswith("(interrupted: partial results)")


def test_summary__failure_notes_are_flattened_wrapped_to_80_columns_and_cut() -> None:
    record = _record(
        _suite(
            Case(
                id="a::long-" + "y" * 100,
                group="g",
                trials=[_trial(False, notes="line1\nline2 " + "words " * 30 + "x" * 500)],
            )
        )
    )
    lines = render_run_summary(record).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("      failed: line1 line2 words"))
    assert lines[start + 2].endswith("…") and not lines[start + 3].startswith("      ")
    assert all(len(line) <= 80 for line in lines if not line.startswith("Run: "))
    assert any(line.startswith("  FAIL a::long-yyy") and line.endswith("…") for line in lines)


def test_summary__mixed_trial_counts__header_gives_the_range_and_says_what_pass_at_k_covers() -> None:
    record = _record(
        _suite(
            Case(id="a::three", group="g", trials=[_trial(True), _trial(True), _trial(False, notes="n")]),
            Case(id="a::once", group="g", trials=[_trial(False, notes="n")]),
        )
    )
    lines = render_run_summary(record).splitlines()
    assert lines[0] == "evals/eval_a.py (evals, 1-3 trials per case)"
    assert "  pass@3 and pass^3 cover only the cases with 3 valid trials" in lines


def test_summary__long_group_names_are_cut_so_tables_fit_80_columns() -> None:
    long = "a-very-long-dataset-name-that-someone-generated-from-a-path-" * 2
    case = Case(id=f"{long}/c", group=long, trials=[_trial(True, notes=None)] * 3)
    text = render_run_summary(_record(_suite(case)))
    table = [line for line in text.splitlines() if line.startswith("  ")]
    assert table and all(len(line) <= 80 for line in table)
    assert any(line.startswith("  a-very-long") and "…" in line for line in table)
