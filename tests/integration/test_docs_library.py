"""The quick start in docs/library.md runs as written and prints what the page says it prints."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "library.md"


def quick_start() -> str:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "docs/library.md lost its quick-start code block"
    return match.group(1)


def test_docs_quick_start__runs__prints_documented_pass_rates(tmp_path: Path) -> None:
    script = tmp_path / "quick_start.py"
    script.write_text(quick_start(), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.splitlines()
    assert first == "{'StateMatch': 1.0, 'ToolCallExactMatch': 1.0, 'is_polite': 1.0}"
    run_folder = Path(second)
    assert run_folder.parent == (tmp_path / "local_eval_results" / "experiments").resolve()
    assert run_folder.name.startswith("thermostat-")
    assert sorted(p.name for p in run_folder.iterdir()) == ["metadata.json", "results.jsonl", "summary.json"]
