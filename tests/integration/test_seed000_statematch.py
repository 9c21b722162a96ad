"""The seed's StateMatch example runs unchanged as a script and prints the pass rates it promises."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "seed_examples" / "seed000_statematch.py"


def test_seed000_statematch__runs_unchanged__prints_pass_rate_one(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "{'StateMatch': 1.0}\n"
    assert list(tmp_path.iterdir()) == []  # no platform given: nothing written to disk
