"""`agent-evals ci --confirm-trials`: re-run only the flipped cases, decide on all the data, say the outcome."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CLI = str(Path(sys.executable).parent / "agent-evals")
CASES = [f"c{i:02d}" for i in range(20)]

AGENT = """
import os
from pathlib import Path


def answer(prompt):
    if prompt in os.environ.get("FAIL_CASES", "").split(","):
        return "bad"
    if prompt in os.environ.get("FLAKY_CASES", "").split(","):
        seen = Path("calls") / prompt
        seen.parent.mkdir(exist_ok=True)
        first = not seen.exists()
        seen.write_text("x")
        return "bad" if first else "ok"  # fails its first call only
    return "ok"
"""


def _benchmark() -> str:
    lines = ["benchmark: tiny", "agent: tiny_agent:answer", "execution:", "  runs_per_scenario: 1"]
    lines += ["capabilities:", "  - name: math", "    scenarios:"]
    for case in CASES:
        lines += [f"      - id: {case}", f"        prompt: {case}", "        success:"]
        lines += ["          output: {contains: ok}"]
    return "\n".join(lines) + "\n"


def _ci(work: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CLI, "ci", "bench.yaml", *args], cwd=work, env=env, capture_output=True, text=True, timeout=180
    )


def _workspace(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    work = tmp_path / "ws"
    work.mkdir()
    (work / "bench.yaml").write_text(_benchmark())
    (work / "tiny_agent.py").write_text(AGENT)
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        **{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ},
    }  # PYTHONPATH: the code under test
    first = _ci(work, env)
    assert first.returncode == 0, first.stderr
    (work / "base.json").write_bytes((work / ".agent-evals" / "ci" / "run.json").read_bytes())
    return work, env


def _flat(text: str) -> str:
    """The terminal report with its wrapped lines joined (it fits 80 columns)."""
    return " ".join(text.split())


def test_ci_confirm__a_real_regression_is_confirmed_and_fails(tmp_path: Path) -> None:
    work, env = _workspace(tmp_path)
    env["FAIL_CASES"] = ",".join(CASES[:6])
    result = _ci(work, env, "--baseline", "base.json", "--confirm-trials", "4")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "6 flipped cases re-run 4 more times" in _flat(result.stdout)
    assert "confirmed: the drop holds on all the data" in _flat(result.stdout)


def test_ci_confirm__flips_that_do_not_hold_are_not_confirmed_flaky_and_pass_with_a_warning(
    tmp_path: Path,
) -> None:
    work, env = _workspace(tmp_path)
    env["FLAKY_CASES"] = ",".join(CASES[:6])
    without = _ci(work, env, "--baseline", "base.json")
    assert without.returncode == 1  # six flips at one trial: McNemar p = 1/64
    for seen in (work / "calls").iterdir():
        seen.unlink()
    result = _ci(work, env, "--baseline", "base.json", "--confirm-trials", "4")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "not confirmed: flaky" in _flat(result.stdout)
    assert "gate passed with warnings" in _flat(result.stdout)


def test_ci_confirm__more_than_the_maximum__usage_error(tmp_path: Path) -> None:
    work = tmp_path / "ws"
    work.mkdir()
    result = subprocess.run(
        [CLI, "ci", "x.yaml", "--confirm-trials", "60"], cwd=work, capture_output=True, text=True, timeout=60,
        env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), **{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ}},
    )  # fmt: skip
    assert result.returncode == 2
    assert "--confirm-max-trials 50" in result.stderr


HELD = {
    "GITHUB_TOKEN": "ghs_FAKEtoken0123456789",
    "INPUT_GITHUB-TOKEN": "ghs_FAKEtoken0123456789",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "FAKE-oidc-request",
    "GITHUB_ENV": "/nonexistent/env",
}
SEEING_AGENT = AGENT.replace(
    "def answer(prompt):\n",
    "def answer(prompt):\n"
    "    with open(os.path.join(os.environ['SEEN_DIR'], f'{prompt}-{os.getpid()}'), 'w') as fh:\n"
    "        fh.write(' '.join(sorted(os.environ)))\n",
)


def test_ci_confirm__the_reruns_of_flipped_cases__hold_no_credential_either(tmp_path: Path) -> None:
    work, env = _workspace(tmp_path)
    (work / "tiny_agent.py").write_text(SEEING_AGENT)
    seen = tmp_path / "seen"
    seen.mkdir()
    env.update(HELD, SEEN_DIR=str(seen), FAIL_CASES=",".join(CASES[:6]))
    result = _ci(work, env, "--baseline", "base.json", "--confirm-trials", "4")
    assert "6 flipped cases re-run 4 more times" in _flat(result.stdout), result.stdout + result.stderr
    reruns = {f.name.split("-")[1] for f in seen.iterdir() if f.name.startswith("c00-")}
    assert len(reruns) >= 2  # the first run and a confirm run: two processes
    for file in seen.iterdir():
        assert set(file.read_text().split()) & set(HELD) == set(), file.name
