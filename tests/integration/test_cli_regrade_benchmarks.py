"""`agent-evals regrade` says plainly that it does not re-score benchmark suites (exit 2), unless told to keep them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CLI = str(Path(sys.executable).with_name("agent-evals"))


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CLI, *args], cwd=REPO, capture_output=True, text=True, timeout=180, check=False)


def test_regrade__record_with_a_benchmark_suite__exit_2_and_the_record_is_untouched(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    ran = _cli("run", "examples/eval_scoring.py", "benchmarks/home.yaml", "-q", "-o", str(out))
    assert ran.returncode == 0, ran.stderr
    before = out.read_bytes()
    done = _cli("regrade", str(out))
    assert done.returncode == 2
    assert "regrade does not re-score benchmark suites (home)" in done.stderr
    assert "--keep-benchmarks" in done.stderr
    assert out.read_bytes() == before


def test_regrade__keep_benchmarks__regrades_evals_and_copies_benchmarks_unchanged(tmp_path: Path) -> None:
    out, regraded = tmp_path / "run.json", tmp_path / "regraded.json"
    ran = _cli("run", "examples/eval_scoring.py", "benchmarks/home.yaml", "-q", "-o", str(out))
    assert ran.returncode == 0, ran.stderr
    done = _cli("regrade", str(out), "--keep-benchmarks", "-o", str(regraded))
    assert done.returncode == 0, done.stderr
    assert "Benchmark suites copied unchanged (not regraded): home" in done.stdout
    before = {s["id"]: s for s in json.loads(out.read_text(encoding="utf-8"))["suites"]}
    after = {s["id"]: s for s in json.loads(regraded.read_text(encoding="utf-8"))["suites"]}
    assert after["home"] == before["home"]
    assert set(after) == set(before) == {"examples/eval_scoring.py", "home"}
    assert "Regraded 3 trial(s)" in done.stdout
