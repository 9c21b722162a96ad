"""Code-first evals score as ezvals 0.2.0 does: one eval file, run by `agent-evals run` and by ezvals.

Each case below is one way a trial can end (evaluators returning every form, raising, a body that
raises, stores, asserts or times out). ``EZVALS`` is what ``ezvals run eval_peer.py --no-save
--json`` (ezvals 0.2.0) gave for the same file, with ``ezvals`` imported in place of
``agent_evals``; set ``EZVALS`` to an ezvals 0.2.0 executable to check the table against it again.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

PEER_FILE = """
import asyncio
import time
from LIBRARY import eval, EvalContext

def keyed_fail(result):
    return {"key": "json", "passed": False}

def keyed_pass(result):
    return {"key": "json", "passed": True}

def keyless_pass(result):
    return {"passed": True}

def bare_true(result):
    return True

def bare_false(result):
    return False

def keyless_number(result):
    return {"value": 0.3}

def bare_number(result):
    return 0.7

def keyed_number(result):
    return {"key": "sim", "value": 0.3}

def nothing(result):
    return None

def a_list(result):
    return [{"key": "a", "passed": True}, {"key": "b", "value": 2, "passed": False, "notes": "n"}]

def empty_list(result):
    return []

def broken(result):
    raise RuntimeError("judge down")

def not_a_score(result):
    return "yes"

def count_scores(result):
    return {"key": "seen", "value": len(result.scores)}

async def async_keyed(result):
    return {"key": "async", "passed": True}

@eval
def clean(ctx: EvalContext):
    ctx.output = "x"

@eval(evaluators=[keyed_fail])
def ev_keyed_fail(ctx: EvalContext):
    ctx.output = "x"

@eval(evaluators=[keyed_pass])
def ev_keyed_pass(ctx: EvalContext):
    ctx.output = "x"

@eval(evaluators=[keyless_pass])
def ev_keyless_pass(ctx: EvalContext):
    ctx.output = "x"

@eval(evaluators=[bare_true])
def ev_bare_true(ctx: EvalContext):
    ctx.output = "x"

@eval(evaluators=[bare_false])
def ev_bare_false(ctx: EvalContext):
    ctx.output = "x"

@eval(evaluators=[keyless_number])
def ev_keyless_number(ctx: EvalContext):
    ctx.output = "x"

@eval(evaluators=[bare_number])
def ev_bare_number(ctx: EvalContext):
    ctx.output = "x"

@eval(evaluators=[keyed_number])
def ev_keyed_number(ctx: EvalContext):
    ctx.output = "x"

@eval(evaluators=[nothing])
def ev_nothing(ctx: EvalContext):
    ctx.output = "x"

@eval(evaluators=[a_list])
def ev_list(ctx: EvalContext):
    ctx.output = "x"

@eval(evaluators=[empty_list])
def ev_empty_list(ctx: EvalContext):
    ctx.output = "x"

@eval(evaluators=[keyed_pass, broken])
def ev_raises(ctx: EvalContext):
    ctx.output = "x"

@eval(evaluators=[keyed_pass, not_a_score])
def ev_not_a_score(ctx: EvalContext):
    ctx.output = "x"

@eval(evaluators=[keyed_pass, broken])
def ev_raises_after_a_stored_score(ctx: EvalContext):
    ctx.output = "x"
    ctx.store(scores={"key": "q", "passed": True})

@eval(evaluators=[count_scores])
def ev_sees_scores(ctx: EvalContext):
    ctx.output = "x"

@eval(evaluators=[async_keyed, keyless_pass])
def ev_async_then_keyless(ctx: EvalContext):
    ctx.output = "x"

@eval(evaluators=[keyed_fail])
async def async_body_ev_keyed_fail(ctx: EvalContext):
    ctx.output = "x"

@eval(default_score_key="correct", evaluators=[bare_true])
def ev_custom_key(ctx: EvalContext):
    ctx.output = "x"

@eval(default_score_key="correct")
def custom_key_clean(ctx: EvalContext):
    ctx.output = "x"

@eval(evaluators=[keyless_pass])
def assert_fails(ctx: EvalContext):
    ctx.output = "x"
    assert False, "wrong"

@eval(evaluators=[keyed_pass])
def body_stores(ctx: EvalContext):
    ctx.output = "x"
    ctx.store(scores={"key": "q", "passed": True})

@eval(evaluators=[keyed_pass])
def body_stores_number(ctx: EvalContext):
    ctx.output = "x"
    ctx.store(scores={"key": "sim", "value": 0.5})

@eval
def body_number_only(ctx: EvalContext):
    ctx.output = "x"
    ctx.store(scores={"key": "sim", "value": 0.5})

@eval(evaluators=[keyed_pass])
def body_raises(ctx: EvalContext):
    ctx.output = "x"
    raise KeyError("k")

@eval(evaluators=[keyed_pass])
def body_stores_then_raises(ctx: EvalContext):
    ctx.output = "x"
    ctx.store(scores={"key": "q", "passed": True})
    raise KeyError("k")

@eval(evaluators=[keyed_pass], timeout=1)
def body_times_out(ctx: EvalContext):
    ctx.output = "x"
    ctx.store(scores={"key": "q", "passed": True})
    time.sleep(5)

@eval(evaluators=[keyed_pass], timeout=1)
def body_times_out_bare(ctx: EvalContext):
    ctx.output = "x"
    time.sleep(5)

@eval(evaluators=[keyed_pass], timeout=1)
async def async_body_times_out(ctx: EvalContext):
    ctx.output = "x"
    ctx.store(scores={"key": "q", "passed": True})
    await asyncio.sleep(5)
"""

PASS = {"key": "pass", "passed": True}
JSON_PASS = {"key": "json", "passed": True}
STORED_Q = {"key": "q", "passed": True}

EZVALS: dict[str, tuple[str, list[dict[str, Any]]]] = {
    "clean": ("pass", [PASS]),
    "ev_keyed_fail": ("fail", [PASS, {"key": "json", "passed": False}]),
    "ev_keyed_pass": ("pass", [PASS, JSON_PASS]),
    "ev_keyless_pass": ("pass", [PASS, PASS]),
    "ev_bare_true": ("pass", [PASS, PASS]),
    "ev_bare_false": ("fail", [PASS, {"key": "pass", "passed": False}]),
    "ev_keyless_number": ("pass", [PASS, {"key": "pass", "value": 0.3}]),
    "ev_bare_number": ("pass", [PASS, {"key": "pass", "value": 0.7}]),
    "ev_keyed_number": ("pass", [PASS, {"key": "sim", "value": 0.3}]),
    "ev_nothing": ("pass", [PASS]),
    "ev_list": (
        "fail",
        [PASS, {"key": "a", "passed": True}, {"key": "b", "value": 2, "passed": False, "notes": "n"}],
    ),
    "ev_empty_list": ("pass", [PASS]),
    "ev_raises": ("error", []),
    "ev_not_a_score": ("error", []),
    "ev_raises_after_a_stored_score": ("error", [STORED_Q]),
    "ev_sees_scores": ("pass", [PASS, {"key": "seen", "value": 1}]),
    "ev_async_then_keyless": ("pass", [PASS, {"key": "async", "passed": True}, PASS]),
    "async_body_ev_keyed_fail": ("fail", [PASS, {"key": "json", "passed": False}]),
    "ev_custom_key": ("pass", [{"key": "correct", "passed": True}, PASS]),
    "custom_key_clean": ("pass", [{"key": "correct", "passed": True}]),
    "assert_fails": ("fail", [{"key": "pass", "passed": False, "notes": "wrong"}, PASS]),
    "body_stores": ("pass", [STORED_Q, JSON_PASS]),
    "body_stores_number": ("pass", [{"key": "sim", "value": 0.5}, JSON_PASS]),
    "body_number_only": ("numeric", [{"key": "sim", "value": 0.5}]),
    "body_raises": ("error", []),
    "body_stores_then_raises": ("error", [STORED_Q]),
    "body_times_out": ("error", [STORED_Q]),
    "body_times_out_bare": ("error", []),
    "async_body_times_out": ("error", [STORED_Q]),
}
"""Case name -> (verdict, scores in order) as ezvals 0.2.0 recorded them for PEER_FILE."""

_FIELDS = ("key", "passed", "value", "notes")


def _verdict(error: Any, scores: list[dict[str, Any]]) -> str:
    verdicts = [s["passed"] for s in scores if s.get("passed") is not None]
    if error is not None:
        return "error"
    return ("pass" if all(verdicts) else "fail") if verdicts else "numeric"


@pytest.fixture(scope="module")
def ours(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, list[dict[str, Any]]]]:
    """Every case of PEER_FILE as `agent-evals run` records it: its verdict and its scores in order."""
    root = tmp_path_factory.mktemp("peer")
    (root / "eval_peer.py").write_text(PEER_FILE.replace("LIBRARY", "agent_evals"), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "agent_evals", "run", "eval_peer.py", "-o", "run.json", "--concurrency", "4"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    record = json.loads((root / "run.json").read_text(encoding="utf-8"))
    found = {}
    for case in record["suites"][0]["cases"]:
        (trial,) = case["trials"]
        scores = [  # a repeated key is recorded as key#2: ezvals lists it again under its own key
            {"key": key.split("#")[0], **{f: s[f] for f in _FIELDS[1:] if s.get(f) is not None}}
            for key, s in trial["scores"].items()
        ]
        verdict = _verdict(trial.get("error"), scores)
        assert trial["passed"] is (verdict == "pass") and trial["graded"] is (verdict != "numeric")
        found[case["id"].split("::")[1]] = (verdict, scores)
    return found


@pytest.mark.parametrize("case", list(EZVALS))
def test_run__ezvals_peer_case__same_verdict_and_scores_as_ezvals(
    ours: dict[str, tuple[str, list[dict[str, Any]]]], case: str
) -> None:
    assert ours[case] == EZVALS[case]


EZVALS_BIN = os.environ.get("EZVALS") or shutil.which("ezvals")


@pytest.mark.skipif(
    EZVALS_BIN is None, reason="set EZVALS to an ezvals 0.2.0 executable to re-check the table"
)
def test_ezvals_table__is_what_ezvals_0_2_0_gives_for_the_peer_file(tmp_path: Path) -> None:
    assert EZVALS_BIN is not None
    (tmp_path / "eval_peer.py").write_text(PEER_FILE.replace("LIBRARY", "ezvals"), encoding="utf-8")
    done = subprocess.run(
        [EZVALS_BIN, "run", "eval_peer.py", "--no-save", "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    found = {
        item["function"]: (
            _verdict(item["result"]["error"], item["result"]["scores"]),
            item["result"]["scores"],
        )
        for item in json.loads(done.stdout)["results"]
    }
    assert found == EZVALS


OVERRUN_FILE = """
import asyncio
import time
from agent_evals import eval, EvalContext

def keyed_pass(result):
    return {"key": "json", "passed": True}

def stuck(result):
    time.sleep(30)

async def stuck_async(result):
    await asyncio.sleep(30)

@eval(evaluators=[keyed_pass, stuck], timeout=3)
def sync_stores(ctx: EvalContext):
    ctx.store(scores={"key": "q", "passed": True})

@eval(evaluators=[keyed_pass, stuck_async], timeout=3)
async def async_stores(ctx: EvalContext):
    ctx.store(scores={"key": "q", "passed": True})

@eval(evaluators=[keyed_pass, stuck], timeout=3)
def sync_clean(ctx: EvalContext):
    ctx.output = "x"

@eval(evaluators=[keyed_pass, stuck_async], timeout=3)
async def async_clean(ctx: EvalContext):
    ctx.output = "x"
"""


def test_run__evaluator_overruns_the_timeout__keeps_the_body_scores_as_an_evaluator_that_raised(
    tmp_path: Path,
) -> None:
    # ezvals bounds only the body; our timeout also covers the evaluators, and an evaluator that
    # overruns it leaves the result as one that raised does: an error with the body's own scores
    (tmp_path / "eval_overrun.py").write_text(OVERRUN_FILE, encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_evals",
            "run",
            "eval_overrun.py",
            "-o",
            "run.json",
            "--concurrency",
            "4",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    record = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    found = {
        case["id"].split("::")[1]: (case["trials"][0]["error"], list(case["trials"][0]["scores"]))
        for case in record["suites"][0]["cases"]
    }
    assert {name: scores for name, (_, scores) in found.items()} == {
        "sync_stores": ["q"],
        "async_stores": ["q"],
        "sync_clean": [],
        "async_clean": [],
    }
    assert all("evaluator 'stuck" in (error or "") for error, _ in found.values()), found
