"""The README's code blocks run as written: the library example prints its comment, the YAML loads and runs."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def block_after(heading: str, lang: str) -> str:
    section = README.split(heading, 1)[1]
    match = re.search(rf"```{lang}\n(.*?)```", section, re.S)
    assert match, f"README lost the {lang} block under {heading!r}"
    return match.group(1)


def test_readme_library_example__runs__prints_the_pass_rates_it_promises(tmp_path: Path) -> None:
    code = block_after("## The library in thirty lines", "python")
    promised = re.search(r"print\(result\.pass_rates\)\s+# (.*)", code)
    assert promised, "the example should document what it prints"
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == promised.group(1)


def test_readme_benchmark_yaml__runs_against_the_demo_agent(tmp_path: Path) -> None:
    yaml_text = block_after("## Benchmarks in YAML", "yaml")
    (tmp_path / "capabilities").mkdir()
    shutil.copy(
        ROOT / "benchmarks" / "capabilities" / "scenes.yaml", tmp_path / "capabilities" / "scenes.yaml"
    )
    shutil.copytree(ROOT / "benchmarks" / "home_agent", tmp_path / "home_agent")
    (tmp_path / "home.yaml").write_text(yaml_text, encoding="utf-8")
    out = tmp_path / "run.json"
    proc = subprocess.run(
        [sys.executable, "-m", "agent_evals", "run", "home.yaml", "--output", str(out)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert out.exists()
    assert "lights" in proc.stdout


def test_readme_start_a_project__commands_run_as_written_and_succeed(tmp_path: Path) -> None:
    script = block_after("## Start a project", "sh")
    cli = Path(sys.executable).with_name("agent-evals")
    cwd = tmp_path
    commands = [line.split("#", 1)[0].strip() for line in script.splitlines()]
    for command in filter(None, commands):
        words = command.split()
        if words[0] == "cd":
            cwd = cwd / words[1]
            continue
        assert words[0] == "agent-evals", command
        proc = subprocess.run(
            [str(cli), *words[1:]], capture_output=True, text=True, cwd=cwd, timeout=120, check=False
        )
        assert proc.returncode == 0, f"{command}: {proc.stdout}{proc.stderr}"
    assert (cwd / "run.json").is_file()
