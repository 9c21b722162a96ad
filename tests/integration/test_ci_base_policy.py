"""`agent-evals ci` on a pull request: the base side's policy is the floor; a PR that loosens its own gate
still fails (each loosened knob named) until a maintainer's accept label lets its policy apply."""

from __future__ import annotations

import html
import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_cli_ci import AGENT, BASE, CASES, Harness, Result, _benchmark

from servers.github_server import GitHubServer, make_zip

ACCEPT = "agent-evals:accept-regression"
HEAD = "e" * 40
MERGE = "d" * 40


def _text(result: Result) -> str:
    """The job summary as it reads (Markdown-escaped untrusted text unescaped)."""
    return html.unescape(result.summary)


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    with GitHubServer() as github:
        github.state.runs["gate.yml"] = []
        github.state.labels[5] = []
        github.state.merge_bases[f"{BASE}...{HEAD}"] = (MERGE, "2026-01-02T00:00:00Z")
        yield Harness(tmp_path, github)


def _workspace(h: Harness) -> Path:
    """The pull request's checkout (made before its first run, so a config can be written first)."""
    work = h.tmp / "ws"
    if not work.exists():
        work.mkdir()
        (work / "bench.yaml").write_text(_benchmark())
        (work / "tiny_agent.py").write_text(AGENT)
    return work


def _config(h: Harness, text: str | None) -> None:
    """The repo config file of the workspace; None deletes it."""
    path = _workspace(h) / "agent-evals.yaml"
    if text is None:
        path.unlink(missing_ok=True)
    else:
        path.write_text(text)


def _baseline(h: Harness, config: str | None = None, *, recorded: bool = True) -> None:
    """The default branch's baseline run under ``config``, uploaded; ``recorded=False`` strips the
    recorded policy, as an older agent-evals wrote the record."""
    _config(h, config)
    data = h.baseline_zip()
    if not recorded:
        record = json.loads(zipfile.ZipFile(io.BytesIO(data)).read("run.json"))
        for suite in record["suites"]:
            del suite["policy"]
        data = make_zip({"run.json": json.dumps(record).encode()})
    h.add_baseline_run(data)


LOOSENINGS = [
    # (base config, PR config, failing cases, the loosened line)
    pytest.param(None, "gate:\n  max_drop: 0.99\n", 8, "max_drop 0.05 -> 0.99", id="max_drop"),
    pytest.param(
        "gate:\n  min_pass_rate: 0.9\n",
        "gate:\n  min_pass_rate: 0.5\n",
        3,
        "min_pass_rate 0.9 -> 0.5",
        id="floor",
    ),
    pytest.param(
        "gate:\n  critical_cases: [math/c00]\n",
        "gate:\n  critical_cases: [math/c00]\n  critical: ignore\n",
        1,
        "critical fail -> ignore",
        id="critical-ignore",
    ),
    pytest.param(
        "gate:\n  critical_cases: [math/c00]\n",
        "gate:\n  critical_cases: []\n",
        1,
        "critical_cases [math/c00] -> []",
        id="glob",
    ),
    pytest.param(None, "gate:\n  alpha: 0.001\n", 6, "alpha 0.05 -> 0.001", id="alpha"),
]


@pytest.mark.parametrize(("base", "pr", "failing", "line"), LOOSENINGS)
def test_ci__pr_loosens_its_repo_config__base_value_applies_exit_1_with_one_line(
    h: Harness, base: str | None, pr: str, failing: int, line: str
) -> None:
    _baseline(h, base)
    _config(h, pr)
    result = h.run(fail=tuple(CASES[:failing]))
    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["status"] == "failed"
    body = html.unescape(h.github.state.comments[5][0]["body"])
    for text in (body, html.unescape(result.summary)):
        assert f"{line}: the base value applies until a maintainer accepts" in text
    assert f"{line}: the base value applies" in result.stdout  # the log (wrapped after that)


def test_ci__pr_loosens_the_benchmarks_gate_block__base_value_applies(h: Harness) -> None:
    _baseline(h)
    bench = h.tmp / "ws" / "bench.yaml"
    bench.write_text(bench.read_text() + "gate:\n  max_drop: 0.99\n  on_inconclusive: pass\n")
    result = h.run(fail=tuple(CASES[:8]))
    assert result.code == 1, result.stdout + result.stderr
    assert "max_drop 0.05 -> 0.99: the base value applies" in _text(result)
    assert "on_inconclusive warn -> pass: the base value applies" in _text(result)


def test_ci__baseline_record_without_a_recorded_policy__base_commits_config_read_through_contents_api(
    h: Harness,
) -> None:
    _baseline(h, "gate:\n  min_pass_rate: 0.9\n", recorded=False)
    h.github.state.branches[BASE] = {"agent-evals.yaml": b"gate:\n  min_pass_rate: 0.9\n"}
    _config(h, None)  # the pull request deletes the config: the defaults would have no floor
    result = h.run(fail=tuple(CASES[:3]))
    assert result.code == 1, result.stdout + result.stderr
    assert "min_pass_rate 0.9 -> none: the base value applies" in _text(result)
    [read] = h.github.state.api_requests("GET", "/contents/agent-evals.yaml")
    assert read.query["ref"] == [BASE]


def test_ci__no_baseline_at_all__base_commits_config_is_the_floor(h: Harness) -> None:
    _config(h, "gate:\n  min_pass_rate: 0.5\n")
    h.github.state.branches[BASE] = {"agent-evals.yaml": b"gate:\n  min_pass_rate: 0.95\n"}
    result = h.run(fail=tuple(CASES[:3]))
    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["status"] == "failed" and result.outputs["baseline-pass-rate"] == ""
    assert "min_pass_rate 0.95 -> 0.5: the base value applies" in _text(result)


def test_ci__base_config_unreadable__no_verdict_exit_3_never_the_prs_policy(h: Harness) -> None:
    from servers.github_server import Fault

    _config(h, "gate:\n  min_pass_rate: 0.5\n")
    h.github.state.faults.append(Fault("GET", "/contents/agent-evals.yaml", 500, {"message": "x"}, times=20))
    result = h.run(fail=tuple(CASES[:3]))
    assert result.code == 3, result.stdout + result.stderr
    assert result.outputs["status"] == "error"
    assert "gate passed" not in h.github.state.comments[5][0]["body"]


def test_ci__pr_tightens__applies_at_once_without_a_line(h: Harness) -> None:
    _baseline(h)
    _config(h, "gate:\n  min_pass_rate: 0.99\n")
    result = h.run(fail=("c00",))
    assert result.code == 1, result.stdout + result.stderr
    assert "the base value applies" not in _text(result)
    assert "pull request loosened" not in result.stdout


def _six_capabilities() -> str:
    """The benchmark as six capabilities of four cases (c00-c23)."""
    lines = ["benchmark: tiny", "agent: tiny_agent:answer", "execution:", "  runs_per_scenario: 1"]
    lines += ["capabilities:"]
    for group in range(6):
        lines += [f"  - name: g{group}", "    scenarios:"]
        for case in range(group * 4, group * 4 + 4):
            lines += [f"      - id: c{case:02d}", f"        prompt: c{case:02d}", "        success:"]
            lines += ["          output: {contains: ok}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("where", ["repo config", "benchmark gate block"])
def test_ci__pr_gates_more_groups__they_cannot_dilute_the_suites_test(h: Harness, where: str) -> None:
    # one case of each capability breaks: the suite's drop is significant (p = 1/64); gating every
    # group (a tightening) put six tests that cannot reach alpha into its Holm family: p = 7/64, exit 0
    (_workspace(h) / "bench.yaml").write_text(_six_capabilities())
    _baseline(h)
    bench = h.tmp / "ws" / "bench.yaml"
    if where == "repo config":
        _config(h, 'gate:\n  overrides:\n    "tiny/*": {}\n')
    else:
        bench.write_text(bench.read_text() + 'gate:\n  overrides:\n    "*/*": {}\n    "g*": {}\n')
    result = h.run(fail=tuple(f"c{group * 4:02d}" for group in range(6)))
    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["status"] == "failed"
    assert "p = 0.0156 adjusted" in _text(result)
    assert "the base value applies" not in _text(result)  # a tightening: no line


def test_ci__accept_label__prs_policy_applies_exit_0_recorded_as_accepted(h: Harness) -> None:
    _baseline(h)
    _config(h, "gate:\n  max_drop: 0.99\n")
    h.github.state.labels[5] = [ACCEPT]
    result = h.run(fail=tuple(CASES[:8]))
    assert result.code == 0, result.stdout + result.stderr
    assert (result.outputs["status"], result.outputs["accepted-regression"]) == ("accepted", "true")
    assert f"max_drop 0.05 -> 0.99: accepted with the {ACCEPT!r} label" in _text(result)
    assert "Regression accepted" in h.github.state.comments[5][0]["body"]
    assert "max_drop 0.05 -> 0.99: accepted with the" in result.stdout


def test_ci__baseline_push_run__records_each_suites_resolved_policy(h: Harness) -> None:
    _config(h, "gate:\n  max_drop: 0.1\n  overrides:\n    tiny/math: {min_pass_rate: 0.8}\n")
    payload = {"repository": {"full_name": "octo/demo", "default_branch": "main"}}
    result = h.run(event="push", payload=payload, ref="refs/heads/main")
    [suite] = result.record()["suites"]
    assert suite["policy"]["knobs"]["max_drop"] == 0.1
    assert suite["policy"]["groups"]["math"]["min_pass_rate"] == 0.8


PRICED_AGENT = """
from pathlib import Path

from agent_evals.core.types import TaskResult


def answer(prompt):
    model = Path(__file__).with_name("model.txt").read_text().strip()
    usage = {"input_tokens": 1000, "output_tokens": 500, "model": model}
    return TaskResult(output="ok", context={"usage": usage})
"""


@pytest.mark.parametrize(
    ("model", "prices"),
    [
        # gpt-4o costs about 17 times gpt-4o-mini: priced like it in the pull request's own table
        pytest.param("gpt-4o", "prices:\n  gpt-4o: {input: 0.15, output: 0.60}\n", id="cheaper-price"),
        # a model the base's table does not know: the cost the run recorded with the PR's price is not taken
        pytest.param("my-model", "prices:\n  my-model: {input: 0.01, output: 0.01}\n", id="unknown-model"),
        pytest.param("gpt-4o", None, id="no-prices"),
    ],
)
def test_ci__pr_prices_its_new_model_cheaply__base_table_prices_both_sides_exit_1(
    h: Harness, model: str, prices: str | None
) -> None:
    work = _workspace(h)
    (work / "tiny_agent.py").write_text(PRICED_AGENT)
    (work / "model.txt").write_text("gpt-4o-mini")
    _baseline(h)
    (work / "model.txt").write_text(model)
    _config(h, prices)
    result = h.run()
    assert result.code == 1, result.stdout + result.stderr
    text = _text(result)
    assert "beyond max_cost_increase 20%" in text or "no price for my-model" in text, text
    assert ("prices the base branch's table -> its own" in text) == (prices is not None)
    assert len(h.github.state.api_requests("GET", "/contents/agent-evals.yaml")) == 1  # the base's, once


def test_ci__pr_prices_with_the_accept_label__its_own_table_applies(h: Harness) -> None:
    work = _workspace(h)
    (work / "tiny_agent.py").write_text(PRICED_AGENT)
    (work / "model.txt").write_text("gpt-4o-mini")
    _baseline(h)
    (work / "model.txt").write_text("gpt-4o")
    _config(h, "prices:\n  gpt-4o: {input: 0.15, output: 0.60}\n")
    h.github.state.labels[5] = [ACCEPT]
    result = h.run()
    assert result.code == 0, result.stdout + result.stderr
    assert "accepted with the 'agent-evals:accept-regression' label" in _text(result)
