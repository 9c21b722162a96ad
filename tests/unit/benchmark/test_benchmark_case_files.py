"""`cases: file.csv|file.jsonl` in a capability: one scenario a row, every row's problem at its file:line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agent_evals.benchmark.loader import load_benchmark
from agent_evals.benchmark.runner import run_benchmark
from agent_evals.errors import BenchmarkFileError

Writer = Callable[..., Path]

BENCH = """
benchmark: data
capabilities:
  - name: faq
    dimensions: {{source: file}}
    scenarios:
      - {{id: inline, prompt: "say inline", success: {{output: {{contains: inline}}}}}}
    cases: {ref}
"""

CSV = """id,prompt,success.output.contains,dimensions.lang,critical
hello,say hello,hello,en,true
bonjour,say bonjour,bonjour,fr,
"""

JSONL = """{"id": "hello", "prompt": "say hello", "success": {"output": {"contains": "hello"}}, "dimensions": {"lang": "en"}, "critical": true}

{"id": "bonjour", "prompt": "say bonjour", "success": {"output": {"contains": "bonjour"}}, "dimensions": {"lang": "fr"}}
"""


def _echo(prompt: str) -> str:
    return prompt


@pytest.mark.parametrize(("name", "text", "lines"), [("faq.csv", CSV, [2, 3]), ("faq.jsonl", JSONL, [1, 3])])
def test_cases_file__each_row_is_a_scenario_located_at_its_line(
    write: Writer, name: str, text: str, lines: list[int]
) -> None:
    write(name, text)
    path = write("b.yaml", BENCH.format(ref=name))
    bench = load_benchmark(path)
    (cap,) = bench.capabilities
    assert [s.key for s in cap.scenarios] == ["inline", "hello", "bonjour"]
    assert [s.location for s in cap.scenarios[1:]] == [(name, line) for line in lines]
    assert cap.scenarios[1].critical is True and cap.scenarios[2].critical is False
    result = run_benchmark(path, _echo)
    assert [(c.id, c.trials[0].passed) for c in result.cases] == [
        ("faq/inline", True),
        ("faq/hello", True),
        ("faq/bonjour", True),
    ]
    assert result.cases[1].dimensions == {"source": "file", "lang": "en"}
    assert (result.cases[1].file, result.cases[1].line) == (name, lines[0])


def test_cases_file__row_outcomes_are_scored_not_assumed(write: Writer) -> None:
    write("faq.csv", CSV)
    path = write("b.yaml", BENCH.format(ref="faq.csv"))
    result = run_benchmark(path, lambda prompt: "something else")
    assert [c.trials[0].passed for c in result.cases] == [False, False, False]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "faq.csv",
            "id,prompt,success.output.contans\n1,x,y\n",
            r"faq\.csv:2:1: row\[1\]\.success\.output\.contans: unknown key 'contans'; did you mean 'contains'",
        ),
        ("faq.csv", "id,prompt\n1,x\n2,\n", r"faq\.csv:3:1: row\[2\]: missing required key 'prompt'"),
        ("faq.csv", "id,prompt\n1,x\n", r"faq\.csv:2:1: .*no success criterion"),
        (
            "faq.csv",
            "id,prompt,success.output.contains\n1,x,y\n1,z,w\n",
            r"faq\.csv:3:1: row\[2\]\.id: scenario id '1' is used twice",
        ),
        ("faq.csv", "id,prompt,success.scorers\n1,x,y\n", r"faq\.csv:2:1: row\[1\]\.success\.scorers"),
        (
            "faq.csv",
            "id,prompt,success.output.contains\n1,x,y,extra\n",
            r"faq\.csv:2: the row has 4 cells; the header has 3",
        ),
        ("faq.csv", "id,id,prompt\n1,2,x\n", r"faq\.csv:1: the header repeats column\(s\) id"),
        (
            "faq.csv",
            "id,prompt,success.output.contains\n1,say\nhello,hello\n",
            r"faq\.csv:2: the row has 2 cells; the header has 3 \(quote a cell",
        ),
        ("faq.csv", "id,prompt\n", r"faq\.csv: the cases file holds no rows"),
        (
            "faq.jsonl",
            '{"id": 1, "prompt": "x", "success": {"output": {"contains": "x"}}}\n{"id": 2,\n',
            r"faq\.jsonl:2: not valid JSON",
        ),
        ("faq.jsonl", "[1, 2]\n", r"faq\.jsonl:1: each line must be a JSON object, found list"),
        (
            "faq.jsonl",
            '{"id": "a b", "prompt": "x", "success": {"output": {"contains": "x"}}}\n',
            r"faq\.jsonl:1:1: row\[1\]\.id: a scenario id must be",
        ),
        ("faq.txt", "id,prompt\n", r"cases files are \.csv or \.jsonl"),
    ],
)
def test_cases_file_problem__located_error_naming_file_and_row(
    write: Writer, name: str, text: str, message: str
) -> None:
    write(name, text)
    path = write(
        "b.yaml",
        BENCH.format(ref=name).replace(
            '    scenarios:\n      - {id: inline, prompt: "say inline", success: {output: {contains: inline}}}\n',
            "",
        ),
    )
    with pytest.raises(BenchmarkFileError, match=message):
        load_benchmark(path)


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("missing.csv", r"b\.yaml:7:12: capabilities\[0\]\.cases: cases file missing\.csv does not exist"),
        ("../faq.csv", r"must be a relative path inside this file's folder"),
        ("/etc/passwd.csv", r"must be a relative path inside this file's folder"),
    ],
)
def test_cases_reference_that_cannot_be_read__located_at_the_cases_key(
    write: Writer, ref: str, message: str
) -> None:
    path = write("b.yaml", BENCH.format(ref=ref))
    with pytest.raises(BenchmarkFileError, match=message):
        load_benchmark(path)


def test_cases_file__state_columns__are_dotted_paths_not_whole_mappings(write: Writer) -> None:
    # a CSV column can only name one value: `success.state.lights.kitchen.state` checks that value,
    # as if written `lights.kitchen.state:` in YAML (a nested mapping there would be compared whole)
    write(
        "faq.csv",
        "id,prompt,success.state.lights.kitchen.state,expected_state.doors.front,precondition.state.lights.hall\n"
        "a,p,on,,\n"
        "b,p,,locked,off\n",
    )
    path = write("b.yaml", BENCH.format(ref="faq.csv"))
    a, b = load_benchmark(path).capabilities[0].scenarios[1:]
    assert a.plan.expected.context == {"expected_state": {"lights.kitchen.state": "on"}}
    assert b.plan.expected.context == {"expected_state": {"doors.front": "locked"}}
    assert b.precondition is not None and b.precondition.state == {"lights.hall": "off"}
