"""Policy files and flags explain themselves: file:line, did-you-mean, percentage slips, unmatched globs."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_evals.cli.main import cli
from agent_evals.errors import PolicyError
from agent_evals.gate.policy import read_config_block, resolve_policy

REC = {
    "schema": "agent-evals/run@1",
    "run": {"tool_version": "0.1.0", "started_at": "2026-01-01T00:00:00Z"},
    "suites": [
        {
            "id": "home",
            "kind": "benchmark",
            "source": "home.yaml",
            "fingerprint": "f1",
            "cases": [
                {"id": f"doors/c{i}", "group": "doors", "trials": [{"passed": True}]} for i in range(10)
            ],
        }
    ],
}


def _invoke(args: list[str], cwd: Path) -> Any:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(cli, args)
    finally:
        os.chdir(old)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "gate:\n  max_dorp: 0.1\n",
            r"agent-evals\.yaml:2:3: .*'gate\.max_dorp': unknown key; did you mean 'max_drop'\?",
        ),
        (
            "gate:\n  overrides:\n    home/doors:\n      min_pass_rat: 0.9\n",
            r"agent-evals\.yaml:4:7: .*'gate\.overrides\.home/doors\.min_pass_rat'.*did you mean 'min_pass_rate'\?",
        ),
        (
            "gate:\n  alpha: 0.05\n  max_drop: 5\n",
            r"agent-evals\.yaml:3:3: .*did you mean 0\.05 \(5 points\)\?",
        ),
        ("gate:\n  min_pass_rate: 90\n", r"did you mean 0\.9 \(90 points\)\?"),
        ("gate:\n  max_drop: [1\n", r"cannot read policy from .*agent-evals\.yaml:3:1: invalid YAML"),
        ("gate:\n  on_inconclusive: maybe\n", r"agent-evals\.yaml:2:3: .*'gate\.on_inconclusive'"),
    ],
)
def test_repo_config_problem__located_with_a_hint(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "agent-evals.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PolicyError, match=message):
        read_config_block(path)


@pytest.mark.parametrize("text", ["", "# only a comment\n", "gate:\n"])
def test_empty_repo_config__is_no_policy_not_an_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "agent-evals.yaml"
    path.write_text(text, encoding="utf-8")
    assert read_config_block(path).settings() == {}


@pytest.mark.parametrize(
    ("flag", "value", "hint"),
    [
        ("--max-drop", "5", "did you mean 0.05 (5 points)?"),
        ("--min-pass-rate", "80", "did you mean 0.8 (80 points)?"),
    ],
)
def test_compare__percentage_flag__exit_2_hinting_the_fraction(
    tmp_path: Path, flag: str, value: str, hint: str
) -> None:
    (tmp_path / "r.json").write_text(json.dumps(REC), encoding="utf-8")
    done = _invoke(["compare", "r.json", "r.json", flag, value], tmp_path)
    assert done.exit_code == 2, done.output
    assert hint in done.output and f"'{flag}'" in done.output


def test_flag_over_100__no_fraction_hint() -> None:
    with pytest.raises(PolicyError) as caught:
        resolve_policy(repo_config=None, suite_blocks={}, overrides={"max_drop": 500})
    assert "did you mean" not in str(caught.value)


@pytest.mark.parametrize(
    ("pattern", "warned", "suggestion"),
    [
        ("home/doors", False, None),
        ("home", False, None),
        ("hom*", False, None),
        ("home/dors", True, "home/doors"),
        ("house/*", True, None),
    ],
)
def test_compare__override_matching_nothing__is_a_usage_error(
    tmp_path: Path, pattern: str, warned: bool, suggestion: str | None
) -> None:
    # it used to be a warning (exit 0): the stricter knobs of a misspelt glob silently applied to nothing
    (tmp_path / "r.json").write_text(json.dumps(REC), encoding="utf-8")
    (tmp_path / "agent-evals.yaml").write_text(
        f"gate:\n  overrides:\n    '{pattern}':\n      min_pass_rate: 0.5\n", encoding="utf-8"
    )
    done = _invoke(["compare", "r.json", "r.json"], tmp_path)
    assert done.exit_code == (2 if warned else 0), done.output
    line = f"agent-evals.yaml: override '{pattern}' matches no suite or group of this run"
    assert (line in done.output) is warned
    assert ("error: " in done.output) is warned
    if suggestion:
        assert f"did you mean '{suggestion}'?" in done.output


@pytest.mark.parametrize(
    ("typed", "meant"), [("valdate", "validate"), ("comapre", "compare"), ("lst", "list")]
)
def test_unknown_command__exit_2_with_did_you_mean(typed: str, meant: str) -> None:
    done = CliRunner().invoke(cli, [typed])
    assert done.exit_code == 2
    assert f"No such command '{typed}'. Did you mean '{meant}'?" in done.output


def test_unknown_command_far_from_any__lists_the_commands() -> None:
    done = CliRunner().invoke(cli, ["zzzzzz"])
    assert done.exit_code == 2
    assert "Did you mean" not in done.output and "Commands: ci, compare, init, list" in done.output
