"""Every schema rule of a benchmark file, and the located error (file:line:col + key path) it raises."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agent_evals.benchmark.loader import load_benchmark
from agent_evals.errors import BenchmarkFileError

Writer = Callable[..., Path]

VALID = """
benchmark: demo
capabilities:
  - name: basics
    scenarios:
      - id: 1
        prompt: say hi
        success:
          output: {contains: hi}
"""


def _scenario(body: str) -> str:
    indented = "\n".join("        " + line for line in body.strip("\n").splitlines())
    return (
        "benchmark: demo\ncapabilities:\n  - name: basics\n    scenarios:\n      - id: 1\n" + indented + "\n"
    )


CASES = [
    pytest.param(
        "benchmark: demo\ncapabilites: []\n",
        (2, 1, "capabilites", "unknown key 'capabilites'; did you mean 'capabilities'?"),
        id="top-level-typo-did-you-mean",
    ),
    pytest.param(
        "benchmark: ../up\ncapabilities: []\n",
        (1, 12, "benchmark", "safe path segment"),
        id="benchmark-id-not-a-safe-segment",
    ),
    pytest.param(
        "benchmark: demo\n",
        (1, 1, None, "missing required key 'capabilities'"),
        id="capabilities-missing",
    ),
    pytest.param(
        "benchmark: demo\ncapabilities: []\n",
        (2, 15, "capabilities", "at least 1 item"),
        id="capabilities-empty",
    ),
    pytest.param(
        "- just\n- a list\n",
        (1, 1, None, "expected a mapping with `benchmark:`"),
        id="top-level-not-a-mapping",
    ),
    pytest.param(
        "benchmark: demo\nagent: not-a-ref\n" + VALID.split("\n", 2)[2],
        (2, 8, "agent", "expected 'module:Class' or 'module:function'"),
        id="agent-reference-shape",
    ),
    pytest.param(
        "benchmark: demo\nexecution: {runs_per_scenario: 0}\n" + VALID.split("\n", 2)[2],
        (2, 32, "execution.runs_per_scenario", "greater than or equal to 1"),
        id="runs-per-scenario-at-least-one",
    ),
    pytest.param(
        "benchmark: demo\nexecution: {n_parallel_runs: many}\n" + VALID.split("\n", 2)[2],
        (2, 30, "execution.n_parallel_runs", "valid integer"),
        id="parallel-runs-integer",
    ),
    pytest.param(
        "benchmark: demo\nexecution: {timeout_s: -1}\n" + VALID.split("\n", 2)[2],
        (2, 24, "execution.timeout_s", "greater than 0"),
        id="timeout-positive",
    ),
    pytest.param(
        "benchmark: demo\nplatform: cloud\n" + VALID.split("\n", 2)[2],
        (2, 11, "platform", "'local'"),
        id="platform-only-local",
    ),
    pytest.param(
        "benchmark: demo\ngate: {max_dorp: 0.1}\n" + VALID.split("\n", 2)[2],
        (2, 8, "gate.max_dorp", "did you mean 'max_drop'?"),
        id="gate-unknown-knob-did-you-mean",
    ),
    pytest.param(
        "benchmark: demo\ngate:\n  overrides:\n    demo/doors: {min_pass: 0.9}\n" + VALID.split("\n", 2)[2],
        (4, 18, "gate.overrides.demo/doors.min_pass", "did you mean 'min_pass_rate'?"),
        id="gate-override-unknown-knob",
    ),
    pytest.param(
        "benchmark: demo\ngate: {alpha: 2}\n" + VALID.split("\n", 2)[2],
        (2, 15, "gate.alpha", "less than 0.5"),
        id="gate-bad-value",
    ),
    pytest.param(
        "benchmark: demo\ncapabilities:\n  - 42\n",
        (3, 5, "capabilities[0]", "expected a capability mapping"),
        id="capability-entry-scalar",
    ),
    pytest.param(
        "benchmark: demo\ncapabilities:\n  - name: a b\n    scenarios: [{id: 1, prompt: p, success: {output: {equals: x}}}]\n",
        (3, 11, "capabilities[0].name", "capability name"),
        id="capability-name-safe",
    ),
    pytest.param(
        "benchmark: demo\ncapabilities:\n  - name: a\n    scenarios: []\n",
        (4, 16, "capabilities[0].scenarios", "at least 1 item"),
        id="capability-without-scenarios",
    ),
    pytest.param(
        "benchmark: demo\ncapabilities:\n  - name: a\n    senarios: []\n",
        (4, 5, "capabilities[0].senarios", "did you mean 'scenarios'?"),
        id="capability-typo",
    ),
    pytest.param(
        _scenario("prompt: hi"),
        (5, 9, "capabilities[0].scenarios[0]", "no success criterion"),
        id="scenario-without-success",
    ),
    pytest.param(
        _scenario("success: {output: {contains: x}}"),
        (5, 9, "capabilities[0].scenarios[0]", "missing required key 'prompt'"),
        id="scenario-without-prompt",
    ),
    pytest.param(
        _scenario("prompt: hi\nsucess: {output: {contains: x}}"),
        (7, 9, "capabilities[0].scenarios[0].sucess", "did you mean 'success'?"),
        id="scenario-typo",
    ),
    pytest.param(
        _scenario("prompt: hi\nsuccess:\n  tool_use:\n    calls: [{name: a}]\n    match_calls: sometimes"),
        (10, 26, "capabilities[0].scenarios[0].success.tool_use.match_calls", "'exact', 'subset'"),
        id="match-calls-literal",
    ),
    pytest.param(
        _scenario("prompt: hi\nsuccess:\n  tool_use:\n    calls: [{name: a}]\n    match_args: loose"),
        (10, 25, "capabilities[0].scenarios[0].success.tool_use.match_args", "'ignore'"),
        id="match-args-literal",
    ),
    pytest.param(
        _scenario("prompt: hi\nsuccess:\n  tool_use: {calls: [], match_calls: superset}"),
        (8, 29, "capabilities[0].scenarios[0].success.tool_use.calls", "every agent passes it"),
        id="tool-use-empty-superset-always-passes",
    ),
    pytest.param(
        _scenario("prompt: hi\nsuccess:\n  tool_use: {calls: [], match_calls: any_of}"),
        (8, 29, "capabilities[0].scenarios[0].success.tool_use.calls", "no agent can pass it"),
        id="tool-use-empty-any-of-never-passes",
    ),
    pytest.param(
        _scenario("prompt: hi\nsuccess:\n  tool_use:\n    calls: [{name: a, arg: {}}]"),
        (9, 31, "capabilities[0].scenarios[0].success.tool_use.calls[0].arg", "did you mean 'args'?"),
        id="call-typo",
    ),
    pytest.param(
        _scenario("prompt: hi\nsuccess:\n  output: {regex: '('}"),
        (8, 27, "capabilities[0].scenarios[0].success.output.regex", "not a valid regular expression"),
        id="output-regex-compiles",
    ),
    pytest.param(
        _scenario("prompt: hi\nsuccess:\n  output: {case_sensitive: false}"),
        (8, 19, "capabilities[0].scenarios[0].success.output", "needs at least one of"),
        id="output-needs-a-check",
    ),
    pytest.param(
        _scenario("prompt: hi\nsuccess:\n  output: {json_schema: {type: thing}}"),
        (8, 33, "capabilities[0].scenarios[0].success.output.json_schema", "invalid JSON Schema"),
        id="output-json-schema-valid",
    ),
    pytest.param(
        _scenario("prompt: hi\nsuccess:\n  scorers: [{type: StateMatsh}]"),
        (8, 21, "capabilities[0].scenarios[0].success.scorers[0]", "Did you mean 'StateMatch'"),
        id="unknown-scorer-did-you-mean",
    ),
    pytest.param(
        _scenario("prompt: hi\nscorers: [{type: ToolCallExactMatch, tool_args_match_mode: fuzzy}]"),
        (7, 19, "capabilities[0].scenarios[0].scorers[0]", "tool_args_match_mode must be one of"),
        id="scorer-bad-argument",
    ),
    pytest.param(
        _scenario("prompt: hi\nscorers: [{type: ToolCallExactMatch}]"),
        (7, 19, "capabilities[0].scenarios[0].scorers[0]", "add them to the scenario"),
        id="reference-scorer-without-reference",
    ),
    pytest.param(
        _scenario(
            "prompt: hi\nscorers: [{type: ToolCallExactMatch}]\nreference_outputs: [{tool_calls: [{args: {}}]}]"
        ),
        (8, 28, "capabilities[0].scenarios[0].reference_outputs", "tool call has no name"),
        id="reference-unreadable",
    ),
    pytest.param(
        _scenario("prompt: hi\nscorers: [{name: x}]"),
        (7, 19, "capabilities[0].scenarios[0].scorers[0]", "missing required key 'type'"),
        id="scorer-without-type",
    ),
    pytest.param(
        _scenario("prompt: hi\nexpected_state: {a: 1}\nsuccess: {state: {a: 1}}"),
        (7, 25, "capabilities[0].scenarios[0].expected_state", "keep one"),
        id="expected-state-twice",
    ),
    pytest.param(
        _scenario("prompt: hi\nprecondition: {world: {}}\nsuccess: {output: {contains: x}}"),
        (7, 24, "capabilities[0].scenarios[0].precondition.world", "unknown key 'world' (allowed: state)"),
        id="precondition-only-state",
    ),
    pytest.param(
        _scenario("prompt: hi\ncritical: maybe\nsuccess: {output: {contains: x}}"),
        (7, 19, "capabilities[0].scenarios[0].critical", "valid boolean"),
        id="critical-boolean",
    ),
    pytest.param(
        _scenario("prompt: hi\ndimensions: {phrasing: [a]}\nsuccess: {output: {contains: x}}"),
        (7, 32, "capabilities[0].scenarios[0].dimensions.phrasing", "expected a plain value"),
        id="dimension-values-scalar",
    ),
    pytest.param(
        "benchmark: demo\ncapabilities:\n  - name: a\n    scenarios:\n"
        "      - {id: 1, prompt: p, success: {output: {equals: x}}}\n"
        "      - {id: 1, prompt: q, success: {output: {equals: y}}}\n",
        (6, 14, "capabilities[0].scenarios[1].id", "scenario id '1' is used twice"),
        id="scenario-ids-unique",
    ),
    pytest.param(
        "benchmark: demo\ncapabilities:\n  - name: a\n    scenarios:\n"
        "      - {id: 'a/b', prompt: p, success: {output: {equals: x}}}\n",
        (5, 14, "capabilities[0].scenarios[0].id", "scenario id must be"),
        id="scenario-id-safe",
    ),
    pytest.param(
        "benchmark: demo\ncapabilities:\n"
        "  - {name: a, scenarios: [{id: 1, prompt: p, success: {output: {equals: x}}}]}\n"
        "  - {name: a, scenarios: [{id: 2, prompt: p, success: {output: {equals: x}}}]}\n",
        (4, 12, "capabilities[1].name", "capability 'a' is declared twice"),
        id="capability-names-unique",
    ),
    pytest.param(
        "benchmark: demo\ncapabilities:\n  - id: quick\n    prompt: p\n    scorrers: []\n",
        (5, 5, "capabilities[0].scorrers", "did you mean 'scorers'?"),
        id="compact-form-typo",
    ),
    pytest.param(
        "benchmark: demo\ncapabilities:\n  - id: quick\n    prompt: p\n",
        (3, 5, "capabilities[0]", "no success criterion"),
        id="compact-form-without-success",
    ),
    pytest.param(
        "benchmark: demo\ncapabilities:\n  - id: quick\n    expected_state: {a: 1}\n",
        (3, 5, "capabilities[0]", "missing required key 'prompt'"),
        id="compact-form-without-prompt",
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_load_benchmark__invalid_file__raises_located_error(
    write: Writer, text: str, expected: tuple[int, int, str | None, str]
) -> None:
    line, column, key_path, fragment = expected
    path = write("bench.yaml", text)
    with pytest.raises(BenchmarkFileError) as caught:
        load_benchmark(path)
    err = caught.value
    assert fragment in str(err)
    assert (err.file, err.line, err.column, err.key_path) == ("bench.yaml", line, column, key_path)
    prefix = f"bench.yaml:{line}:{column}: " + (f"{key_path}: " if key_path else "")
    assert str(err).startswith(prefix)


def test_load_benchmark__missing_file__names_it(write: Writer) -> None:
    with pytest.raises(BenchmarkFileError, match=r"^nope\.yaml: no such benchmark file"):
        load_benchmark("nope.yaml")


def test_load_benchmark__valid_file__keeps_every_key(write: Writer) -> None:
    path = write(
        "bench.yaml",
        """
        benchmark: demo
        description: d
        agent: agents:Echo
        platform: local
        execution: {runs_per_scenario: 3, n_parallel_runs: 2, timeout_s: 1.5}
        world: {lights: {kitchen: "off"}}
        gate: {max_drop: 0.1, overrides: {"demo/basics": {min_pass_rate: 0.5}}}
        capabilities:
          - name: basics
            dimensions: {phrasing: direct}
            scenarios:
              - id: 7
                name: Seven
                prompt: say hi
                critical: true
                dimensions: {difficulty: hard}
                precondition: {state: {lights: {kitchen: "on"}}}
                success:
                  output: {contains: hi}
        """,
    )
    bench = load_benchmark(path)
    assert bench.benchmark == "demo"
    assert bench.platform is not None and bench.platform.type == "local"
    assert bench.execution.runs_per_scenario == 3
    assert bench.gate == {"max_drop": 0.1, "overrides": {"demo/basics": {"min_pass_rate": 0.5}}}
    scenario = bench.capabilities[0].scenarios[0]
    assert (scenario.key, scenario.critical, scenario.location) == ("7", True, ("bench.yaml", 12))


def test_load_benchmark__compact_seed_form__is_one_scenario_in_a_capability_named_after_it(
    write: Writer,
) -> None:
    path = write(
        "bench.yaml",
        """
        benchmark: demo
        capabilities:
          - id: land-where-asked
            prompt: "Fly to (1, 2) and land."
            scorers:
              - type: ToolCallExactMatch
                tool_args_match_mode: exact
            reference_outputs:
              - role: assistant
                tool_calls:
                  - name: fly_to
                    args: { lat: 1, lon: 2 }
          - name: full
            scenarios:
              - {id: 1, prompt: p, expected_state: {a.b: 1}}
        """,
    )
    bench = load_benchmark(path)
    assert [c.name for c in bench.capabilities] == ["land-where-asked", "full"]
    compact = bench.capabilities[0].scenarios[0]
    assert compact.key == "land-where-asked"
    assert compact.location == ("bench.yaml", 3)
    assert compact.reference_outputs is not None


EVERY_PROBLEM = """\
benchmark: demo
capabilities:
  - name: a
    scenarios:
      - id: 1
        prompt: p
        success: {output: {contains: x}}
      - id: 1
        prompt: q
        success: {output: {contains: y}}
      - id: 2
        prompt: r
  - name: a
    scenarios:
      - id: 3
        prompt: s
        success: {tool_use: {calls: [], match_calls: superset}}
"""


def test_load_benchmark__several_ids_and_checks_wrong__lists_every_problem_in_file_order(
    write: Writer,
) -> None:
    # a repeated id, a scenario without a criterion, a repeated capability and a vacuous check: all of
    # them in one message, so a file with many mistakes is not fixed one run of `validate` at a time
    path = write("bench.yaml", EVERY_PROBLEM)
    with pytest.raises(BenchmarkFileError) as caught:
        load_benchmark(path)
    found = [(p.line, p.key_path) for p in caught.value.problems]
    assert found == [
        (8, "capabilities[0].scenarios[1].id"),
        (11, "capabilities[0].scenarios[2]"),
        (13, "capabilities[1].name"),
        (17, "capabilities[1].scenarios[0].success.tool_use.calls"),
    ]
    text = str(caught.value)
    assert "scenario id '1' is used twice in capability 'a'" in text
    assert "no success criterion" in text
    assert "capability 'a' is declared twice" in text
    assert "decides nothing" in text
