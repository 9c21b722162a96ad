"""run_paths: eval files become suites of the run record, with selection, trials, usage and secrets."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from agent_evals.core.signals import forget_signal
from agent_evals.errors import EvalFileError, UsageError
from agent_evals.record.model import RunRecord
from agent_evals.run.session import RunBuilder, match_case_id, run_paths
from agent_evals.schemas import load_run_schema

SAMPLE = """
from agent_evals import eval, EvalContext

@eval(input="hi", dataset="chat", labels=["smoke"])
def test_greets(ctx: EvalContext):
    ctx.output = "hello"
    ctx.store(usage={"input_tokens": 5, "output_tokens": 2, "cost_usd": 0.01})

@eval(dataset="math", cases=[{"id": "two", "input": 2}, {"id": "three", "input": 3}])
def test_even(ctx: EvalContext):
    assert ctx.input % 2 == 0, "odd"

@eval
def test_numbers(ctx: EvalContext):
    ctx.store(scores={"key": "sim", "value": 0.4})
"""


def _write(root: Path, rel: str, source: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def _validate(record: RunRecord) -> None:
    import jsonschema

    jsonschema.validate(json.loads(record.to_json()), load_run_schema())


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "evals/eval_sample.py", SAMPLE)
    return tmp_path


def _builder(**env: str) -> RunBuilder:
    return RunBuilder(env=env)


def test_run_paths__eval_file_becomes_a_suite_with_stable_case_ids(project: Path) -> None:
    record = run_paths(["evals"], builder=_builder())
    _validate(record)
    assert record.run.complete is True and record.run.finished_at
    (suite,) = record.suites
    assert (suite.id, suite.kind, suite.source) == ("evals/eval_sample.py", "evals", "evals/eval_sample.py")
    assert suite.fingerprint
    assert [(c.id, c.group) for c in suite.cases] == [
        ("evals/eval_sample.py::test_greets", "chat"),
        ("evals/eval_sample.py::test_even[two]", "math"),
        ("evals/eval_sample.py::test_even[three]", "math"),
        ("evals/eval_sample.py::test_numbers", "eval_sample"),
    ]
    greets, two, three, numbers = suite.cases
    assert greets.location is not None and greets.location.line == 4
    assert greets.input == "hi" and greets.labels == ["smoke"]
    assert greets.trials[0].usage is not None
    assert greets.trials[0].usage.model_dump(exclude_none=True) == {
        "input_tokens": 5,
        "output_tokens": 2,
        "cost_usd": 0.01,
    }
    assert greets.trials[0].output == "hello"
    assert two.trials[0].passed and not three.trials[0].passed
    assert three.trials[0].scores["pass"].notes == "odd"
    assert numbers.trials[0].passed is False and numbers.trials[0].graded is False
    assert numbers.trials[0].scores["sim"].value == 0.4


@pytest.mark.parametrize(
    ("kwargs", "ids"),
    [
        ({"datasets": ["math"]}, ["test_even[two]", "test_even[three]"]),
        ({"labels": ["smoke"]}, ["test_greets"]),
        ({"case_filter": "*test_even[t*]"}, ["test_even[two]", "test_even[three]"]),
        ({"case_filter": "[three]"}, ["test_even[three]"]),
    ],
)
def test_run_paths__selection_flags_choose_cases(
    project: Path, kwargs: dict[str, object], ids: list[str]
) -> None:
    record = run_paths(["evals"], builder=_builder(), **kwargs)  # type: ignore[arg-type]
    assert [c.name for c in record.suites[0].cases] == ids


def test_run_paths__selection_matching_nothing__is_a_usage_error(project: Path) -> None:
    with pytest.raises(UsageError) as raised:
        run_paths(["evals"], datasets=["nope"], case_filter="zz*", builder=_builder())
    message = str(raised.value)
    assert "no evals in evals match --filter 'zz*' --dataset 'nope'" in message
    assert (
        "found 4 eval(s): datasets chat, eval_sample, math; labels smoke; ids such as test_greets" in message
    )


def test_run_paths__trials_override_gives_k_trials_per_case(project: Path) -> None:
    record = run_paths(["evals"], trials=3, concurrency=2, builder=_builder())
    assert {len(c.trials) for c in record.suites[0].cases} == {3}


def test_run_paths__secret_env_values_never_reach_the_record(project: Path) -> None:
    _write(
        project,
        "eval_leak.py",
        """
        import os
        from agent_evals import eval, EvalContext

        @eval(input="token sk-live-abcdef")
        def test_leak(ctx: EvalContext):
            ctx.output = {"echo": "sk-live-abcdef"}
            raise RuntimeError("auth failed for sk-live-abcdef")
        """,
    )
    record = run_paths(["eval_leak.py"], builder=_builder(OPENAI_API_KEY="sk-live-abcdef"))
    text = record.to_json()
    assert "sk-live-abcdef" not in text
    assert "RuntimeError: auth failed for ***" in text


def test_run_paths__git_and_ci_facts_come_from_the_environment(project: Path) -> None:
    env = {
        "GITHUB_SHA": "abc123",
        "GITHUB_REF": "refs/pull/17/merge",
        "GITHUB_ACTIONS": "true",
        "GITHUB_RUN_ID": "99",
    }
    record = run_paths(["evals"], builder=_builder(**env))
    assert (record.run.git.sha, record.run.git.ref) == ("abc123", "refs/pull/17/merge")
    assert (record.run.ci.provider, record.run.ci.run_id, record.run.ci.pr) == ("github", "99", 17)


def test_run_paths__import_failure_is_eval_file_error_naming_the_file(project: Path) -> None:
    _write(project, "eval_bad.py", "import nowhere_to_be_found\n")
    with pytest.raises(EvalFileError, match=r"eval_bad\.py: failed to import: ModuleNotFoundError"):
        run_paths(["eval_bad.py"], builder=_builder())


def test_run_paths__no_path__uses_benchmarks_and_evals_folders_or_explains(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match="no benchmarks/ or evals/ folder"):
        run_paths([], builder=_builder())
    source = "from agent_evals import eval\n\n@eval\ndef test_ok():\n    pass\n"
    _write(tmp_path, "benchmarks/eval_default.py", source)
    record = run_paths([], builder=_builder())
    assert [s.id for s in record.suites] == ["benchmarks/eval_default.py"]
    _write(tmp_path, "evals/eval_more.py", source)
    record = run_paths([], builder=_builder())
    assert [s.id for s in record.suites] == ["benchmarks/eval_default.py", "evals/eval_more.py"]


def test_run_paths__interrupted_run__builder_keeps_finished_cases_marked_incomplete(project: Path) -> None:
    _write(
        project,
        "eval_stop.py",
        """
        from agent_evals import eval

        @eval
        def test_first():
            pass

        @eval
        def test_second():
            # a real Ctrl-C arrives here: the handler notes the signal, then the interrupt is raised
            import signal

            from agent_evals.core.signals import note_signal

            note_signal(signal.SIGINT)
            raise KeyboardInterrupt

        @eval
        def test_third():
            pass
        """,
    )
    builder = _builder()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_paths(["eval_stop.py"], builder=builder)
    finally:
        forget_signal()
    record = builder.record(complete=False)
    _validate(record)
    assert record.run.complete is False
    assert [c.name for c in record.suites[0].cases] == ["test_first"]


@pytest.mark.parametrize(
    ("case_id", "pattern", "matches"),
    [
        ("a.py::f[x]", "f[x]", True),
        ("a.py::f[x]", "*::f[*]", True),
        ("a.py::f[x]", "*::g*", False),
        ("a.py::f[x]", "a.py::f", True),
        ("a.py::f[y]", "*[x]", False),
    ],
)
def test_match_case_id__glob_with_literal_brackets_or_substring(
    case_id: str, pattern: str, matches: bool
) -> None:
    assert match_case_id(case_id, pattern) is matches


def test_run_paths__timeout_override_applies_to_every_eval(project: Path) -> None:
    _write(
        project,
        "eval_slow.py",
        """
        import asyncio
        from agent_evals import eval

        @eval(timeout=30)
        async def test_slow():
            await asyncio.sleep(5)
        """,
    )
    record = run_paths(["eval_slow.py"], timeout_s=0.05, builder=_builder())
    trial = record.suites[0].cases[0].trials[0]
    assert not trial.passed
    assert re.fullmatch(r"timed out after 0\.05s \(waited 0\.\d\ds\)", trial.error or "")


def test_run_builder__added_suites_are_redacted_too() -> None:
    from agent_evals.record.model import Case, Suite, Trial

    builder = _builder(SERVICE_TOKEN="tok-123456")
    leaky = Case(id="cap/s1", group="cap", trials=[Trial(passed=False, error='401 for "tok-123456"')])
    builder.add_suite(Suite(id="bench", kind="benchmark", source="b.yaml", cases=[leaky]))
    record = builder.record(complete=True)
    assert record.suites[0].cases[0].trials[0].error == '401 for "***"'
