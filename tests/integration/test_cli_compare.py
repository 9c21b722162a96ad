"""`agent-evals compare` and `agent-evals report` end to end on real run-record files: exit codes and outputs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_evals.cli.main import cli


def record(cases: dict[str, str], *, gate: dict[str, Any] | None = None) -> dict[str, Any]:
    """A run record of one suite 'home'; each case is a string of trial codes (P pass, F fail, E error)."""
    return {
        "schema": "agent-evals/run@1",
        "run": {
            "tool_version": "0.1.0",
            "started_at": "2026-01-01T00:00:00Z",
            "git": {"sha": "abc1234", "ref": "main"},
        },
        "suites": [
            {
                "id": "home",
                "kind": "benchmark",
                "source": "home.yaml",
                "fingerprint": "f1",
                "gate": gate,
                "cases": [
                    {
                        "id": cid,
                        "group": cid.split("/")[0],
                        "name": cid,
                        "trials": [
                            {
                                "passed": c == "P",
                                "error": "timeout" if c == "E" else None,
                                "scores": {
                                    "state": {"passed": c == "P", "expected": "closed", "actual": "open"}
                                },
                            }
                            for c in codes
                        ],
                    }
                    for cid, codes in cases.items()
                ],
            }
        ],
    }


PASSING = {f"doors/c{i}": "P" for i in range(100)}
REGRESSED = {f"doors/c{i}": "P" if i >= 20 else "F" for i in range(100)}
SMALL_DROP = {f"doors/c{i}": "P" if i >= 2 else "F" for i in range(20)}


def write(tmp_path: Path, name: str, doc: Any) -> str:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return str(path)


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_compare__no_regression__exit_0_and_json_verdict(tmp_path: Path) -> None:
    base, cand = write(tmp_path, "b.json", record(PASSING)), write(tmp_path, "c.json", record(PASSING))
    out = tmp_path / "out" / "verdict.json"
    result = run("compare", base, cand, "--json", str(out))
    assert result.exit_code == 0, result.output
    verdict = json.loads(out.read_text())
    assert (verdict["verdict"], verdict["exit_code"]) == ("passed", 0)


def test_compare__significant_regression__exit_1_and_reports_written(tmp_path: Path) -> None:
    base, cand = write(tmp_path, "b.json", record(PASSING)), write(tmp_path, "c.json", record(REGRESSED))
    paths = {k: tmp_path / f"r.{k}" for k in ("md", "xml", "html", "json")}
    result = run(
        "compare", base, cand,
        "--markdown", str(paths["md"]), "--junit", str(paths["xml"]), "--html", str(paths["html"]), "--json", str(paths["json"]),
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert json.loads(paths["json"].read_text())["verdict"] == "failed"
    assert paths["md"].read_text().startswith("<!-- agent-evals:gate:default -->")
    assert "<testsuite" in paths["xml"].read_text() and "<html" in paths["html"].read_text().lower()
    assert "doors/c0" in result.output


def test_compare__inconclusive__exit_0_unless_policy_fails_it(tmp_path: Path) -> None:
    base = write(tmp_path, "b.json", record({f"doors/c{i}": "P" for i in range(20)}))
    cand = write(tmp_path, "c.json", record(SMALL_DROP))
    assert run("compare", base, cand).exit_code == 0
    assert run("compare", base, cand, "--on-inconclusive", "fail").exit_code == 1


def test_compare__policy_file_and_flags__flags_win(tmp_path: Path) -> None:
    base = write(tmp_path, "b.json", record({f"doors/c{i}": "P" for i in range(20)}))
    cand = write(tmp_path, "c.json", record(SMALL_DROP))
    policy = write(tmp_path, "policy.yaml", "gate:\n  on_inconclusive: fail\n")
    assert run("compare", base, cand, "--policy", policy).exit_code == 1
    assert run("compare", base, cand, "--policy", policy, "--on-inconclusive", "warn").exit_code == 0


def test_compare__suite_gate_block_floor__exit_1(tmp_path: Path) -> None:
    base = write(tmp_path, "b.json", record(REGRESSED))
    cand = write(tmp_path, "c.json", record(REGRESSED, gate={"min_pass_rate": 0.9}))
    result = run("compare", base, cand)
    assert result.exit_code == 1


def test_compare__missing_baseline_file__follows_on_missing_baseline(tmp_path: Path) -> None:
    cand = write(tmp_path, "c.json", record(PASSING))
    missing = str(tmp_path / "none.json")
    assert run("compare", missing, cand).exit_code == 0
    assert run("compare", missing, cand, "--on-missing-baseline", "fail").exit_code == 1


@pytest.mark.parametrize(
    ("base_doc", "flags", "message"),
    [
        ("{not json", [], "b.json:1:2: not valid JSON"),
        ({"schema": "other/thing@1"}, [], "'schema' is 'other/thing@1'"),
        (record(PASSING) | {"suites": [{"id": "home", "kind": "x"}]}, [], "'suites.0.kind'"),
        (record(PASSING), ["--max-drop", "2"], "'--max-drop'"),
        (record(PASSING), ["--alpha", "0"], "'--alpha'"),
    ],
)
def test_compare__bad_input__exit_2_with_what_and_where(
    tmp_path: Path, base_doc: Any, flags: list[str], message: str
) -> None:
    base, cand = write(tmp_path, "b.json", base_doc), write(tmp_path, "c.json", record(PASSING))
    result = CliRunner().invoke(cli, ["compare", base, cand, *flags])
    assert result.exit_code == 2
    assert message in result.output and result.output.startswith("error: ")


def test_compare__bad_flag_choice__exit_2(tmp_path: Path) -> None:
    cand = write(tmp_path, "c.json", record(PASSING))
    assert CliRunner().invoke(cli, ["compare", cand, cand, "--on-inconclusive", "maybe"]).exit_code == 2


def test_compare__missing_candidate__exit_2(tmp_path: Path) -> None:
    base = write(tmp_path, "b.json", record(PASSING))
    result = CliRunner().invoke(cli, ["compare", base, str(tmp_path / "gone.json")])
    assert result.exit_code == 2 and "gone.json" in result.output


@pytest.mark.parametrize("fmt", ["md", "junit", "html", "json"])
def test_report__single_run__each_format_exit_0(tmp_path: Path, fmt: str) -> None:
    rec = write(tmp_path, "r.json", record(REGRESSED))
    out = tmp_path / f"report.{fmt}"
    result = run("report", rec, "--format", fmt, "--output", str(out))
    assert result.exit_code == 0, result.output
    assert out.stat().st_size > 0


def test_report__json_to_stdout__single_run_mode(tmp_path: Path) -> None:
    rec = write(tmp_path, "r.json", record(PASSING))
    result = run("report", rec, "--format", "json")
    data = json.loads(result.output)
    assert (data["mode"], data["verdict"]) == ("single_run", "no-baseline")


def test_compare__console_script_process__exit_code_1(tmp_path: Path) -> None:
    base, cand = write(tmp_path, "b.json", record(PASSING)), write(tmp_path, "c.json", record(REGRESSED))
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "agent-evals"), "compare", base, cand],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr


@pytest.mark.parametrize(
    ("flags", "env", "message"),
    [
        (
            ["--alpha", "0.7"],
            {},
            "invalid policy value for '--alpha': Input should be less than 0.5, found 0.7",
        ),
        (["--max-drop", "-1"], {}, "invalid policy value for '--max-drop'"),
        (["--min-pass-rate", "2"], {}, "invalid policy value for '--min-pass-rate'"),
        (["--max-error-rate", "1.5"], {}, "invalid policy value for '--max-error-rate'"),
        (
            [],
            {"AGENT_EVALS_ALPHA": "0.9"},
            "environment variable AGENT_EVALS_ALPHA: invalid policy value for '--alpha'",
        ),
    ],
)
def test_policy_flags__invalid_value__exit_2_same_message_in_compare_and_ci(
    tmp_path: Path, flags: list[str], env: dict[str, str], message: str
) -> None:
    base, cand = tmp_path / "base.json", tmp_path / "cand.json"
    base.write_text(json.dumps(record(PASSING)), encoding="utf-8")
    cand.write_text(json.dumps(record(PASSING)), encoding="utf-8")
    never_run = tmp_path / "never.yaml"  # ci refuses the flag before it would run (and fail on) this
    runs = [["ci", "--baseline", str(base), *flags, str(never_run)]]
    if flags:  # compare takes the flags only from its command line
        runs.append(["compare", str(base), str(cand), *flags])
    for args in runs:
        result = CliRunner().invoke(cli, args, env=env)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output, (args, result.output)
        assert ("error: environment variable" if env else "error: command line:") in result.output


def _emptied(doc: dict[str, Any], how: str) -> dict[str, Any]:
    """``doc`` with no case left: no suite at all, or its suite without cases; run as ``how`` says."""
    doc = json.loads(json.dumps(doc))
    if how == "no-suites":
        doc["suites"] = []
    else:
        doc["suites"][0]["cases"] = []
    if how == "interrupted":
        doc["run"]["complete"] = False
    if how == "shard":
        doc["run"]["shard"] = {"index": 2, "count": 2}
    return doc


@pytest.mark.parametrize(
    ("how", "code"),
    [
        ("no-suites", 2),  # a run whose filter or paths matched nothing: not "no regression"
        ("suite-without-cases", 2),
        ("interrupted", 3),  # stopped before any case finished: incomplete, as before
        ("shard", 3),  # a shard holding no case of the slice: incomplete, as before
    ],
)
def test_compare__candidate_without_any_case__never_passes(tmp_path: Path, how: str, code: int) -> None:
    base = write(tmp_path, "b.json", record(PASSING))
    cand = write(tmp_path, "c.json", _emptied(record(PASSING), how))
    result = CliRunner().invoke(cli, ["compare", base, cand])
    assert result.exit_code == code, result.output
    if code == 2:
        assert result.output.startswith("error: the candidate has no case while the baseline has 100")


def test_compare__baseline_without_any_case__no_baseline_not_an_error(tmp_path: Path) -> None:
    base = write(tmp_path, "b.json", _emptied(record(PASSING), "no-suites"))
    cand = write(tmp_path, "c.json", record(PASSING))
    assert run("compare", base, cand).exit_code == 0
    assert run("compare", base, cand, "--on-missing-baseline", "fail").exit_code == 1


def _reserialised(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=1, sort_keys=True)


def _shard(doc: dict[str, Any]) -> dict[str, Any]:
    doc["run"]["shard"] = {"index": 1, "count": 2}
    doc["run"]["started_at"] = "2025-12-01T00:00:00Z"
    return doc


def _incomplete(doc: dict[str, Any]) -> dict[str, Any]:
    doc["run"]["complete"] = False
    doc["run"]["started_at"] = "2025-12-01T00:00:00Z"
    return doc


def _other_suite(doc: dict[str, Any]) -> dict[str, Any]:
    doc["suites"][0]["id"] = "office"
    doc["run"]["started_at"] = "2025-12-01T00:00:00Z"
    return doc


HISTORY_ATTACKS: dict[str, tuple[Any, str]] = {
    "the candidate's file": (None, "it is the candidate itself"),
    "a byte copy of the candidate": (lambda d: json.dumps(d), "it is the candidate's own run"),
    "the candidate re-serialised": (_reserialised, "it is the candidate's own run"),
    "a shard record": (lambda d: _shard(record(PASSING)), "it is a shard record"),
    "an incomplete record": (lambda d: _incomplete(record(PASSING)), "it is an incomplete record"),
    "a record of other suites": (lambda d: _other_suite(record(PASSING)), "it shares no suite"),
}


@pytest.mark.parametrize("attack", list(HISTORY_ATTACKS))
def test_compare_history__candidate_itself_shard_incomplete_or_other_suites__exit_2_naming_the_file(
    tmp_path: Path, attack: str
) -> None:
    base = write(tmp_path, "b.json", record(PASSING))
    candidate = record(REGRESSED)
    cand = write(tmp_path, "c.json", candidate)
    make, message = HISTORY_ATTACKS[attack]
    history = cand if make is None else write(tmp_path, "h.json", make(json.loads(json.dumps(candidate))))
    result = CliRunner().invoke(cli, ["compare", base, cand, "--history", history])
    assert result.exit_code == 2, result.output
    assert f"--history {history}: {message}" in result.output


def test_compare_history__earlier_complete_baseline__read_and_the_regression_still_fails(
    tmp_path: Path,
) -> None:
    earlier = record(PASSING)
    earlier["run"]["started_at"] = "2025-12-01T00:00:00Z"
    base, cand = write(tmp_path, "b.json", record(PASSING)), write(tmp_path, "c.json", record(REGRESSED))
    result = run("compare", base, cand, "--history", write(tmp_path, "old.json", earlier))
    assert result.exit_code == 1, result.output


@pytest.mark.parametrize(
    ("flag", "name", "said"),
    [
        ("--markdown", "r.md", "Markdown report written to"),
        ("--junit", "r.xml", "JUnit XML written to"),
        ("--html", "r.html", "HTML report written to"),
        ("--json", "r.json", "JSON verdict written to"),
    ],
)
def test_compare__each_report_flag__names_the_file_it_wrote(
    tmp_path: Path, flag: str, name: str, said: str
) -> None:
    base, cand = write(tmp_path, "b.json", record(PASSING)), write(tmp_path, "c.json", record(PASSING))
    out = tmp_path / "out" / name
    result = run("compare", base, cand, flag, str(out))
    assert result.exit_code == 0, result.output
    assert out.is_file() and f"{said} {out}" in result.output.splitlines()


def test_report__output_file__names_the_file_it_wrote(tmp_path: Path) -> None:
    rec = write(tmp_path, "r.json", record(PASSING))
    out = tmp_path / "report.md"
    result = run("report", rec, "--output", str(out))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [f"Report written to {out}"]
