"""Numbers JSON has no spelling for (NaN, infinities) in an eval's input, output or usage: the record
stays strict JSON (each one written as null, as the record models write it) and ``compare`` reads it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

CLI = str(Path(sys.executable).with_name("agent-evals"))

EVAL_FILE = """
import math
from agent_evals import eval, EvalContext

@eval(cases=[
    {"id": "nan-out", "input": 1, "metadata": {"out": math.nan}},
    {"id": "inf-in", "input": math.inf, "metadata": {"out": [math.inf]}},
    {"id": "nested", "input": [math.nan, -math.inf], "metadata": {"out": {"x": -math.inf}}},
])
def test_numbers(ctx: EvalContext):
    ctx.output = ctx.metadata["out"]
"""


def _strict(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"the record spells a number JSON does not have: {name}")

    return json.loads(text, parse_constant=refuse)


def test_run__outputs_and_inputs_not_finite__record_is_strict_json_and_compare_reads_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "eval_numbers.py").write_text(EVAL_FILE, encoding="utf-8")
    done = subprocess.run(
        [CLI, "run", "eval_numbers.py", "--quiet", "--output", "run.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    record = _strict((tmp_path / "run.json").read_text(encoding="utf-8"))
    cases = {c["name"].split("[")[-1].rstrip("]"): c for c in record["suites"][0]["cases"]}
    assert cases["nan-out"]["trials"][0]["output_json"] is None  # NaN written as null
    assert cases["inf-in"]["input_json"] is None
    assert cases["nested"]["input_json"] == [None, None]
    assert cases["nested"]["trials"][0]["output_json"] == {"x": None}
    compared = subprocess.run(
        [CLI, "compare", "run.json", "run.json"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert compared.returncode == 0, compared.stdout + compared.stderr
