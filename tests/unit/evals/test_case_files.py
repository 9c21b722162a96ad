"""`@eval(cases="file.csv")`: the cases of a CSV or JSONL file next to the eval file, errors at file:line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from agent_evals.errors import EvalFileError
from agent_evals.evals.discovery import eval_functions
from agent_evals.run.session import RunBuilder, run_paths

EVAL = """
from agent_evals import EvalContext, eval

@eval(cases={ref!r}, dataset="capitals")
def test_capital(ctx: EvalContext) -> None:
    ctx.output = {{"France": "Paris", "Japan": "Tokyo"}}.get(ctx.input, "?")
    assert ctx.output == ctx.reference
"""

CSV = "id,input,reference,labels,metadata.region\nfr,France,Paris,smoke;europe,eu\njp,Japan,Tokyo,,asia\nxx,Atlantis,Atlantis,,\n"
JSONL = (
    '{"id": "fr", "input": "France", "reference": "Paris", "labels": ["smoke", "europe"], "metadata": {"region": "eu"}}\n'
    '{"id": "jp", "input": "Japan", "reference": "Tokyo", "metadata": {"region": "asia"}}\n'
    '{"id": "xx", "input": "Atlantis", "reference": "Atlantis"}\n'
)


@pytest.mark.parametrize(("name", "text"), [("capitals.csv", CSV), ("capitals.jsonl", JSONL)])
def test_case_file__expands_into_one_case_per_row_and_each_is_graded(
    tmp_path: Path,
    eval_file: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    text: str,
) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / name).write_text(text, encoding="utf-8")
    eval_file(EVAL.format(ref=f"data/{name}"), "eval_capitals.py")
    monkeypatch.chdir(tmp_path)
    record = run_paths(["eval_capitals.py"], builder=RunBuilder(env={}))
    cases = {c.id: c for c in record.suites[0].cases}
    assert list(cases) == [
        "eval_capitals.py::test_capital[fr]",
        "eval_capitals.py::test_capital[jp]",
        "eval_capitals.py::test_capital[xx]",
    ]
    passed = {cid.split("[")[1].rstrip("]"): c.trials[0].passed for cid, c in cases.items()}
    assert passed == {"fr": True, "jp": True, "xx": False}
    assert cases["eval_capitals.py::test_capital[fr]"].labels == ["smoke", "europe"]


def test_case_file__resolved_next_to_the_eval_file_not_the_working_directory(
    tmp_path: Path, eval_module: Callable[..., ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "capitals.csv").write_text(CSV, encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    (fn,) = eval_functions(eval_module(EVAL.format(ref="capitals.csv")))
    specs = fn.specs()
    assert [s.case_key for s in specs] == ["fr", "jp", "xx"]
    assert specs[0].metadata == {"region": "eu"} and specs[0].dataset == "capitals"


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("c.csv", "id,input,refrence\n1,a,b\n", r"c\.csv:2: unknown key\(s\) refrence; accepted: id, input"),
        ("c.csv", "id,input\n1,a\n1,b\n", r"c\.csv:3: id '1' is used twice \(first at line 2\)"),
        ("c.jsonl", '{"id": 1}\nnot json\n', r"c\.jsonl:2: not valid JSON"),
        (
            "c.jsonl",
            '{"id": 1}\n{"id": ' + "5" * 5001 + "}\n",
            r"c\.jsonl:2: a number of 5,001 digits.*\(column 8\)",
        ),
        ("c.jsonl", '{"id": 1, "labels": 3}\n', r"labels= must be a string or a list of strings"),
        ("c.csv", "id,input\n", r"c\.csv: the cases file holds no rows"),
        # an unquoted line break splits a row in two short rows: never two silently wrong cases
        (
            "c.csv",
            'id,input,reference\nfr,"a",Paris\nde,a\nb,Berlin\n',
            r"c\.csv:3: the row has 2 cells; the header has 3",
        ),
        ("missing.csv", None, r"cases file missing\.csv does not exist"),
    ],
)
def test_case_file_problem__import_error_naming_file_and_line(
    tmp_path: Path, eval_module: Callable[..., ModuleType], name: str, text: str | None, message: str
) -> None:
    if text is not None:
        (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(EvalFileError, match=message):
        eval_module(EVAL.format(ref=name))
