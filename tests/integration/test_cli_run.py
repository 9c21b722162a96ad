"""`agent-evals run` end to end, as a subprocess of the installed console script."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import jsonschema
import pytest

from agent_evals.schemas import load_run_schema

REPO = Path(__file__).resolve().parents[2]
CLI = str(Path(sys.executable).with_name("agent-evals"))


def _run(*args: str, cwd: Path = REPO, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CLI, "run", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )


def _write(root: Path, rel: str, source: str) -> Path:
    path = root / rel
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def test_run_examples__exit_0_summary_and_a_record_valid_against_the_shipped_schema(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    done = _run("examples/", "--output", str(out))
    assert done.returncode == 0, done.stderr
    assert "examples/eval_scoring.py (evals)" in done.stdout
    assert "pass@3" in done.stdout and "pass^3" in done.stdout
    assert "FAIL examples/eval_trials.py::test_capital (2/3 trials passed)" in done.stdout
    record = json.loads(out.read_text(encoding="utf-8"))
    jsonschema.validate(record, load_run_schema())
    ids = [case["id"] for suite in record["suites"] for case in suite["cases"]]
    assert "examples/eval_scoring.py::test_refund" in ids
    assert "examples/eval_cases.py::test_lookup_returns_requested_user[user-42]" in ids


@pytest.mark.parametrize(("rate", "code"), [("0.5", 0), ("0.99", 1)])
def test_fail_under__exit_1_only_when_the_pass_rate_is_below(rate: str, code: int) -> None:
    done = _run("examples/", "--quiet", "--fail-under", rate)
    assert done.returncode == code, done.stderr
    assert done.stdout.startswith("Run: 7 cases")
    assert ("below --fail-under" in done.stderr) is (code == 1)


def test_eval_file_that_fails_to_import__exit_2_naming_file_and_error(tmp_path: Path) -> None:
    _write(tmp_path, "eval_broken.py", "import not_a_real_module_abc\n")
    done = _run("eval_broken.py", cwd=tmp_path)
    assert done.returncode == 2
    assert (
        "eval_broken.py: failed to import: ModuleNotFoundError: No module named 'not_a_real_module_abc'"
        in done.stderr
    )
    assert "Traceback (most recent call last)" not in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("no_such_dir/",),
        ("examples/", "--trials", "0"),
        ("examples/", "--bogus"),
        # a --filter that matches no case ran nothing: never exit 0 (eval files alone said so already)
        ("benchmarks/home.yaml", "--filter", "no-such-case"),
        ("benchmarks/home.yaml", "examples/eval_cases.py", "--filter", "no-such-case"),
        ("benchmarks/home.yaml", "--filter", "no-such-case", "--shard", "1/2"),
        # a NaN compares false with every bound: --fail-under nan was a gate that never failed
        ("examples/", "--fail-under", "nan"),
        ("examples/", "--timeout", "nan"),
        ("examples/", "--timeout", "inf"),
        ("examples/", "--budget-usd", "-inf"),
    ],
)
def test_usage_errors__exit_2(args: tuple[str, ...]) -> None:
    done = _run(*args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("error: ") or "Error: " in done.stderr


def test_verbose__shows_traceback_trimmed_to_user_frames(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "eval_crash.py",
        """
        from agent_evals import eval

        def agent():
            return {}["missing"]

        @eval
        def test_crash():
            agent()
        """,
    )
    done = _run("eval_crash.py", "--verbose", cwd=tmp_path)
    assert done.returncode == 1  # 1 of 1 trials errored: over the default error budget
    assert "error budget exceeded (max_error_rate)" in done.stderr
    assert "ERROR eval_crash.py::test_crash" in done.stdout and "error: KeyError: 'missing'" in done.stdout
    assert 'eval_crash.py", line 5, in agent' in done.stdout
    assert "agent_evals" not in done.stdout.split("Traceback", 1)[1]


_MADE = """
from agent_evals import EvalContext, eval

def make(n):
    @eval(input=n)
    def test_made(ctx: EvalContext):
        assert ctx.input == 1
    return test_made

"""

# an eval file's case ids: what the record pairs cases by (None: refused, exit 2, naming both lines)
CASE_IDS: dict[str, tuple[str, list[str] | None]] = {
    "a factory makes two evals of one name": (_MADE + "test_one = make(1)\ntest_two = make(2)\n", None),
    "a redefined eval kept under another name": (
        _MADE + "test_made = make(1)\nkept = test_made\ntest_made = make(2)\n",
        None,
    ),
    "one eval bound to two names is one case": (
        _MADE + "test_one = make(1)\nalias = test_one\n",
        ["eval_made.py::test_made"],
    ),
}


@pytest.mark.parametrize(("source", "ids"), list(CASE_IDS.values()), ids=list(CASE_IDS))
def test_eval_case_ids__one_case_per_id_or_exit_2(tmp_path: Path, source: str, ids: list[str] | None) -> None:
    _write(tmp_path, "eval_made.py", source)
    out = tmp_path / "run.json"
    done = _run("eval_made.py", "-o", str(out), cwd=tmp_path)
    if ids is None:
        assert done.returncode == 2, done.stdout + done.stderr
        assert done.stderr.startswith("error: eval_made.py: two evals have the case id 'test_made'")
        assert "Traceback" not in done.stderr
        return
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads(out.read_text(encoding="utf-8"))
    assert [c["id"] for s in record["suites"] for c in s["cases"]] == ids
    compared = subprocess.run(
        [CLI, "compare", str(out), str(out)], capture_output=True, text=True, check=False
    )
    assert compared.returncode == 0, compared.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c__writes_partial_record_marked_incomplete(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    _write(
        tmp_path,
        "eval_slow.py",
        f"""
        import asyncio
        from pathlib import Path
        from agent_evals import eval

        @eval
        def test_quick():
            pass

        @eval
        async def test_slow():
            Path({str(marker)!r}).write_text("x")
            await asyncio.sleep(60)
        """,
    )
    out = tmp_path / "run.json"
    proc = subprocess.Popen(
        [CLI, "run", "eval_slow.py", "--output", str(out)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    deadline = time.monotonic() + 30
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "Interrupted" in stderr and "(interrupted: partial results)" in stdout
    record = json.loads(out.read_text(encoding="utf-8"))
    jsonschema.validate(record, load_run_schema())
    assert record["run"]["complete"] is False
    assert [c["name"] for c in record["suites"][0]["cases"]] == ["test_quick"]


def test_regrade__rescores_a_written_record_and_validates(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    regraded = tmp_path / "regraded.json"
    assert _run("examples/", "--quiet", "--output", str(out)).returncode == 0
    done = subprocess.run(
        [CLI, "regrade", str(out), "--output", str(regraded)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Regraded 9 trial(s); kept 0 as they were" in done.stdout
    before = json.loads(out.read_text(encoding="utf-8"))
    after = json.loads(regraded.read_text(encoding="utf-8"))
    jsonschema.validate(after, load_run_schema())
    outcome = [[t["passed"] for t in c["trials"]] for s in after["suites"] for c in s["cases"]]
    assert outcome == [[t["passed"] for t in c["trials"]] for s in before["suites"] for c in s["cases"]]


def test_regrade__unreadable_record_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    done = subprocess.run([CLI, "regrade", str(bad)], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "not valid JSON" in done.stderr


def test_run_path__imports_no_heavy_dependency() -> None:
    code = "import sys; from agent_evals.cli.main import main; sys.argv = ['agent-evals']; main(['run', 'examples/', '-q'])"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    imported = {
        line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")
    }
    heavy = {"jinja2", "requests", "langchain", "langchain_core", "autoevals", "agentevals", "openai"}
    assert not heavy & imported


def test_run_mixed_paths__eval_file_and_yaml_benchmark_share_one_valid_record(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    done = _run(
        "examples/eval_cases.py", "benchmarks/home.yaml", "--trials", "1", "--quiet", "--output", str(out)
    )
    assert done.returncode == 0, done.stderr
    record = json.loads(out.read_text(encoding="utf-8"))
    jsonschema.validate(record, load_run_schema())
    assert [(s["id"], s["kind"]) for s in record["suites"]] == [
        ("examples/eval_cases.py", "evals"),
        ("home", "benchmark"),
    ]
    assert {len(c["trials"]) for s in record["suites"] for c in s["cases"]} == {1}


SETUP_AGENTS = """
from agent_evals import BaseAgent, TaskResult


class Broken(BaseAgent):
    name = "broken"

    async def setup(self):
        raise ConnectionError("simulator refused the connection")

    async def run_case(self, prompt, **context):
        return TaskResult(output="hi")


class Fine(BaseAgent):
    name = "fine"

    async def run_case(self, prompt, **context):
        return TaskResult(output="hi")
"""

SETUP_BENCH = """
benchmark: {name}
agent: agents:{agent}
capabilities:
  - name: greet
    scenarios:
      - id: hello
        prompt: "say hi"
        success: {{output: {{contains: hi}}}}
"""


def test_agent_setup_raises__other_suites_run_record_written_exit_3(tmp_path: Path) -> None:
    _write(tmp_path, "agents.py", SETUP_AGENTS)
    _write(tmp_path, "a_broken.yaml", SETUP_BENCH.format(name="broken-suite", agent="Broken"))
    _write(tmp_path, "b_fine.yaml", SETUP_BENCH.format(name="fine-suite", agent="Fine"))
    out = tmp_path / "run.json"
    done = _run("a_broken.yaml", "b_fine.yaml", "--output", str(out), cwd=tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "agent setup failed in broken-suite" in done.stderr
    record = json.loads(out.read_text(encoding="utf-8"))
    suites = {s["id"]: s for s in record["suites"]}
    (broken,) = suites["broken-suite"]["cases"][0]["trials"]
    assert broken["passed"] is False
    assert broken["error"] == "agent setup failed: ConnectionError: simulator refused the connection"
    assert "simulator refused the connection" in broken["traceback"]
    (fine,) = suites["fine-suite"]["cases"][0]["trials"]
    assert fine["passed"] is True and fine.get("error") is None


WANDERS = """
import os


def answer(prompt):
    os.chdir({elsewhere!r})  # as a coding agent that works in a folder of its own does
    if prompt == "c1":
        raise ValueError("boom")
    return "ok"
"""

WANDER_CASES = 30
"""Cases per suite, one of them (c1) errored: 1 in 30 passes the default error budget, not the repo's."""

WANDER_BENCH = (
    "benchmark: {name}\nagent: wander:answer\ncapabilities:\n  - name: talk\n    scenarios:\n"
    + "".join(
        f"      - {{{{id: c{i}, prompt: c{i}, success: {{{{output: {{{{contains: ok}}}}}}}}}}}}\n"
        for i in range(WANDER_CASES)
    )
)

WANDER_EVAL = f"""
import wander
from agent_evals import EvalContext, eval


@eval(cases=[{{"id": f"c{{i}}", "input": f"c{{i}}"}} for i in range({WANDER_CASES})])
def test_talk(ctx: EvalContext):
    ctx.output = wander.answer(ctx.input)
"""

# the suites of a run whose agent changes the working directory
WANDERING: dict[str, list[str]] = {
    "an eval file, then a benchmark": ["eval_talk.py", "first.yaml"],
    "one benchmark, then another": ["first.yaml", "second.yaml"],
    "a benchmark alone": ["first.yaml"],
}


@pytest.mark.parametrize("paths", list(WANDERING.values()), ids=list(WANDERING))
def test_agent_changes_the_working_directory__the_run_still_reads_writes_and_gates_where_it_started(
    tmp_path: Path, paths: list[str]
) -> None:
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    _write(work, "wander.py", WANDERS.format(elsewhere=str(elsewhere)))
    _write(work, "first.yaml", WANDER_BENCH.format(name="first"))
    _write(work, "second.yaml", WANDER_BENCH.format(name="second"))
    _write(work, "eval_talk.py", WANDER_EVAL)
    _write(work, "agent-evals.yaml", "gate:\n  max_error_rate: 0\n")  # the repo's policy: no error at all
    done = _run(*paths, "--output", "run.json", cwd=work)
    # exit 1: the errored cases are over the repo's error budget (the policy file of the run's folder)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "max_error_rate" in done.stderr
    assert sorted(p.name for p in elsewhere.iterdir()) == []
    record = json.loads((work / "run.json").read_text(encoding="utf-8"))
    assert not (work / "run.json.partial").exists()
    jsonschema.validate(record, load_run_schema())
    assert record["run"]["complete"] is True
    assert len(record["suites"]) == len(paths)
    assert [len(s["cases"]) for s in record["suites"]] == [WANDER_CASES] * len(paths)


LOOSENS_POLICY = """
from pathlib import Path

from agent_evals import EvalContext, eval

# the code under test rewrites the repo's policy, at import and in every trial, to let errors pass
Path("agent-evals.yaml").write_text("gate:\\n  max_error_rate: 1\\n", encoding="utf-8")


@eval(cases=[{"id": f"c{i}", "input": i} for i in range(6)])
def test_flaky(ctx: EvalContext):
    Path("agent-evals.yaml").write_text("gate:\\n  max_error_rate: 1\\n", encoding="utf-8")
    raise ConnectionError("the agent is down")
"""

BAD_POLICIES = {
    "rate-over-one": ("gate:\n  max_error_rate: 7\n", "gate.max_error_rate", "did you mean 0.07"),
    "misspelt-knob": ("gate:\n  max_eror_rate: 0.1\n", "gate.max_eror_rate", "did you mean 'max_error_rate'"),
}


@pytest.mark.parametrize("policy", list(BAD_POLICIES.values()), ids=list(BAD_POLICIES))
def test_run_with_a_bad_repo_policy__exit_2_before_any_case_runs_naming_file_line_and_key(
    tmp_path: Path, policy: tuple[str, str, str]
) -> None:
    text, key, hint = policy
    _write(tmp_path, "agent-evals.yaml", text)
    ran = tmp_path / "ran"
    _write(
        tmp_path,
        "eval_one.py",
        f"""
        from pathlib import Path
        from agent_evals import EvalContext, eval

        @eval
        def test_one(ctx: EvalContext):
            Path({str(ran)!r}).write_text("ran")
        """,
    )
    done = _run("eval_one.py", "--output", "run.json", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert (
        f"{tmp_path / 'agent-evals.yaml'}:2:3" in done.stderr and key in done.stderr and hint in done.stderr
    )
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert not ran.exists() and not (tmp_path / "run.json").exists()


def test_run_whose_code_rewrites_the_repo_policy__gated_by_the_policy_read_before_it_ran(
    tmp_path: Path,
) -> None:
    _write(tmp_path, "agent-evals.yaml", "gate:\n  max_error_rate: 0\n")
    _write(tmp_path, "eval_flaky.py", LOOSENS_POLICY)
    done = _run("eval_flaky.py", "--output", "run.json", cwd=tmp_path)
    assert "max_error_rate: 1" in (tmp_path / "agent-evals.yaml").read_text(
        encoding="utf-8"
    )  # it did rewrite it
    # every trial errored: over the budget of the policy as it stood when the run started (exit 1)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "error budget exceeded (max_error_rate)" in done.stderr


PASSES = """
from agent_evals import eval, EvalContext

@eval(input="hi")
def test_echo(ctx: EvalContext):
    assert ctx.input == "hi"
"""


def test_run__without_output__keeps_a_record_per_run_under_agent_evals_runs_and_names_it(
    tmp_path: Path,
) -> None:
    _write(tmp_path, "eval_echo.py", PASSES)
    paths = []
    for _ in range(2):
        done = _run("eval_echo.py", cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        [line] = [x for x in done.stdout.splitlines() if x.startswith("Run record written to ")]
        paths.append(line.removeprefix("Run record written to ").split(" (")[0])
    first, second = paths
    assert first != second and all(p.startswith(".agent-evals/runs/run-") for p in paths)
    for rel in paths:
        jsonschema.validate(json.loads((tmp_path / rel).read_text(encoding="utf-8")), load_run_schema())
    assert (tmp_path / ".agent-evals/runs/.gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"
    compared = subprocess.run(
        [CLI, "compare", first, second], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert compared.returncode == 0, compared.stdout + compared.stderr


def test_run__without_output_where_the_default_folder_cannot_be_made__runs_and_says_no_record_was_kept(
    tmp_path: Path,
) -> None:
    _write(tmp_path, "eval_echo.py", PASSES)
    (tmp_path / ".agent-evals").write_text("a file, not a folder\n", encoding="utf-8")
    done = _run("eval_echo.py", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "note: no run record kept" in done.stderr and "pass -o RUN.json" in done.stderr
    assert "Run record written" not in done.stdout


def test_run__agent_and_eval_import_a_package_at_the_project_root__as_in_ci(tmp_path: Path) -> None:
    # `ci` runs the suites in a child started in the project's root, which finds `app/` there; the
    # console script must find it too, or a suite that passes in CI fails on the author's machine
    (tmp_path / "app").mkdir()
    (tmp_path / "evals").mkdir()
    _write(tmp_path, "app/__init__.py", "")
    _write(tmp_path, "app/agent.py", "def answer(prompt):\n    return prompt.upper()\n")
    _write(
        tmp_path,
        "evals/app.yaml",
        """\
        benchmark: app
        agent: app.agent:answer
        capabilities:
          - name: shout
            scenarios:
              - id: hi
                prompt: hi
                success: {output: {equals: HI}}
        """,
    )
    _write(
        tmp_path,
        "evals/eval_app.py",
        """\
        from agent_evals import eval, EvalContext
        from app.agent import answer

        @eval
        def test_shout(ctx: EvalContext):
            assert answer("ok") == "OK"
        """,
    )
    done = _run("evals/", "--output", str(tmp_path / "run.json"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 cases, 2 passed" in done.stdout, done.stdout


def test_output_and_reference_whose_repr_raises__recorded_as_a_placeholder_the_run_goes_on(
    tmp_path: Path,
) -> None:
    # an SDK object whose repr fails (a proxy whose session closed) ended the run: exit 3, no record
    _write(
        tmp_path,
        "eval_repr.py",
        """
        from agent_evals import EvalContext, eval


        class Broken:
            def __repr__(self):
                raise RuntimeError("session closed")


        @eval(input="a")
        def test_output(ctx: EvalContext):
            ctx.output = Broken()


        @eval(input="b", reference=Broken())
        def test_reference(ctx: EvalContext):
            ctx.output = "fine"


        @eval(input="c")
        def test_after(ctx: EvalContext):
            ctx.output = "fine"
        """,
    )
    out = tmp_path / "run.json"
    done = _run("eval_repr.py", "--output", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    cases = json.loads(out.read_text())["suites"][0]["cases"]
    assert len(cases) == 3
    assert cases[0]["trials"][0]["output"] == "<Broken object: its repr raised RuntimeError>"


def test_usage_beyond_what_a_record_holds__left_out_the_run_and_its_record_survive(tmp_path: Path) -> None:
    # two costs of 1e308 overflowed the suite's sum, 10**400 tokens the float conversion: exit 3, no record
    _write(
        tmp_path,
        "eval_usage.py",
        """
        from agent_evals import EvalContext, eval


        @eval(input="a")
        def test_a(ctx: EvalContext):
            ctx.store(output="a", usage={"input_tokens": 10**400, "output_tokens": 1, "cost_usd": 1e308})


        @eval(input="b")
        def test_b(ctx: EvalContext):
            ctx.store(output="b", usage={"input_tokens": 3, "output_tokens": 1, "cost_usd": 1e308})
        """,
    )
    out = tmp_path / "run.json"
    done = _run("eval_usage.py", "--output", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    usages = [case["trials"][0]["usage"] for case in json.loads(out.read_text())["suites"][0]["cases"]]
    assert [(u.get("input_tokens"), u.get("cost_usd")) for u in usages] == [(None, None), (3, None)]
    report = subprocess.run([CLI, "report", str(out)], capture_output=True, text=True, check=False)
    assert report.returncode == 0, report.stderr


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")
@pytest.mark.parametrize("kind", ["def", "async def"])
def test_eval_that_forks_without_ending_its_child__record_whole_no_orphan(tmp_path: Path, kind: str) -> None:
    # the child came back into the run: it wrote into the record file (invalid JSON, exit 3) and hung
    _write(
        tmp_path,
        "eval_fork.py",
        f"""
        import os
        from agent_evals import EvalContext, eval


        @eval(input="a")
        {kind} test_a(ctx: EvalContext):
            ctx.output = "a"


        @eval(input="b")
        {kind} test_b_forks(ctx: EvalContext):
            pid = os.fork()  # a library that forks a helper and forgets os._exit in the child
            ctx.output = "child" if pid == 0 else "parent"


        @eval(input="c")
        {kind} test_c(ctx: EvalContext):
            ctx.output = "c"
        """,
    )
    out = tmp_path / "run.json"
    done = _run("eval_fork.py", "--output", str(out), cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    outputs = [c["trials"][0]["output"] for c in json.loads(out.read_text())["suites"][0]["cases"]]
    assert outputs == ["a", "parent", "c"]
    assert done.stdout.count("Run record written") == 1  # the child said nothing


@pytest.mark.parametrize(
    ("kind", "call"),
    [
        ("def", "os._exit(0)"),
        ("async def", "os._exit(0)"),
        ("def", "os._exit(3)"),
        ("def", "import posix; posix._exit(0)"),  # the same function under its other name
        # a thread the trial started: the thread ends, the run goes on
        ("def", "t = threading.Thread(target=os._exit, args=(0,)); t.start(); t.join()"),
    ],
)
def test_eval_that_calls_os_exit__its_trial_errors_the_run_finishes_and_fail_under_holds(
    tmp_path: Path, kind: str, call: str
) -> None:
    # the run ended at once with the code user code asked for: exit 0 under --fail-under, no record
    _write(
        tmp_path,
        "eval_exit.py",
        f"""
        import os, threading
        from agent_evals import EvalContext, eval


        @eval(cases=[{{"input": i}} for i in range(6)])
        {kind} test_x(ctx: EvalContext):
            if ctx.input == 3:
                {call}
            assert ctx.input < 2
        """,
    )
    out = tmp_path / "run.json"
    done = _run("eval_exit.py", "--output", str(out), "--fail-under", "0.9", cwd=tmp_path, timeout=60)
    assert done.returncode == 1, done.stdout + done.stderr
    record = json.loads(out.read_text())
    assert record["run"]["complete"] is True
    trials = [case["trials"][0] for case in record["suites"][0]["cases"]]
    assert [t["passed"] for t in trials] == [True, True, False, False, False, False]
    if "Thread" not in call:
        assert (trials[3]["error"] or "").startswith("ExitRefused: os._exit(")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")
def test_eval_whose_forked_child_calls_os_exit__the_child_ends_as_asked(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "eval_child.py",
        """
        import os
        from agent_evals import EvalContext, eval


        @eval(input="a")
        def test_child(ctx: EvalContext):
            pid = os.fork()
            if pid == 0:
                os._exit(7)
            ctx.output = str(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
        """,
    )
    out = tmp_path / "run.json"
    done = _run("eval_child.py", "--output", str(out), cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(out.read_text())["suites"][0]["cases"][0]["trials"][0]["output"] == "7"


@pytest.mark.parametrize("closes", ["sys.stdout.close()", "sys.stdout.close(); sys.stderr.close()"])
def test_eval_that_closes_the_terminal_streams__summary_still_printed_exit_0(
    tmp_path: Path, closes: str
) -> None:
    # the summary's colour check on a closed sys.stdout ended the run with an internal error (exit 3)
    _write(
        tmp_path,
        "eval_close.py",
        f"""
        import sys
        from agent_evals import EvalContext, eval


        @eval(input="a")
        def test_closes(ctx: EvalContext):
            {closes}
            ctx.output = "a"
        """,
    )
    out = tmp_path / "run.json"
    done = _run("eval_close.py", "--output", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Run: 1 case, 1 passed" in done.stdout
    assert json.loads(out.read_text())["run"]["complete"] is True
