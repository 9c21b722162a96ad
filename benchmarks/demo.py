"""The `make demo` main job: the CLI commands a newcomer would type, run for real, with their output."""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARK = HERE / "home.yaml"
OUT = Path("out")


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when it is below it (as a newcomer would type it)."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _command_lines(args: tuple[str, ...], width: int = 80) -> list[str]:
    """``$ agent-evals ARGS`` as a shell would take it, continued with `` \\`` to stay within ``width``."""
    words: list[str] = []  # an option and its value stay on one line
    for arg in map(shlex.quote, args):
        if words and words[-1].startswith("-") and " " not in words[-1] and not arg.startswith("-"):
            words[-1] += " " + arg
        else:
            words.append(arg)
    lines, current = [], "$ agent-evals"
    for word in words:
        if len(current) + 1 + len(word) + 2 > width and current.strip() not in ("$ agent-evals", ""):
            lines.append(current + " \\")
            current = "   "
        current += " " + word
    return [*lines, current]


def _agent_evals(*args: str) -> int:
    """Print ``$ agent-evals ARGS`` then run it (this interpreter's agent-evals), passing its output through."""
    print("\n".join(_command_lines(args)), flush=True)
    done = subprocess.run([sys.executable, "-m", "agent_evals", *args], check=False)
    print(flush=True)
    return done.returncode


def main() -> int:
    """Run v1 (baseline) and v2 (candidate) of the home agent, compare them, say where the reports went."""
    start = time.perf_counter()
    OUT.mkdir(exist_ok=True)
    bench = _shown(BENCHMARK)
    for label, agent in (("baseline", "home_agent:HomeAgent"), ("candidate", "home_agent:HomeAgentV2")):
        code = _agent_evals("run", bench, "--agent", agent, "--quiet", "-o", str(OUT / f"{label}.json"))
        if code != 0:
            print(f"agent-evals run failed (exit {code})", file=sys.stderr)
            return code
    report_md, report_html = OUT / "report.md", OUT / "report.html"
    code = _agent_evals(
        "compare",
        str(OUT / "baseline.json"),
        str(OUT / "candidate.json"),
        "--markdown",
        str(report_md),
        "--html",
        str(report_html),
    )
    meaning = {0: "passed", 1: "failed: the gate found a regression", 2: "usage error", 3: "internal error"}
    print(f"Verdict: {meaning.get(code, 'unknown')} (exit {code}; agent v2 is meant to fail)")
    print(f"The pull-request comment (Markdown): {report_md}")
    print(f"The full report (HTML, open it in a browser): {report_html}")
    print("Next: `agent-evals init` scaffolds a project of your own;", flush=True)
    print("      `agent-evals ci` runs, compares and comments in GitHub Actions.", flush=True)
    sys.stderr.write(f"demo finished in {time.perf_counter() - start:.1f}s\n")
    return 0 if code in (0, 1) else code


if __name__ == "__main__":
    sys.exit(main())
