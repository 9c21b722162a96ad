"""What is measured cannot be changed to hide a drop: the attacks of a regressing pull request, through
`agent-evals compare` and `agent-evals ci` (against the loopback GitHub server)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from test_cli_ci import ACCEPT, AGENT, CASES, Harness, _comments

from agent_evals.cli.main import cli
from servers.github_server import GitHubServer

# -- compare ---------------------------------------------------------------------------------------


def record(cases: dict[str, str]) -> dict[str, Any]:
    """A run record of one suite 'home'; each case a string of trial codes (P pass, F fail)."""
    return {
        "schema": "agent-evals/run@1",
        "run": {"tool_version": "0.1.0", "started_at": "2026-01-01T00:00:00Z", "git": {"sha": "abc1234"}},
        "suites": [
            {
                "id": "home",
                "kind": "benchmark",
                "source": "home.yaml",
                "fingerprint": "f1",
                "cases": [
                    {
                        "id": cid,
                        "group": cid.split("/")[0],
                        "name": cid,
                        "trials": [
                            {"passed": c == "P", "error": None, "scores": {"state": {"passed": c == "P"}}}
                            for c in codes
                        ],
                    }
                    for cid, codes in cases.items()
                ],
            }
        ],
    }


BASE = {f"doors/c{i}": "P" for i in range(20)}
KEPT = {f"doors/c{i}": "P" for i in range(10)}

ATTACKS = {
    # every case renamed (the suite used to be "not comparable", exit 2, and ci then passed it as "no baseline")
    "rename-every-case": ({f"doors/r{i}": "P" for i in range(20)}, [], 1, "every case renamed or replaced"),
    # 100% -> 50% by renaming the cases that now fail: they never entered the paired test
    "rename-failing-cases": (
        {**KEPT, **{f"doors/n{i}": "F" for i in range(10)}},
        [],
        1,
        "pass rate dropped over renamed or replaced cases",
    ),
    # the failing cases dropped: named in the headline, a warning by default ...
    "drop-failing-cases": (
        KEPT,
        [],
        0,
        "10 cases removed: home: doors/c10, home: doors/c11, home: doors/c12",
    ),
    # ... a failure when the policy says so
    "drop-failing-cases-policy-fail": (KEPT, ["--on-removed-cases", "fail"], 1, "10 cases removed"),
    # three trials lowered to one, so a broken case reads "inconclusive"
    "lower-trials": ({f"doors/c{i}": "P" for i in range(20)}, [], 1, "trials 3 -> 1"),
    "lower-trials-policy-warn": (
        {f"doors/c{i}": "P" for i in range(20)},
        ["--on-fewer-trials", "warn"],
        0,
        "trials 3 -> 1",
    ),
    # only adding cases is reported, never gated
    "only-add-cases": ({**BASE, **{f"doors/n{i}": "F" for i in range(10)}}, [], 0, "no regression"),
}


@pytest.mark.parametrize(("cand", "flags", "code", "said"), ATTACKS.values(), ids=ATTACKS.keys())
def test_compare__pull_request_changes_what_is_measured__the_verdict_shows_it(
    tmp_path: Path, cand: dict[str, str], flags: list[str], code: int, said: str
) -> None:
    trials = "PPP" if said.startswith("trials") else "P"
    base_path, cand_path = tmp_path / "b.json", tmp_path / "c.json"
    base_path.write_text(json.dumps(record({cid: trials for cid in BASE})))
    cand_path.write_text(json.dumps(record(cand)))
    verdict = tmp_path / "verdict.json"
    result = CliRunner().invoke(
        cli, ["compare", str(base_path), str(cand_path), "--json", str(verdict), *flags]
    )
    assert result.exit_code == code, result.output
    headline = json.loads(verdict.read_text())["headline"]
    assert said in headline
    assert "no baseline" not in headline


@pytest.mark.parametrize(
    ("policy", "glob"),
    [
        ("gate:\n  critical_cases: ['doors/c2O']\n", "doors/c2O"),
        ("gate:\n  overrides:\n    'home/door':\n      max_drop: 0.01\n", "home/door"),
    ],
    ids=["critical-glob", "override-glob"],
)
def test_compare__glob_matching_nothing_on_either_side__exit_2_naming_it(
    tmp_path: Path, policy: str, glob: str
) -> None:
    base_path, cand_path, policy_path = tmp_path / "b.json", tmp_path / "c.json", tmp_path / "p.yaml"
    base_path.write_text(json.dumps(record(BASE)))
    cand_path.write_text(json.dumps(record(BASE)))
    policy_path.write_text(policy)
    result = CliRunner().invoke(
        cli, ["compare", str(base_path), str(cand_path), "--policy", str(policy_path)]
    )
    assert result.exit_code == 2, result.output
    assert f"'{glob}'" in result.output
    assert ("doors/c2" in result.output) if glob.startswith("doors") else ("home/doors" in result.output)


# -- ci ------------------------------------------------------------------------------------------------


def bench(ids: list[str], *, runs: int = 1, gate: str = "") -> str:
    lines = ["benchmark: tiny", "agent: tiny_agent:answer", "execution:", f"  runs_per_scenario: {runs}"]
    lines += ["capabilities:", "  - name: math", "    scenarios:"]
    for case in ids:  # the prompt stays the case's old name: a renamed case asks the same
        prompt = case.replace("r", "c")
        lines += [f"      - id: {case}", f"        prompt: {prompt}", "        success:"]
        lines += ["          output: {contains: ok}"]
    return "\n".join(lines) + "\n" + gate


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    with GitHubServer() as github:
        github.state.runs["gate.yml"] = []
        github.state.labels[5] = []
        github.state.merge_bases[f"{'b' * 40}...{'e' * 40}"] = ("d" * 40, "2026-01-02T00:00:00Z")
        yield Harness(tmp_path, github)


def _workspace(h: Harness, text: str) -> None:
    work = h.tmp / "ws"
    work.mkdir(exist_ok=True)
    (work / "tiny_agent.py").write_text(AGENT)
    (work / "bench.yaml").write_text(text)


RENAMED = [c.replace("c", "r") for c in CASES]

CI_ATTACKS = {
    "rename-every-case": (bench(RENAMED), (), 1, "every case renamed or replaced"),
    "rename-failing-cases": (bench(CASES[:10] + RENAMED[10:]), tuple(CASES[10:]), 1, "renamed or replaced"),
    "drop-failing-cases": (bench(CASES[:10]), (), 0, "10 cases removed: tiny: math/c10"),
    "lower-trials": (bench(CASES, runs=1), (), 1, "trials 3 -> 1"),
}


@pytest.mark.parametrize(("pr_bench", "fail", "code", "said"), CI_ATTACKS.values(), ids=CI_ATTACKS.keys())
def test_ci__pull_request_changes_what_is_measured__the_comment_shows_it(
    h: Harness, pr_bench: str, fail: tuple[str, ...], code: int, said: str
) -> None:
    _workspace(h, bench(CASES, runs=3 if said.startswith("trials") else 1))
    h.add_baseline_run(h.baseline_zip())
    (h.tmp / "ws" / "bench.yaml").write_text(pr_bench)
    result = h.run("--on-missing-baseline", "warn", fail=fail)
    assert result.code == code, result.stdout + result.stderr
    [comment] = _comments(h)
    headline = comment["body"].splitlines()[1]
    assert said in headline, headline
    assert "no baseline" not in headline and result.outputs["status"] != "no-baseline"


def test_ci__critical_glob_matching_nothing__exit_2_naming_it_and_the_closest_ids(h: Harness) -> None:
    _workspace(h, bench(CASES, gate="gate:\n  critical_cases: ['math/c2*']\n"))
    result = h.run()
    assert result.code == 2, result.stdout + result.stderr
    assert "'math/c2*'" in result.stderr and "math/c" in result.stderr


@pytest.mark.parametrize("attack", ["rename-every-case", "rename-failing-cases", "lower-trials"])
def test_ci__change_of_what_is_measured_accepted_by_label__passes_recorded_as_accepted(
    h: Harness, attack: str
) -> None:
    pr_bench, fail, _, _ = CI_ATTACKS[attack]
    _workspace(h, bench(CASES, runs=3 if attack == "lower-trials" else 1))
    h.add_baseline_run(h.baseline_zip())
    (h.tmp / "ws" / "bench.yaml").write_text(pr_bench)
    h.github.state.labels[5] = [ACCEPT]
    result = h.run(fail=fail, payload=h.pr_event(labels=(ACCEPT,)))
    assert result.code == 0, result.stdout + result.stderr
    assert (result.outputs["status"], result.outputs["accepted-regression"]) == ("accepted", "true")
