"""The embedded demo: the home benchmark runs, v1 passes it, v2 regresses on 'all lights', make demo gates."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent_evals.benchmark.loader import load_benchmark
from agent_evals.benchmark.runner import run_benchmark
from agent_evals.report.width import display_width

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / "benchmarks" / "home.yaml"
ALL_LIGHTS = {
    "lights/all-off",
    "lights/all-on",
    "lights/every-light",
    "lights/kill-everywhere",
    "lights/house-dark",
    "lights/all-but-bedroom",
}


def test_demo_benchmark__shape_meets_the_brief() -> None:
    bench = load_benchmark(HOME)
    scenarios = [s for c in bench.capabilities for s in c.scenarios]
    assert len(scenarios) >= 30 and len(bench.capabilities) >= 4
    assert any(s.location[0].endswith("capabilities/scenes.yaml") for s in scenarios)
    assert any(s.precondition for s in scenarios)
    assert any(
        s.success and s.success.tool_use and s.success.tool_use.match_calls == "any_of" for s in scenarios
    )
    dims = {k for c in bench.capabilities for k in c.dimensions}
    assert {"phrasing", "difficulty"} <= dims
    assert bench.gate and bench.agent == "home_agent:HomeAgent"


def test_demo_benchmark__v1_passes_every_scenario() -> None:
    result = run_benchmark(HOME)
    assert result.error_count == 0
    assert result.micro_pass_rate == 1.0
    assert (result.agent_name, result.agent_version) == ("home-agent", "1")


def test_demo_benchmark__v2_regresses_exactly_on_all_lights_requests() -> None:
    result = run_benchmark(HOME, "home_agent:HomeAgentV2")
    failing = {c.id for c in result.cases if c.passes < len(c.trials)}
    assert failing == ALL_LIGHTS
    assert result.pass_rates_by_capability["lights"] < 0.6
    assert result.pass_rates_by_capability["scenes"] == 1.0


def test_demo_agent__two_round_tool_loop_passes_and_reports_usage() -> None:
    result = run_benchmark(HOME, case_filter="climate/bit-warmer", trials=1)
    (trial,) = result.cases[0].trials
    assert trial.passed and trial.usage and trial.usage["input_tokens"] > 0


@pytest.mark.slow
def test_make_demo_script__writes_both_records_and_prints_a_failed_verdict_quickly(tmp_path: Path) -> None:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "demo.py")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    elapsed = time.perf_counter() - start
    assert done.returncode == 0, done.stderr
    assert elapsed < 30  # seconds on an idle laptop; generous for a loaded CI machine
    baseline = json.loads((tmp_path / "out" / "baseline.json").read_text())
    candidate = json.loads((tmp_path / "out" / "candidate.json").read_text())
    assert baseline["suites"][0]["agent"] == {"name": "home-agent", "version": "1"}
    assert candidate["suites"][0]["agent"] == {"name": "home-agent", "version": "2"}
    assert candidate["suites"][0]["gate"]["max_drop"] == 0.05
    out = done.stdout
    # what a newcomer types, in order, then the terminal rendering (not raw GitHub Markdown)
    joined = out.replace(" \\\n   ", "")  # a long command continues on the next line
    commands = [line for line in joined.splitlines() if line.startswith("$ agent-evals ")]
    assert [c.split()[2] for c in commands] == ["run", "run", "compare"]
    assert "--agent home_agent:HomeAgentV2" in commands[1] and "out/candidate.json" in commands[2]
    assert "<!--" not in out and "| Suite" not in out
    assert "6 regressions in 1 suite" in out and "Regressed cases (6):" in out
    assert "Verdict: failed" in out
    too_wide = [line for line in out.splitlines() if display_width(line) > 80]
    assert not too_wide, "\n".join(too_wide)  # the whole demo reads on an 80-column terminal
    assert "The pull-request comment (Markdown): out/report.md" in out
    assert "The full report (HTML, open it in a browser): out/report.html" in out
    assert "<!-- agent-evals:gate:default -->" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert (tmp_path / "out" / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


async def test_home_agent__runs_a_genuine_openai_format_tool_loop() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from home_agent import HomeAgent
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    agent = HomeAgent()
    await agent.setup()
    state = {"thermostat": {"mode": "heat", "target_c": 20, "current_c": 19}}
    result = await agent.run_case("Make it a bit warmer.", state=state)
    messages = (result.context or {})["outputs"]
    assert [m["role"] for m in messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    first_call = messages[2]["tool_calls"][0]
    assert first_call["type"] == "function"
    assert first_call["function"] == {"name": "get_status", "arguments": '{"device_type": "thermostat"}'}
    assert messages[3]["tool_call_id"] == first_call["id"]
    assert json.loads(messages[4]["tool_calls"][0]["function"]["arguments"]) == {"target_c": 21}
    assert (result.context or {})["final_state"]["thermostat"]["target_c"] == 21
    assert "21" in result.output


async def test_home_agent__tool_errors_go_back_to_the_model_and_the_answer_says_so() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from home_agent import HomeAgent
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    agent = HomeAgent()
    await agent.setup()
    result = await agent.run_case("Turn on the kitchen light.", state={"lights": {}})
    assert result.output.startswith("Sorry, I couldn't do all of that: no light in room 'kitchen'")
