"""The run builder's own verdict reads the summary `compare` would read from the record it wrote."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from agent_evals.record.read import read_summary
from agent_evals.record.summary import RunSummary
from agent_evals.report.terminal_run import render_digest, render_run_summary
from agent_evals.run.session import RunBuilder, execute

EVALS = """
from agent_evals import eval, EvalContext

@eval(dataset="math", cases=[{"id": str(i), "input": i} for i in range(7)], trials=2)
def test_even(ctx: EvalContext):
    ctx.store(usage={"input_tokens": 3, "output_tokens": 1, "cost_usd": 0.5})
    if ctx.input == 5:
        raise RuntimeError("five is broken")
    assert ctx.input % 2 == 0, "odd"

@eval
def test_numeric(ctx: EvalContext):
    ctx.store(scores={"key": "sim", "value": 0.25})
"""


def _facts(summary: RunSummary) -> list[Any]:
    out = []
    for suite in summary.suites:
        view = suite.view
        cases = {cid: (v.group, v.key, v.fraction, v.critical, v.definition) for cid, v in view.cases.items()}
        u = view.usage  # float sums may differ in the last bits: summed case by case, not in one go
        usage = (u.input_tokens, u.output_tokens, round(u.cost_usd or 0, 9), round(u.duration_s, 9), u.trials)
        out.append(
            (suite.header, suite.trial_counts, cases, view.scorers, view.groups, view.dimensions, usage)
        )
    return [summary.run.get("complete"), summary.run.get("shard"), out]


@pytest.mark.parametrize("concurrency", [1, 4])
def test_builder_summary__equals_the_summary_read_back_from_the_written_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, concurrency: int
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "eval_mix.py").write_text(textwrap.dedent(EVALS), encoding="utf-8")
    out = tmp_path / "run.json"
    builder = RunBuilder(env={}, output=out, max_failures=2)
    execute(["eval_mix.py"], builder, concurrency=concurrency)
    builder.finish(complete=True)
    assert _facts(builder.summary()) == _facts(read_summary(out))
    # the counts only: the raw cases were let go as they were written (the record file has them)
    assert {len(v.raw) for s in builder.summary().suites for v in s.view.cases.values()} == {0}
    assert all(v.raw for s in read_summary(out).suites for v in s.view.cases.values())
    # and the terminal summary from the digest is the one rendered from the whole record
    from agent_evals.record.read import read_record

    streamed = render_digest(builder.digest, builder.record_suites, complete=True)
    assert streamed == render_run_summary(read_record(out), max_failures=2)
    assert "Failures: 3 (showing 2)" in streamed


def test_interrupted_builder__writes_the_cases_with_some_trials_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "eval_mix.py").write_text(textwrap.dedent(EVALS), encoding="utf-8")
    builder = RunBuilder(env={}, output=tmp_path / "run.json")
    from agent_evals.run.plan import plan_run

    [suite] = plan_run(["eval_mix.py"], cwd=tmp_path).eval_suites
    builder.add_eval_suite(suite.label, suite.specs, suite_id=suite.suite_id)
    builder.start()
    from agent_evals.evals.result import EvalCaseResult

    builder.add_result(0, 0, EvalCaseResult(input=0))  # one of its two trials
    record = builder.record(complete=False)
    assert record.run.complete is False
    assert [(c.name, len(c.trials)) for c in record.suites[0].cases] == [("test_even[0]", 1)]


def test_builder_summary__of_cases_with_dimensions_added_one_by_one__equals_the_read_back_one(
    tmp_path: Path,
) -> None:
    from agent_evals.record.model import Case, Suite, Trial, TrialScore

    cases = [
        Case(
            id=f"cap/s{i}",
            group=f"cap{i % 2}",
            dimensions={"difficulty": "hard" if i % 3 else "easy", "lang": "en"},
            trials=[Trial(passed=i % 2 == 0, scores={"check": TrialScore(passed=i % 2 == 0)})],
        )
        for i in range(6)
    ]
    builder = RunBuilder(env={}, output=tmp_path / "run.json")
    builder.add_suite(Suite(id="bench", kind="benchmark", source="b.yaml", cases=cases))
    builder.finish(complete=True)
    summary = builder.summary()
    assert summary.suites[0].view.dimensions["lang=en"] == [c.id for c in cases]
    assert _facts(summary) == _facts(read_summary(tmp_path / "run.json"))


def test_run_alone_without_case_diffs__same_reasons_and_rates_as_with_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_evals.gate.compare import compare_documents, single_run
    from agent_evals.gate.policy import resolve_policy
    from agent_evals.report.headline import overall_rate

    monkeypatch.chdir(tmp_path)
    (tmp_path / "eval_mix.py").write_text(textwrap.dedent(EVALS), encoding="utf-8")
    builder = RunBuilder(env={}, output=tmp_path / "run.json")
    execute(["eval_mix.py"], builder)
    builder.finish(complete=True)
    policy = resolve_policy(repo_config=None, suite_blocks={}, overrides={"max_error_rate": 0.05})
    full = single_run(read_summary(tmp_path / "run.json"), policy)
    bare = single_run(builder.summary(), policy, case_detail="none")
    assert [(r.kind, r.message, r.blocking) for r in bare.reasons] == [
        (r.kind, r.message, r.blocking) for r in full.reasons
    ]
    assert any(r.kind == "error-budget" and r.blocking for r in bare.reasons)
    assert overall_rate(bare, "candidate") == overall_rate(full, "candidate")
    assert bare.suites[0].cases == [] and full.suites[0].cases
    with pytest.raises(ValueError, match="a run alone"):
        compare_documents(builder.summary(), builder.summary(), policy, case_detail="none")


def test_builder__eval_cases__each_written_with_its_definition_digest(tmp_path: Path) -> None:
    from agent_evals.core.definition import is_digest

    (tmp_path / "eval_mix.py").write_text(textwrap.dedent(EVALS), encoding="utf-8")
    out = tmp_path / "run.json"
    builder = RunBuilder(env={}, output=out)
    execute([str(tmp_path / "eval_mix.py")], builder)
    builder.finish(complete=True)
    digests = [v.definition for s in builder.summary().suites for v in s.view.cases.values()]
    assert len(digests) == 8 and all(is_digest(d) for d in digests)
    assert len(set(digests)) == 8  # each case its own input: its own digest


def test_builder__a_short_secret_inside_a_digest__does_not_mask_the_digest(tmp_path: Path) -> None:
    """Secret values are masked in benchmark cases as written; a short secret that happens to occur
    in a hex digest must not turn the digest into an unknown one (the case would drop out of the
    redefinition check)."""
    import json

    from agent_evals.record.model import Case, Suite, Trial

    digest = "0123456789abcdef"
    env = {"PIN_PASSWORD": "4567"}
    case = Case(id="cap/s", group="cap", input="pin 4567", definition=digest, trials=[Trial(passed=True)])
    out = tmp_path / "run.json"
    builder = RunBuilder(env=env, output=out)
    builder.add_suite(Suite(id="bench", kind="benchmark", source="b.yaml", cases=[case]))
    builder.finish(complete=True)
    (written,) = json.loads(out.read_text(encoding="utf-8"))["suites"][0]["cases"]
    assert written["input"] == "pin ***"  # still masked elsewhere
    assert written["definition"] == digest
    assert builder.summary().suites[0].view.cases["cap/s"].definition == digest


def test_ci_info__pull_request_event__records_the_head_commit_not_the_merge_commit(tmp_path: Path) -> None:
    from agent_evals.run.facts import ci_info

    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"head": {"sha": "e" * 40}}}))
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_REF": "refs/pull/5/merge",
        "GITHUB_SHA": "d" * 40,
        "GITHUB_EVENT_PATH": str(event),
    }
    info = ci_info(env)
    assert (info["pr"], info["head_sha"]) == (5, "e" * 40)
    assert "head_sha" not in ci_info({**env, "GITHUB_EVENT_PATH": str(tmp_path / "missing.json")})
    assert "head_sha" not in ci_info({**env, "GITHUB_REF": "refs/heads/main"})
