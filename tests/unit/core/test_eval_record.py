"""EvalResult.to_run_record: the library layer reaches the gate; an errored example never becomes a pass."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from agent_evals import Score, TaskResult, run_eval_async
from agent_evals.adapters.platforms.local import LocalConfig
from agent_evals.cli.main import cli
from agent_evals.core.types import EvalResult, ExampleData
from agent_evals.record.read import parse_record
from agent_evals.record.store import write_record
from agent_evals.schemas import load_run_schema


def answer(prompt: Any) -> TaskResult:
    if prompt == "crash":
        raise RuntimeError("agent down")
    return TaskResult(output=str(prompt).upper(), context={"usage": {"input_tokens": 3, "output_tokens": 1}})


def shouts(result: TaskResult, expected: Any = None) -> Score:
    ok = result.output.isupper()
    return Score(name="shouts", value=float(ok), passed=ok)


def picky(result: TaskResult, expected: Any = None) -> Score:
    if result.output == "BOOM":
        raise ValueError("scorer broke")
    return Score(name="picky", value=1.0, passed=result.output != "NO")


def _run(inputs: list[tuple[Any, dict[str, Any]]], platform: Any = None) -> EvalResult:
    dataset = [ExampleData(input=value, metadata=meta) for value, meta in inputs]
    return asyncio.run(run_eval_async(answer, dataset, [shouts, picky], platform=platform))


def test_to_run_record__case_ids_from_metadata_id_else_input_hash_duplicates_numbered() -> None:
    result = _run([("a", {"id": "first"}), ("b", {"id": "first"}), ("c", {}), ("c", {}), ("d", {"id": 7})])
    record = result.to_run_record(suite_id="support")
    ids = [c.id for c in record.suites[0].cases]
    assert ids[:2] == ["first", "first#2"]
    assert ids[2].startswith("input-") and ids[3] == f"{ids[2]}#2" and ids[4] == "7"
    again = _run([("c", {})]).to_run_record(suite_id="support")
    assert again.suites[0].cases[0].id == ids[2]  # the same input hashes to the same id in every run


@pytest.mark.parametrize(
    ("value", "passed", "errored"),
    [
        ("yes", True, False),
        ("no", False, False),  # a failing score is a failure
        ("crash", False, True),  # the task raised: an errored trial, not a pass and not a failure
        ("boom", False, True),  # a scorer raised: errored too
    ],
)
def test_to_run_record__trial_verdict_follows_the_library_and_errors_stay_errors(
    value: str, passed: bool, errored: bool
) -> None:
    result = _run([(value, {"id": "x"})])
    assert result.examples[0].passed is passed
    (trial,) = result.to_run_record().suites[0].cases[0].trials
    assert trial.passed is passed
    assert (trial.error is not None) is errored


def test_to_run_record__example_without_scores_is_not_a_pass() -> None:
    dataset = [ExampleData(input="a", metadata={"id": "a"})]
    result = asyncio.run(run_eval_async(answer, dataset, [lambda r, e=None: True]))
    (trial,) = result.to_run_record().suites[0].cases[0].trials
    assert trial.passed is False


def test_to_run_record__valid_against_the_schema_with_groups_usage_and_fingerprint() -> None:
    result = _run([("a", {"id": "a", "dataset": "greetings", "labels": ["smoke"]}), ("b", {"id": "b"})])
    record = result.to_run_record(suite_id="support", group="misc", agent_name="bot", agent_version="2")
    data = json.loads(record.to_json())
    jsonschema.validate(data, load_run_schema())
    parse_record(data)
    suite = record.suites[0]
    assert (suite.id, suite.kind, suite.agent.name, suite.agent.version) == ("support", "evals", "bot", "2")
    assert [c.group for c in suite.cases] == ["greetings", "misc"]
    assert suite.cases[0].labels == ["smoke"]
    usage = suite.cases[0].trials[0].usage
    assert usage is not None and usage.input_tokens == 3
    assert suite.fingerprint


def test_to_run_record__compare_gates_two_library_runs(tmp_path: Path) -> None:
    ids = [f"case-{i}" for i in range(40)]
    base = _run([("ok", {"id": i}) for i in ids]).to_run_record()
    cand = _run([("no" if n < 20 else "ok", {"id": i}) for n, i in enumerate(ids)]).to_run_record()
    write_record(tmp_path / "base.json", base)
    write_record(tmp_path / "cand.json", cand)
    same = CliRunner().invoke(cli, ["compare", str(tmp_path / "base.json"), str(tmp_path / "base.json")])
    assert same.exit_code == 0, same.output
    worse = CliRunner().invoke(cli, ["compare", str(tmp_path / "base.json"), str(tmp_path / "cand.json")])
    assert worse.exit_code == 1, worse.output


def test_to_run_record__secrets_in_the_environment_are_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-value-123456")
    record = _run([("sk-test-secret-value-123456", {"id": "s"})]).to_run_record()
    assert "sk-test-secret-value-123456" not in record.to_json()


def test_local_config_result__converts_and_its_files_are_explained_by_report(tmp_path: Path) -> None:
    result = _run([("a", {"id": "a"})], platform=LocalConfig(experiment="lib", output_dir=tmp_path))
    assert result.to_run_record().suites[0].cases[0].trials[0].passed
    folder = Path(result.experiment_url or "")
    for name in ("metadata.json", "summary.json"):
        done = CliRunner().invoke(cli, ["report", str(folder / name)])
        assert done.exit_code == 2, done.output
        assert "not a run record" in done.output and "EvalResult.to_run_record()" in done.output


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"pass_rates": {}, "scores": {}, "examples": [], "summary": {}}, "is an EvalResult"),
        ({"schema": "agent-evals/verdict@1", "verdict": "passed"}, "is a `compare --format json` verdict"),
        ({"schema": "agent-evals/run@9", "run": {}}, "Upgrade agent-evals"),
        ({"hello": 1}, "'schema' is None: not an agent-evals run record"),
    ],
)
@pytest.mark.parametrize("command", ["report", "compare"])
def test_report_and_compare__non_run_record_json__exit_2_saying_what_to_do(
    tmp_path: Path, document: dict[str, Any], message: str, command: str
) -> None:
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    args = [command, str(path)] if command == "report" else [command, str(path), str(path)]
    done = CliRunner().invoke(cli, args)
    assert done.exit_code == 2, done.output
    assert message in done.output


def _digest_of(value: Any, expected: Any = None) -> str | None:
    from agent_evals.core.types import ExpectedResult

    reference = None if expected is None else ExpectedResult(expected=expected)
    data = [ExampleData(input=value, expected=reference, metadata={"id": "case"})]
    result = asyncio.run(run_eval_async(answer, data, [shouts]))
    return result.to_run_record(suite_id="s").suites[0].cases[0].definition


def test_to_run_record__definition_digest__follows_input_and_expected_only() -> None:
    """A library-layer case whose expected answer changed is a redefined case to the gate."""
    first = _digest_of("hi", "HI")
    assert first is not None and len(first) == 16
    assert _digest_of("hi", "HI") == first
    assert _digest_of("hi", "hi") != first
    assert _digest_of("hello", "HI") != first


def _python_dump(record: Any, **kwargs: Any) -> str:
    return json.dumps(record.model_dump(**kwargs))


def _json_dump(record: Any, **kwargs: Any) -> str:
    text: str = record.model_dump_json(**kwargs)
    return text


@pytest.mark.parametrize(
    ("dump", "kwargs"),
    [
        pytest.param(_python_dump, {}, id="model_dump()"),
        pytest.param(_python_dump, {"mode": "json"}, id="model_dump(mode=json)"),
        pytest.param(_python_dump, {"by_alias": False}, id="model_dump(by_alias=False)"),
        pytest.param(_python_dump, {"by_alias": True}, id="model_dump(by_alias=True)"),
        pytest.param(_python_dump, {"mode": "json", "exclude_none": True}, id="model_dump(exclude_none)"),
        pytest.param(_json_dump, {}, id="model_dump_json()"),
        pytest.param(_json_dump, {"indent": 2}, id="model_dump_json(indent=2)"),
        pytest.param(_json_dump, {"by_alias": False}, id="model_dump_json(by_alias=False)"),
        pytest.param(_json_dump, {"by_alias": True}, id="model_dump_json(by_alias=True)"),
    ],
)
def test_to_run_record__however_pydantic_dumps_it__compare_reads_the_file_as_a_record(
    tmp_path: Path, dump: Any, kwargs: dict[str, Any]
) -> None:
    ids = [f"case-{i}" for i in range(20)]
    base = _run([("ok", {"id": i}) for i in ids]).to_run_record()
    worse = _run([("no" if n < 10 else "ok", {"id": i}) for n, i in enumerate(ids)]).to_run_record()
    for name, record in (("base.json", base), ("worse.json", worse)):
        (tmp_path / name).write_text(dump(record, **kwargs), encoding="utf-8")
    data = json.loads((tmp_path / "base.json").read_text(encoding="utf-8"))
    assert data["schema"] == "agent-evals/run@1" and "schema_" not in data
    jsonschema.validate(data, load_run_schema())
    write_record(tmp_path / "written.json", base)
    same = CliRunner().invoke(cli, ["compare", str(tmp_path / "written.json"), str(tmp_path / "base.json")])
    assert same.exit_code == 0, same.output
    gated = CliRunner().invoke(cli, ["compare", str(tmp_path / "base.json"), str(tmp_path / "worse.json")])
    assert gated.exit_code == 1, gated.output
